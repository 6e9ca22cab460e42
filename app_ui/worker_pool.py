"""Small pools of worker processes for one user's heavy work: embedding a document's chunks and
drawing PDF pages.

Why: the server runs every session's Python under one interpreter lock. MiniLM embedding an
upload and PyMuPDF drawing pages held it for seconds, and every other student's slider move waited
(bystanders' slider p95 was 1.8 s while 10 of 30 students uploaded). In a worker process
that work holds only its own lock, at a lower CPU priority, and the server's threads just wait
for the answer.

Separate pools, so that a page a student is waiting for never queues behind another student's
upload: one embeds (its tasks are long: a batch of 32 chunks takes seconds) at a lower CPU
priority, one draws pages (tens of milliseconds a page) at the server's priority, and pages
already found costly (drawn at a reduced resolution for their cost) are redrawn by a third at the
lower priority, so they take only the CPU the other sessions leave.

- ``RSE_WORKER_PROCESSES``: workers per pool (default 1, and at least 2 for drawing; ``0`` runs
  the work in the server process, as before, which the tests use). Embedding tasks queue in order,
  so the uploads of several sessions take turns batch by batch; pages are drawn one at a time per
  session, sessions in turn (:mod:`app_ui.drawing_queue`).
- ``RSE_WORKER_TIMEOUT``: seconds one task may run in a worker (default 300); longer, the worker
  is stopped and the user told.
- ``RSE_WORKER_NICE``: how much lower the embedding workers' priority is (default 10).
- ``RSE_WORKER_THREADS``: most torch threads per embedding worker (default: the machine's cores, at
  most 4). The worker runs at a lower priority, so its threads take only the CPU the server's
  threads leave: measured on 2 cores, 1 thread made one user's upload 1.67x the library's time
  and 2 threads 1.18x, while a class of 30 with 10 uploading kept bystanders' slider p95 at
  0.25 s and 0.21 s (``bench/browser_speed.py --only-upload``, ``bench/balanced.py``). Several
  app processes on one machine share its cores batch by batch (:mod:`app_ui.core_slots`).

Workers start with ``spawn`` (a fresh interpreter: no copy of the server's threads or locks) and
without re-running the app (see :func:`_main_hidden`), load the model once each (on their first
batch, or at the app's model preload), and are shut down when the server exits. A worker that
dies (a crash in a native library) or overruns gives a :class:`WorkerError` that says so, never a
traceback; the pool starts new workers for the next task. Nothing here imports Streamlit, so a
worker's interpreter stays small.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib.machinery
import logging
import multiprocessing
import os
import sys
import threading
import time
import types
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from rse_core import Document, ParameterError, RSEError
from rse_core.figures import page_view
from rse_core.figures.page_view import Mark
from rse_core.scoring import minilm
from rse_core.validation import env_number

from . import core_slots, worker_watchdog
from .drawing_queue import DrawingScheduler

LOGGER = logging.getLogger(__name__)
T = TypeVar("T")

PROCESSES_ENV, TIMEOUT_ENV, NICE_ENV, THREADS_ENV = (
    "RSE_WORKER_PROCESSES",
    "RSE_WORKER_TIMEOUT",
    "RSE_WORKER_NICE",
    "RSE_WORKER_THREADS",
)
MAX_PROCESSES = 8
MIN_DRAWING_WORKERS = 2
"""Drawing workers when there are any: one session's costly page never holds the only one."""
EMBEDDING, DRAWING, COSTLY_DRAWING = "embedding", "drawing", "costly drawing"  # the pools
_POLL = 0.5  # seconds between checks of a running task's time


class WorkerError(RSEError):
    """A worker process died or ran out of time; the message says what to do."""


DEFAULT_THREADS = min(os.cpu_count() or 1, 4)
"""Torch threads per embedding worker: every core (a few at most), taken at the worker's lower priority."""


@dataclass(frozen=True)
class PoolSettings:
    """How many workers, how long a task may run, and how the workers are started."""

    processes: int = 1
    timeout: float = 300.0
    nice: int = 10
    threads: int = DEFAULT_THREADS

    @classmethod
    def from_environment(cls, kind: str = EMBEDDING) -> PoolSettings:
        """From the ``RSE_WORKER_*`` variables, for the pool of ``kind`` (drawing runs at the
        server's priority, a page known to be costly at the embedding's lower one); a bad value
        raises ``ParameterError`` naming the variable."""
        processes = _whole(PROCESSES_ENV, 1, 0, MAX_PROCESSES)
        if kind != EMBEDDING and processes:
            processes = max(processes, MIN_DRAWING_WORKERS)
        return cls(
            processes=processes,
            timeout=env_number(TIMEOUT_ENV, 300.0),
            nice=_whole(NICE_ENV, 10, 0, 19) if kind != DRAWING else 0,
            threads=_whole(THREADS_ENV, DEFAULT_THREADS, 1, 64),
        )


