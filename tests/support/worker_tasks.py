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


def threads_for_a_batch(model_path: str | None, texts: list[str], threads: int) -> int:
    """The torch threads a worker ran one embedding batch with (``app_ui.core_slots``)."""
    import torch

    from app_ui.worker_pool import encode_on_free_cores

    encode_on_free_cores(model_path, texts, threads)
    return torch.get_num_threads()
