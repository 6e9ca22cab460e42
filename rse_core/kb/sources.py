"""The files a build reads: each file named, and the documents under each folder named, never a
file outside them.

A folder given to a build may be one others can write to (a shared drop folder), and a link in
it could point at any file the server can read (``notes.md -> ../../secrets.toml``). So a
folder's walk follows a link only when its target resolves inside the folder, skips and names
any other (and any broken or looping link), and a file is read through a descriptor whose real
path is checked against the folder after opening, so a link swapped in after the walk is refused
too. The path a base records is the one under the folder as given, never a link's target.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from rse_core.documents.loading import SUPPORTED_SUFFIXES
from rse_core.errors import DocumentError, UnsupportedFormatError


class OutsideFolderError(DocumentError):
    """A file of a folder's walk resolved outside the folder when it was read."""


@dataclass(frozen=True)
class SourceFile:
    """A file to read: ``path`` as given (the folder joined with the names under it), and the
    resolved folder it must stay inside (``None`` for a file named on its own)."""

    path: Path
    root: Path | None = None

    def read_bytes(self, limit: int) -> bytes:
        """At most ``limit + 1`` bytes (one more than a loader accepts, so it refuses a larger
        file by its size without this reading all of it).

        Raises:
            OutsideFolderError: the file opened is not inside its folder.
            OSError: it could not be read.
        """
        if self.root is None:
            with open(self.path, "rb") as handle:
                return handle.read(limit + 1)
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)  # a FIFO must not block
        descriptor = os.open(self.path.resolve(strict=True), flags)
        with os.fdopen(descriptor, "rb") as handle:
            if not is_inside(_opened_path(descriptor) or self.path.resolve(strict=True), self.root):
                raise OutsideFolderError(f"{self.path.name} leads outside the folder given; it was not read.")
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                raise DocumentError(f"{self.path.name} is not a regular file; it was not read.")
            return handle.read(limit + 1)


@dataclass(frozen=True)
class NotRead:
    """A path a build leaves out, and why: a link leaving its folder, a broken link, a file of
    another type (the path as given, never a link's target)."""

    path: str
    reason: str


@dataclass(frozen=True)
class Sources:
    """What a build will read, and what it leaves out."""

    files: tuple[SourceFile, ...]
    skipped: tuple[NotRead, ...] = ()

    @property
    def paths(self) -> list[Path]:
        return [source.path for source in self.files]

    def require_files(self) -> None:
        """Refuse a build with nothing to read, before anything is made.

        Raises:
            UnsupportedFormatError: no file given (or found in the folders given) is a document.
        """
        if not self.files:
            reasons = "; ".join(f"{Path(item.path).name}: {item.reason}" for item in self.skipped[:5])
            raise UnsupportedFormatError(
                f"Nothing to add: {reasons or 'the folders given hold no PDF, text or Markdown file'}."
            )


LEAVES_FOLDER = "a link to outside the folder"
BROKEN_LINK = "a broken or looping link"
UNSUPPORTED = "not a PDF, text or Markdown file"


def collect_sources(paths: Iterable[str | Path]) -> Sources:
    """Each file given, and every PDF/TXT/MD file under each folder given (sorted, hidden ones
    left out; links leaving the folder and files of other types skipped and listed, so one
    ``.json`` in a glob does not stop the build).

    Raises:
        UnsupportedFormatError: a path does not exist (a typo: nothing is built).
    """
    files: list[SourceFile] = []
    skipped: list[NotRead] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found, links = _walk(path)
            files.extend(found)
            skipped.extend(links)
        elif path.is_file():
            if path.suffix.lower() in SUPPORTED_SUFFIXES:
                files.append(SourceFile(path))
            else:
                skipped.append(NotRead(str(path), UNSUPPORTED))
        else:
            raise UnsupportedFormatError(f"No such file or folder: {path}")
    unique = {source.path: source for source in reversed(files)}  # the first naming of a path wins
    return Sources(tuple(source for source in files if unique[source.path] is source), tuple(skipped))


def as_sources(paths: Iterable[str | Path] | Sources) -> Sources:
    """``paths`` collected, unless they already are."""
    return paths if isinstance(paths, Sources) else collect_sources(paths)


def is_inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _walk(folder: Path) -> tuple[list[SourceFile], list[NotRead]]:
    """The folder's documents and the links it holds that leave it; a stack, not recursion, and
    each real directory walked once (by the first path met, depth first in sorted order), so
    neither depth nor a link loop can stall it."""
    root = folder.resolve()
    found: list[SourceFile] = []
    skipped: list[NotRead] = []
    visited: set[Path] = set()
    pending = [(folder, root)]  # (the path walked, the real directory it is), popped in sorted order
    while pending:
        directory, real_directory = pending.pop()
        if real_directory in visited:
            continue
        visited.add(real_directory)
        try:
            entries = sorted(os.scandir(directory), key=lambda entry: entry.name, reverse=True)
        except OSError:
            continue  # unreadable: nothing in it can be read either
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = directory / entry.name
            try:
                real = path.resolve(strict=True)
            except (OSError, RuntimeError):
                skipped.append(NotRead(str(path), BROKEN_LINK))
                continue
            if not is_inside(real, root):
                skipped.append(NotRead(str(path), LEAVES_FOLDER))
            elif real.is_dir():
                if real not in visited:
                    pending.append((path, real))
            elif real.is_file() and path.suffix.lower() in SUPPORTED_SUFFIXES:
                found.append(SourceFile(path, root))
            elif real.is_file():
                skipped.append(NotRead(str(path), UNSUPPORTED))
    return sorted(found, key=lambda source: source.path), sorted(skipped, key=lambda link: link.path)


def _opened_path(descriptor: int) -> Path | None:
    """The real path of an open file where the system says (Linux's ``/proc``), else ``None``."""
    try:
        return Path(os.readlink(f"/proc/self/fd/{descriptor}"))
    except OSError:
        return None
