"""A network guard for a whole Python process: put this folder first on ``PYTHONPATH``.

Python imports ``sitecustomize`` at start-up, before any application code, so every later
``socket.getaddrinfo``, ``gethostbyname`` and ``connect`` goes through these wrappers. A lookup of
a name other than localhost, or a connection to an address other than loopback, is refused
(``OSError``, so nothing leaves the machine) and appended as one line to ``$RSE_NETWORK_LOG``.
Native code that calls libc directly is not seen here; PyMuPDF's onnxruntime add-on is kept out
of the process instead (``rse_core.documents.pymupdf_import.import_pymupdf``).
"""

from __future__ import annotations

import ipaddress
import os
import socket

_LOG = os.environ.get("RSE_NETWORK_LOG", "")
_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback", ""}


def _is_local(host: object) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    host = str(host).strip("[]").lower()
    if host in _LOCAL_NAMES:
        return True
    try:
        address = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def _refuse(kind: str, target: object) -> None:
    if _LOG:
        with open(_LOG, "a", encoding="utf-8") as log:
            log.write(f"{os.getpid()} {kind} {target!r}\n")
    raise OSError(f"network guard: {kind} {target!r} refused (the app must run offline)")


_getaddrinfo = socket.getaddrinfo
_gethostbyname = socket.gethostbyname
_gethostbyname_ex = socket.gethostbyname_ex
_connect = socket.socket.connect
_connect_ex = socket.socket.connect_ex


def getaddrinfo(host, *args, **kwargs):
    if not _is_local(host):
        _refuse("getaddrinfo", host)
    return _getaddrinfo(host, *args, **kwargs)


def gethostbyname(host):
    if not _is_local(host):
        _refuse("gethostbyname", host)
    return _gethostbyname(host)


def gethostbyname_ex(host):
    if not _is_local(host):
        _refuse("gethostbyname_ex", host)
    return _gethostbyname_ex(host)


def _check_address(sock: socket.socket, address: object) -> None:
    internet = sock.family in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple)
    if internet and not _is_local(address[0]):
        _refuse("connect", address[:2])


def connect(self, address):
    _check_address(self, address)
    return _connect(self, address)


def connect_ex(self, address):
    _check_address(self, address)
    return _connect_ex(self, address)


socket.getaddrinfo = getaddrinfo
socket.gethostbyname = gethostbyname
socket.gethostbyname_ex = gethostbyname_ex
socket.socket.connect = connect
socket.socket.connect_ex = connect_ex