def _whole(variable: str, default: int, low: int, high: int) -> int:
    raw = os.environ.get(variable, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise ParameterError(
            f"The environment variable {variable}={raw!r} must be a whole number from {low} to {high}."
        )
    return int(raw)


def _start_worker(nice: int, threads: int) -> None:
    """In each new worker: an end with its server (:mod:`app_ui.worker_watchdog`), a lower priority,
    and its thread count for torch (read when it is imported)."""
    worker_watchdog.exit_with_server()
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[variable] = str(threads)
    with contextlib.suppress(OSError):  # not allowed here: run at the server's priority
        os.nice(nice)


class WorkerPool:
    """``run(task, *args)`` in a worker process (or here, with no workers), with clear failures.

    Thread-safe: every session's script thread may call :meth:`run`; the executor is made on
    first use and replaced after a worker dies.
    """

    def __init__(self, settings: PoolSettings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._executor: ProcessPoolExecutor | None = None
        self._generation = 0

    @property
    def in_process(self) -> bool:
        return self.settings.processes == 0

    def run(self, task: Callable[..., T], *args: Any, what: str) -> T:
        """``task(*args)`` in a worker; ``what`` names the work in messages ("embedding a document").

        A task whose worker died because another task crashed it is run once more; a second
        death, or a task over ``timeout`` seconds, raises :class:`WorkerError`. Exceptions the
        task raises itself (a model that cannot load, a page too large) come back as they are.
        """
        if self.in_process:
            return task(*args)
        for attempt in (1, 2):
            executor, generation = self._current()
            try:
                with _main_hidden():  # a submit may start a worker
                    future = executor.submit(task, *args)
            except BrokenProcessPool:  # broken between _current() and submit: start again
                self._replace(generation)
                continue
            try:
                return self._wait(future, generation, what)
            except BrokenProcessPool:
                self._replace(generation)
                if attempt == 2:
                    raise WorkerError(
                        f"The worker process {what} stopped unexpectedly (twice), perhaps on this input; it has been "
                        "restarted. Try again, or try another file or setting."
                    ) from None
                LOGGER.warning("a worker process died while %s; running it again", what)
        raise WorkerError(f"No worker process could start for {what}; try again.")

    def _wait(self, future: Future, generation: int, what: str) -> Any:
        """The task's result; its time counts from when a worker takes it (at most one task ahead)."""
        started: float | None = None
        while True:
            try:
                return future.result(timeout=_POLL)
            except FutureTimeout:
                if started is None and future.running():
                    started = time.monotonic()
                if started is not None and time.monotonic() - started > self.settings.timeout:
                    self._replace(generation, stop_workers=True)
                    raise WorkerError(
                        f"{what.capitalize()} took longer than {self.settings.timeout:g} s ({TIMEOUT_ENV}) and was "
                        "stopped. Try a smaller document or a larger chunk size."
                    ) from None

    def _current(self) -> tuple[ProcessPoolExecutor, int]:
        with self._lock:
            if self._executor is None:
                self._executor = ProcessPoolExecutor(
                    max_workers=self.settings.processes,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_start_worker,
                    initargs=(self.settings.nice, self.settings.threads),
                )
            return self._executor, self._generation

    def _replace(self, generation: int, *, stop_workers: bool = False) -> None:
        """Drop the executor of ``generation`` (the next task gets a new one); a stuck worker is killed."""
        with self._lock:
            if generation != self._generation or self._executor is None:
                return  # another thread replaced it already
            executor, self._executor = self._executor, None
            self._generation += 1
        if stop_workers:
            for process in list(getattr(executor, "_processes", {}).values()):  # no public way before 3.14
                process.kill()
        executor.shutdown(wait=False, cancel_futures=True)

    def worker_pids(self) -> list[int]:
        """The live workers' process ids (for tests and benchmarks)."""
        with self._lock:
            executor = self._executor
        processes = getattr(executor, "_processes", None) or {}
        return [process.pid for process in list(processes.values()) if process.is_alive()]

    def shutdown(self) -> None:
        """Stop the workers and wait for them (at exit, and in tests)."""
        with self._lock:
            executor, self._executor = self._executor, None
            self._generation += 1
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)


_MAIN_LOCK = threading.Lock()


@contextlib.contextmanager
def _main_hidden() -> Iterator[None]:
    """While a worker may be started: a ``__main__`` module that a spawned worker does not import.

    Why: ``spawn`` makes each worker import the parent's ``__main__`` module again, and during a
    Streamlit run ``sys.modules["__main__"]`` is the app script itself: every worker would run
    ``app.py`` (and die on it). A module whose spec is named ``__main__`` is one that
    ``multiprocessing`` skips. Put back as it was unless a script run installed its own meanwhile.
    """
    placeholder = types.ModuleType("__main__")
    placeholder.__spec__ = importlib.machinery.ModuleSpec("__main__", None)
    with _MAIN_LOCK:
        original = sys.modules.get("__main__")
        sys.modules["__main__"] = placeholder
        try:
            yield
        finally:
            if sys.modules.get("__main__") is placeholder and original is not None:
                sys.modules["__main__"] = original


_POOLS: dict[str, WorkerPool] = {}
_POOLS_LOCK = threading.Lock()


def shared_pool(kind: str = EMBEDDING) -> WorkerPool:
    """This process's pool for ``kind`` (:data:`EMBEDDING` or :data:`DRAWING`), from the
    environment on first use; shut down at exit."""
    with _POOLS_LOCK:
        if kind not in _POOLS:
            _POOLS[kind] = WorkerPool(PoolSettings.from_environment(kind))
            atexit.register(_POOLS[kind].shutdown)
        return _POOLS[kind]


# --- the app's tasks ---------------------------------------------------------------------------


def batch_encoder() -> minilm.BatchEncoder | None:
    """What the app's MiniLM scorers embed chunks with: the pool, or ``None`` (in the server
    process) when there are no workers."""
    return None if shared_pool(EMBEDDING).in_process else embed_batch


def embed_batch(model_path: str | None, texts: list[str]) -> np.ndarray:
    """One batch of chunk embeddings, from a worker (:data:`rse_core.scoring.minilm.BatchEncoder`)."""
    pool = shared_pool(EMBEDDING)
    if pool.in_process:
        return minilm.encode_texts(model_path, texts)
    return pool.run(encode_on_free_cores, model_path, texts, pool.settings.threads, what="embedding a document")


def encode_on_free_cores(model_path: str | None, texts: list[str], threads: int) -> np.ndarray:
    """In a worker: one batch with up to ``threads`` torch threads, as many as no other app
    process's worker is using (:mod:`app_ui.core_slots`)."""
    if not texts:  # a warm-up: only loads the model
        return minilm.encode_texts(model_path, texts)
    import torch  # loaded by the model already; not in the server's import of this module

    with core_slots.cores_held(threads) as granted:
        if torch.get_num_threads() != granted:
            torch.set_num_threads(granted)
        return minilm.encode_texts(model_path, texts)


def warm_up(model_path: str | None = None) -> None:
    """Load the model in a worker now (the app's background preload), so the first upload does not wait."""
    if not shared_pool(EMBEDDING).in_process:
        embed_batch(model_path, [])


def render_pages(
    document: Document, pages: list[int], marks: list[Mark], zoom: float, *, requester: Hashable = None
) -> list[bytes]:
    """:func:`rse_core.figures.page_view.render_pages`, drawn by the workers in turn with other
    requesters' pages (:mod:`app_ui.drawing_queue`; ``requester``: the session asking): the marks
    are laid out here (from the glyph map this process holds), each page drawn and encoded there."""
    return [drawn.png for drawn in draw_pages(document, pages, marks, zoom, requester=requester)]


def draw_pages(
    document: Document, pages: list[int], marks: list[Mark], zoom: float, *, requester: Hashable = None
) -> list[page_view.DrawnPage]:
    """Like :func:`render_pages`, each page with the zoom it was drawn at and why, if lowered or refused."""
    drawings = page_view.page_drawings(document, pages, marks, zoom)
    limits = page_view.DrawingLimits.from_environment()
    source = document.layout.source if document.layout is not None else b""
    return drawing_scheduler().draw(requester, source, drawings, zoom, limits)


_SCHEDULER: list[DrawingScheduler] = []
_SCHEDULER_LOCK = threading.Lock()


def drawing_scheduler() -> DrawingScheduler:
    """This process's :class:`~app_ui.drawing_queue.DrawingScheduler`: one dispatcher per drawing worker."""
    with _SCHEDULER_LOCK:
        if not _SCHEDULER:
            pool, costly = shared_pool(DRAWING), shared_pool(COSTLY_DRAWING)
            run = functools.partial(pool.run, what="drawing a PDF page")
            run_costly = functools.partial(costly.run, what="drawing a costly PDF page")
            _SCHEDULER.append(DrawingScheduler(run, pool.settings.processes, run_costly=run_costly))
        return _SCHEDULER[0]
