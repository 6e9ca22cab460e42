"""One writer per knowledge base: an exclusive lock on ``kb.lock`` in the base's folder.

Build, remove and repair each read the catalog, change the store and write the catalog back; two
at once would each write back their own view and lose the other's documents. So each holds this
lock from reading the catalog to its last write. A second writer waits up to ``wait`` seconds
(a build of a few files takes seconds, a large one longer) and then gets one line saying another
build is writing. Readers (queries) take no lock: the catalog is replaced atomically, and it
never lists a document before the store holds it.

The lock is an advisory ``flock`` (released by the system if the holder dies, so a killed build
never leaves a base locked), re-entrant within a process: a writer that calls another (say
``kb.remove`` while holding the lock) takes it again without waiting on itself.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from rse_core.kb.catalog import KnowledgeBaseError

LOCK_FILE = "kb.lock"
DEFAULT_WAIT_SECONDS = 600.0
"""How long a second writer waits for the first (``rse-kb build --wait``)."""
_POLL_SECONDS = 0.1
BUSY_MESSAGE = "another build is writing this base; try again when it finishes."


class BaseBusyError(KnowledgeBaseError):
    """Another process (or thread) kept the base's writer lock for longer than the wait."""


@dataclass
class _Holding:
    """This process's hold on one base's lock: threads queue on ``turn``; the file stays locked
    while ``depth`` is above zero."""

    turn: threading.RLock
    descriptor: int | None = None
    depth: int = 0


_holdings: dict[str, _Holding] = {}
_holdings_guard = threading.Lock()


@contextmanager
def writer_lock(kb_dir: str | Path, wait: float = DEFAULT_WAIT_SECONDS) -> Iterator[None]:
    """Hold the base's writer lock (the folder must exist).

    Raises:
        BaseBusyError: another writer held it for ``wait`` seconds.
    """
    kb_dir = Path(kb_dir)
    with _holdings_guard:
        holding = _holdings.setdefault(os.path.realpath(kb_dir), _Holding(threading.RLock()))
    deadline = time.monotonic() + max(wait, 0.0)
    if not holding.turn.acquire(timeout=max(wait, 0.0)):
        raise BaseBusyError(BUSY_MESSAGE)
    try:
        if holding.depth == 0:
            holding.descriptor = _lock_file(kb_dir / LOCK_FILE, deadline)
        holding.depth += 1
        try:
            yield
        finally:
            holding.depth -= 1
            if holding.depth == 0 and holding.descriptor is not None:
                os.close(holding.descriptor)  # closing the file releases the lock
                holding.descriptor = None
    finally:
        holding.turn.release()


def _lock_file(path: Path, deadline: float) -> int:
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        while not _try_lock(descriptor):
            if time.monotonic() >= deadline:
                raise BaseBusyError(BUSY_MESSAGE)
            time.sleep(_POLL_SECONDS)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def _try_lock(descriptor: int) -> bool:
    try:
        import fcntl
    except ImportError:  # Windows: a byte-range lock on the first byte
        import msvcrt

        try:
            msvcrt.locking(descriptor, msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
