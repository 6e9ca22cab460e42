"""Folders for users' files on the server's disk, removed even after the server was killed.

A session's uploads live in a folder removed when the session ends or the server exits; a server
killed with SIGKILL runs neither, and its users' files would stay on disk. So each server keeps its
session folders inside one folder of its own, under a root every server on the machine shares
(``$RSE_SESSION_DIR``, default ``<temp>/rse-sessions-<uid>``), and holds an exclusive ``flock`` on
a lock file in that folder for as long as it runs. The kernel drops the lock when the process
ends, however it ends, so at its start a server removes every folder whose lock it can take: the
owner is gone. A live server's lock cannot be taken, so its folder is never touched (a process id
could not tell: a dead server's id may belong to another process by now).

Where ``fcntl`` is missing (Windows) folders are made the same way and only a normal exit removes them.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

LOGGER = logging.getLogger(__name__)
ROOT_ENV = "RSE_SESSION_DIR"
SERVER_PREFIX = "server-"  # a server's folder: server-<pid>-<random>; the pid is for people, the lock decides
LOCK_FILE = "server.lock"
_CLAIM_ATTEMPTS = 10


@dataclass(frozen=True)
class ServerFolder:
    """This server's folder and the open lock file that marks it as in use."""

    path: Path
    lock_fd: int | None  # None without flock


_OWN: ServerFolder | None = None
_OWN_LOCK = threading.Lock()


def start() -> None:
    """At the app's first run: remove the folders of servers that died and make this server's, so
    leftovers go at the next start, before any upload. Never raises: a server that cannot write
    there still serves every page, and an upload says what went wrong."""
    try:
        server_folder()
    except OSError:
        LOGGER.warning("no folder for session files (%s); uploads to a knowledge base will fail", ROOT_ENV)


def new_session_folder(prefix: str) -> Path:
    """A new private folder for one session's files, inside this server's folder."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=server_folder()))


def server_folder() -> Path:
    """This server's folder, made on the first call after removing those of servers that died."""
    global _OWN
    with _OWN_LOCK:
        if _OWN is None:
            root = session_root()
            removed = remove_dead_servers_folders(root)
            if removed:
                LOGGER.info("removed %d session folder(s) left by servers that are no longer running", removed)
            _OWN = claim_folder(root)
            atexit.register(release, _OWN)
        return _OWN.path


def session_root() -> Path:
    """The shared root, made private to this user; if someone else owns it, a fresh private one.

    Why the check: the default sits in the shared temporary folder, where another local user could
    have made it first (or a link under its name) to read or plant files."""
    configured = os.environ.get(ROOT_ENV, "").strip()
    uid = os.getuid() if hasattr(os, "getuid") else None
    default = Path(tempfile.gettempdir()) / ("rse-sessions" if uid is None else f"rse-sessions-{uid}")
    root = Path(configured) if configured else default
    try:
        with contextlib.suppress(FileExistsError):
            root.mkdir(mode=0o700, parents=True)
        owner = root.lstat().st_uid
    except OSError:
        owner = None
    if owner is None or root.is_symlink() or not root.is_dir() or (uid is not None and owner != uid):
        LOGGER.warning("%s is not a folder of this user; session files go to a new private folder", ROOT_ENV)
        return Path(tempfile.mkdtemp(prefix="rse-sessions-"))
    return root


def claim_folder(root: Path) -> ServerFolder:
    """A new folder under ``root``, locked by this process until it exits.

    The lock is checked to still be the folder's after it is taken: a server sweeping at the same
    moment may have found the folder before its lock was held and removed it; then try a new one.
    """
    for _ in range(_CLAIM_ATTEMPTS):
        path = Path(tempfile.mkdtemp(prefix=f"{SERVER_PREFIX}{os.getpid()}-", dir=root))
        if fcntl is None:
            return ServerFolder(path, None)
        lock_fd = _locked(path / LOCK_FILE, create=True)
        if lock_fd is not None:
            return ServerFolder(path, lock_fd)
    raise OSError(f"could not claim a session folder under {ROOT_ENV} after {_CLAIM_ATTEMPTS} attempts")


def remove_dead_servers_folders(root: Path) -> int:
    """Remove the folders under ``root`` whose server is no longer running; how many were removed."""
    if fcntl is None:
        return 0
    removed = 0
    for folder in root.iterdir():
        if not folder.name.startswith(SERVER_PREFIX) or folder.is_symlink() or not folder.is_dir():
            continue
        lock_fd = _locked(folder / LOCK_FILE, create=False)
        if lock_fd is None:
            with contextlib.suppress(OSError):  # a folder a server is just making, before its lock: only if empty
                folder.rmdir()
            continue
        try:
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
        finally:
            os.close(lock_fd)
    return removed


def release(folder: ServerFolder) -> None:
    """Remove this server's folder and drop its lock (at a normal exit)."""
    shutil.rmtree(folder.path, ignore_errors=True)
    if folder.lock_fd is not None:
        with contextlib.suppress(OSError):
            os.close(folder.lock_fd)


def _locked(lock_path: Path, *, create: bool) -> int | None:
    """An open descriptor holding ``lock_path``'s exclusive lock; ``None`` if another process holds
    it, the file is missing, or it was removed or replaced while the lock was being taken."""
    flags = os.O_RDWR | getattr(os, "O_NOFOLLOW", 0) | (os.O_CREAT if create else 0)
    try:
        fd = os.open(lock_path, flags, 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if os.path.samestat(os.fstat(fd), os.stat(lock_path, follow_symlinks=False)):
            return fd
    except OSError:  # held by a live server, or gone meanwhile
        pass
    os.close(fd)
    return None
