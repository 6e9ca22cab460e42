"""Machine-wide core slots for embedding workers: however many app processes run on a machine,
their embedding never runs more torch threads than it has cores.

Why: behind nginx every app process has its own embedding worker, and each used every core. With
two processes and 20 of 60 students uploading, four torch threads fought over two cores (an
OpenMP thread that waits for a descheduled sibling spins), the servers spent 180 s of CPU where
126 s did, and uploads took 69 s at p50 (81 s at most) instead of 43 s (47 s)
(``bench/balanced.py --processes 2 --sessions 60 --uploaders 20 --seconds 60``, docs/speed.md).
One worker alone on the machine still gets every core: one upload is fastest with both.

Each core is a lock file in a private folder. For one batch a worker holds at least one slot
(waiting for it if all are taken) and whichever others are free, and runs that many threads;
the kernel releases a dead worker's locks. A short gate lock makes taking slots one worker at a
time, so a worker that just released its slots cannot take them all again before a waiting one.
Where the folder cannot be made private (another owner, a symlink), nothing is coordinated.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import logging
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

LOGGER = logging.getLogger(__name__)


def default_folder() -> Path:
    """One folder per user and machine: every app process of the user shares it."""
    return Path(tempfile.gettempdir()) / f"rse-explorer-cores-{os.getuid()}"


def _private_folder(folder: Path) -> Path | None:
    """``folder``, made if missing, or ``None`` if it is not a directory of ours that only we can write."""
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700, parents=True)
    try:
        info = folder.lstat()
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        return None
    return folder


@functools.cache
def _warn_once() -> None:
    LOGGER.warning("no private folder for core slots; embedding threads are not coordinated")


def _open(path: Path) -> int:
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)


@contextlib.contextmanager
def cores_held(wanted: int, folder: Path | None = None, cores: int | None = None) -> Iterator[int]:
    """Hold between 1 and ``wanted`` of the machine's ``cores`` slots (default: its cores) while
    the block runs; yields how many, the threads the block may run.

    Waits only when every slot is held. Without a usable ``folder`` yields ``wanted``."""
    cores = max(1, cores or os.cpu_count() or 1)
    wanted = max(1, min(wanted, cores))
    place = _private_folder(folder or default_folder())
    if place is None:
        _warn_once()
        yield wanted
        return
    held: list[int] = []
    try:
        gate = _open(place / "gate")
        try:
            fcntl.flock(gate, fcntl.LOCK_EX)
            for number in range(cores):
                if len(held) == wanted:
                    break
                handle = _open(place / f"core-{number}")
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(handle)
                    continue
                held.append(handle)
            if not held:  # every core is busy: wait for one (others wait at the gate meanwhile)
                handle = _open(place / f"core-{os.getpid() % cores}")
                held.append(handle)
                fcntl.flock(handle, fcntl.LOCK_EX)
        finally:
            os.close(gate)  # closing releases the lock
        yield len(held)
    finally:
        for handle in held:
            os.close(handle)
