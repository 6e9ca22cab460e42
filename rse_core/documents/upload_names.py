"""An uploaded file's name, made safe to record and to write before anything is done with it.

Why: a browser sends whatever name the user's file has, and a name is recorded (a document's name,
a knowledge base's catalog, a link) and, for a session's knowledge base, written to disk. A
300-character name, or 260 bytes of "é", is longer than a file system allows (255 bytes), and
writing it failed with an OSError naming the server's temporary folder, after the name had been
recorded. Every upload path asks :func:`upload_name` first and uses its ``stored`` name from then
on; ``shown`` keeps the original, bounded, for the user to recognise (the UI still escapes it).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Container
from dataclasses import dataclass

STORED_NAME_BYTES = 100  # UTF-8 bytes: well under every file system's 255, with room for a folder's prefix
SHOWN_NAME_CHARS = 80
HASH_CHARS = 8
HASH_SEPARATOR = "~"
FALLBACK_STEM = "upload"
ELLIPSIS = "\u2026"
_EXTENSION = re.compile(r"[A-Za-z0-9]{1,10}")
_PATH_SEPARATORS = re.compile(r"[/\\]")
_UNPRINTABLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})  # controls, bidi overrides, surrogates ...


@dataclass(frozen=True)
class UploadName:
    """``stored``: the name recorded and written (printable, no folders, at most
    ``STORED_NAME_BYTES`` bytes, the extension kept); ``shown``: the original as the user knows it,
    one printable line of at most ``SHOWN_NAME_CHARS`` characters."""

    stored: str
    shown: str


def upload_name(raw: object, data: bytes, taken: Container[str] = ()) -> UploadName:
    """The safe name of an upload called ``raw`` with contents ``data``.

    The name is NFC-normalised, loses any folders and every character no output can show, and is
    cut (at a character, the extension kept) to ``STORED_NAME_BYTES`` bytes. A cut name, or one
    already in ``taken``, ends in a short hash of ``data`` so that two files never share a name
    unless they are the same file.
    """
    printable = _printable(raw)
    base = _PATH_SEPARATORS.split(printable)[-1].strip()
    _, dot, extension = base.rpartition(".")
    suffix = dot + extension if dot and _EXTENSION.fullmatch(extension) else ""
    stem = base[: len(base) - len(suffix)].strip(" .") or FALLBACK_STEM  # never "", "." or ".."
    stored = stem + suffix
    if len(stored.encode("utf-8")) > STORED_NAME_BYTES or stored in taken:
        stored = _with_hash(stem, suffix, data)
    return UploadName(stored, _shortened(printable.strip() or stored, SHOWN_NAME_CHARS))


def _printable(raw: object) -> str:
    text = unicodedata.normalize("NFC", str(raw))
    return "".join(" " if char.isspace() else char for char in text if unicodedata.category(char) not in _UNPRINTABLE)


def _with_hash(stem: str, suffix: str, data: bytes) -> str:
    """``stem`` cut so that it, the content hash and ``suffix`` fit ``STORED_NAME_BYTES`` bytes."""
    tail = f"{HASH_SEPARATOR}{hashlib.sha256(data).hexdigest()[:HASH_CHARS]}{suffix}"
    room = STORED_NAME_BYTES - len(tail.encode("utf-8"))
    cut = stem.encode("utf-8")[:room].decode("utf-8", errors="ignore").rstrip(" .")
    return cut + tail


def _shortened(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + ELLIPSIS
