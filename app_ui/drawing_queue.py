"""Page drawing shared fairly between sessions, and remembered by content.

Why: every session's page images are drawn by the same few worker processes. Drawn in the order
asked, one session's costly pages held every other session's images for minutes. Here:

- a request is split into one task per page (each bounded by the drawing budget of
  :func:`rse_core.figures.page_view.draw_page`);
- each session (a *requester*) has its own queue, and the dispatchers take the next page from the
  requesters in turn, at most one page per requester at a time: with more dispatchers than
  requesters drawing, a new requester's page starts at once, and otherwise after at most one page
  of each requester ahead of it (:class:`FairQueue`);
- drawn pages are kept by content (:class:`DrawnPages`): the SHA-256 of the PDF, the page, its
  marks, the zoom and the limits. A page refused or drawn smaller for its cost is kept for every
  requester, and so is its cost: asked for again at another zoom or with other marks, a refused
  page is refused here without a worker, so the same costly page is measured once however often
  or by whoever it is asked for. An ordinary page is kept for its requester only (no session
  learns what another opened).

Nothing here imports Streamlit; the app names the requester (its session id).
"""

from __future__ import annotations

import hashlib
import threading
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field

from cachetools import LRUCache

from rse_core.figures.page_view import DrawingLimits, DrawnPage, PageDrawing, PaintCost, draw_page, refusal

DEFAULT_CACHE_BYTES = 64_000_000
"""Bytes of page images kept by content (a page at zoom 1.3 is about 200 KB: some 300 pages)."""
COSTS_KEPT = 4_096
"""Costly pages whose :class:`~rse_core.figures.page_view.PaintCost` is kept (a few dozen bytes each)."""

PageRunner = Callable[..., DrawnPage]
"""Runs ``draw_page(*args)`` somewhere (a worker process: ``WorkerPool.run`` without ``what``)."""


@dataclass(frozen=True)
class PageRequest:
    """One page to draw: everything its image depends on, so it doubles as the cache key."""

    source_hash: str
    drawing: PageDrawing
    zoom: float
    limits: DrawingLimits

    @property
    def costly_key(self) -> tuple:
        """A refusal depends on the page, zoom and limits, not on the marks drawn over it."""
        return ("refused", self.source_hash, self.drawing.page, self.zoom, self.limits)


@dataclass
class _Task:
    requester: Hashable
    request: PageRequest
    source: bytes
    future: Future = field(default_factory=Future)


class FairQueue:
    """Tasks of several requesters, taken in turn: the requester served longest ago (or never)
    first, each with at most one task taken and not yet :meth:`done`. Thread-safe."""

    MAX_REMEMBERED = 1_024
    """Requesters whose last turn is remembered; idle ones are forgotten past this."""

    def __init__(self) -> None:
        self._queues: dict[Hashable, deque[_Task]] = {}
        self._running: set[Hashable] = set()
        self._served: dict[Hashable, int] = {}  # requester -> when its last task was taken
        self._turns = 0
        self._ready = threading.Condition()

    def put(self, task: _Task) -> None:
        with self._ready:
            self._queues.setdefault(task.requester, deque()).append(task)
            self._ready.notify()

    def take(self, timeout: float | None = None) -> _Task | None:
        """The next task in turn, waiting up to ``timeout`` seconds (``None``: until there is one)."""
        with self._ready:
            task = self._next()
            while task is None:
                if not self._ready.wait(timeout) and timeout is not None:
                    return self._next()
                task = self._next()
            return task

    def done(self, requester: Hashable) -> None:
        """The task taken for ``requester`` has finished: its next one may be taken."""
        with self._ready:
            self._running.discard(requester)
            self._ready.notify_all()

    def _next(self) -> _Task | None:
        waiting = [requester for requester in self._queues if requester not in self._running]
        if not waiting:
            return None
        requester = min(waiting, key=lambda name: self._served.get(name, -1))
        queue = self._queues[requester]
        task = queue.popleft()
        if not queue:
            del self._queues[requester]
        self._running.add(requester)
        self._turns += 1
        self._served[requester] = self._turns
        if len(self._served) > self.MAX_REMEMBERED:
            self._served = {
                name: turn for name, turn in self._served.items() if name in self._queues or name in self._running
            }
        return task


