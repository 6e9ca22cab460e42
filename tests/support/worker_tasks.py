"""Tasks for ``tests/app/test_worker_pool.py``: module-level, so a spawned worker can import them."""

from __future__ import annotations

import os
import time


def pid() -> int:
    return os.getpid()


def niceness() -> int:
    return os.nice(0)


def crash(code: int) -> None:
    os._exit(code)  # what a segfault in a native library looks like to the pool: the process is gone


def sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def fail(message: str) -> None:
    raise ValueError(message)