class DrawnPages:
    """Drawn pages by content, bounded by bytes; thread-safe (see the module docstring for what is shared)."""

    def __init__(self, max_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self._data: LRUCache[tuple, DrawnPage] = LRUCache(maxsize=max_bytes, getsizeof=lambda drawn: len(drawn.png))
        self._costs: LRUCache[tuple[str, int], PaintCost] = LRUCache(maxsize=COSTS_KEPT)
        self._lock = threading.Lock()

    def get(self, requester: Hashable, request: PageRequest) -> DrawnPage | None:
        """The page as drawn before, or refused now from the cost it was measured at (with the
        marks it had then: marks add a few boxes to a page thousands of operations over)."""
        with self._lock:
            found = (
                self._data.get(request.costly_key)
                or self._data.get(("reduced", request))
                or self._data.get(("own", requester, request))
            )
            cost = self._costs.get((request.source_hash, request.drawing.page))
        if found is None and cost is not None:
            found = refusal(request.drawing.page, cost, request.zoom, request.limits)
            if found is not None:
                self.put(requester, request, found)
        return found

    def clear(self) -> None:
        """Forget every page and cost (a benchmark's fresh start)."""
        with self._lock:
            self._data.clear()
            self._costs.clear()

    def known_costly(self, request: PageRequest) -> bool:
        """Whether the page was refused or drawn smaller before (at any zoom, with any marks)."""
        with self._lock:
            return (request.source_hash, request.drawing.page) in self._costs

    def put(self, requester: Hashable, request: PageRequest, drawn: DrawnPage) -> None:
        if drawn.refused:
            key: tuple = request.costly_key
        elif drawn.note:
            key = ("reduced", request)
        else:
            key = ("own", requester, request)
        with self._lock:
            if len(drawn.png) <= self._data.maxsize:
                self._data[key] = drawn
            if drawn.note:
                self._costs[(request.source_hash, request.drawing.page)] = drawn.cost


class DrawingScheduler:
    """Draws pages with ``run`` on ``dispatchers`` threads, fairly between requesters (0: in the
    calling thread, no queue, as the tests and a server without workers do), remembering them.
    A page whose cost is known to be over budget, and every page of a requester that has asked
    for one, is drawn with ``run_costly`` (default ``run``; the app's runs at a lower CPU
    priority): uploading the costly PDF again, as new bytes, does not buy its first measuring
    back at the server's priority."""

    def __init__(
        self,
        run: PageRunner,
        dispatchers: int,
        cache: DrawnPages | None = None,
        *,
        run_costly: PageRunner | None = None,
    ) -> None:
        self.queue = FairQueue()
        self.cache = cache or DrawnPages()
        self._run = run
        self._run_costly = run_costly or run
        self._costly_requesters: LRUCache[Hashable, bool] = LRUCache(maxsize=COSTS_KEPT)
        self._dispatchers = dispatchers
        self._threads: list[threading.Thread] = []
        self._pending: dict[tuple, Future] = {}  # (requester, request) -> the task drawing it
        self._lock = threading.Lock()

    def draw(
        self,
        requester: Hashable,
        source: bytes,
        drawings: Sequence[PageDrawing],
        zoom: float,
        limits: DrawingLimits,
    ) -> list[DrawnPage]:
        """Each drawing's page, from memory or drawn in turn; waits for them all.

        Raises whatever the drawing raised (a page too large, a worker that died or overran)."""
        source_hash = hashlib.sha256(source).hexdigest()
        requests = [PageRequest(source_hash, drawing, zoom, limits) for drawing in drawings]
        if not self._dispatchers:
            return [self._drawn(requester, request, source) for request in requests]
        futures = [self._submit(requester, request, source) for request in requests]
        return [future.result() for future in futures]

    def _drawn(self, requester: Hashable, request: PageRequest, source: bytes) -> DrawnPage:
        found = self.cache.get(requester, request)
        if found is None:
            with self._lock:
                costly = requester in self._costly_requesters or self.cache.known_costly(request)
            run = self._run_costly if costly else self._run
            found = run(draw_page, source, request.drawing, request.zoom, request.limits)
            self.cache.put(requester, request, found)
        if found.note:
            with self._lock:
                self._costly_requesters[requester] = True
        return found

    def _submit(self, requester: Hashable, request: PageRequest, source: bytes) -> Future:
        found = self.cache.get(requester, request)
        if found is not None:
            future: Future = Future()
            future.set_result(found)
            return future
        with self._lock:
            pending = self._pending.get((requester, request))
            if pending is not None:
                return pending  # asked again (a rerun) while queued: the same task
            task = _Task(requester, request, source)
            self._pending[(requester, request)] = task.future
            self._start_dispatchers()
        self.queue.put(task)
        return task.future

    def _start_dispatchers(self) -> None:
        while len(self._threads) < self._dispatchers:
            thread = threading.Thread(target=self._dispatch, name="page-drawing", daemon=True)
            thread.start()
            self._threads.append(thread)

    def _dispatch(self) -> None:
        while True:
            task = self.queue.take()
            if task is None:
                continue
            try:
                task.future.set_result(self._drawn(task.requester, task.request, task.source))
            except BaseException as error:  # handed to the session waiting for it
                task.future.set_exception(error)
            finally:
                with self._lock:
                    self._pending.pop((task.requester, task.request), None)
                self.queue.done(task.requester)
