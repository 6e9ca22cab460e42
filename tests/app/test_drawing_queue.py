"""Page drawing shared between sessions (``app_ui.drawing_queue``): sessions take turns page by
page, and a page is drawn once for its content, a costly page's refusal included."""

from __future__ import annotations

import threading

import pymupdf
import pytest

from app_ui.drawing_queue import DrawingScheduler, DrawnPages, FairQueue, PageRequest, _Task
from rse_core.figures.page_view import DrawingLimits, DrawnPage, PageDrawing, PaintCost, draw_page
from tests.support.pdf_factory import make_pdf, make_stroke_heavy_pdf

LIMITS = DrawingLimits()


def _task(requester: str, page: int) -> _Task:
    return _Task(requester, PageRequest("hash", PageDrawing(page, ()), 1.0, LIMITS), b"")


def _order(queue: FairQueue, finish_each: bool = True) -> list[tuple[str, int]]:
    taken = []
    while (task := queue.take(timeout=0)) is not None:
        taken.append((task.requester, task.request.drawing.page))
        if finish_each:
            queue.done(task.requester)
    return taken


def test_a_second_session_s_page_comes_before_the_first_session_s_remaining_pages():
    queue = FairQueue()
    for page in (1, 2, 3, 4):
        queue.put(_task("attacker", page))
    first = queue.take(timeout=0)
    assert (first.requester, first.request.drawing.page) == ("attacker", 1)
    queue.put(_task("bystander", 1))
    queue.put(_task("bystander", 2))
    queue.done("attacker")
    assert _order(queue) == [("bystander", 1), ("attacker", 2), ("bystander", 2), ("attacker", 3), ("attacker", 4)]


def test_a_session_has_at_most_one_page_drawing_at_a_time():
    """With two dispatchers free, the second takes the other session's page, not the first's next."""
    queue = FairQueue()
    for page in (1, 2, 3):
        queue.put(_task("attacker", page))
    assert _order(queue, finish_each=False) == [("attacker", 1)]  # the rest wait for it to finish
    queue.put(_task("bystander", 7))
    assert _order(queue, finish_each=False) == [("bystander", 7)]
    queue.done("attacker")
    assert _order(queue, finish_each=False) == [("attacker", 2)]


def test_a_waiting_dispatcher_wakes_for_a_new_page():
    queue = FairQueue()
    taken: list[_Task | None] = []
    waiter = threading.Thread(target=lambda: taken.append(queue.take(timeout=30)))
    waiter.start()
    queue.put(_task("bystander", 1))
    waiter.join(timeout=30)
    assert taken and taken[0] is not None and taken[0].requester == "bystander"


@pytest.fixture
def counted():
    """A page runner drawing here, counting the pages it draws."""
    calls: list[int] = []

    def run(task, source, drawing, zoom, limits) -> DrawnPage:
        calls.append(drawing.page)
        return task(source, drawing, zoom, limits)

    return run, calls


@pytest.mark.parametrize("dispatchers", [0, 2])
def test_a_refused_page_is_remembered_for_every_session_and_never_measured_again(counted, dispatchers):
    run, calls = counted
    scheduler = DrawingScheduler(run, dispatchers)
    source = make_stroke_heavy_pdf(7_000, pages=2)
    first = scheduler.draw("attacker", source, [PageDrawing(1, ())], 1.3, LIMITS)
    assert first[0].refused and "too costly to draw" in first[0].note
    again = scheduler.draw("attacker", source, [PageDrawing(1, ())], 1.3, LIMITS)
    marked = scheduler.draw("other", source, [PageDrawing(1, (("segment", ((50, 50, 200, 60),), "S1"),))], 1.3, LIMITS)
    assert again == first and marked == first
    larger = scheduler.draw("other", source, [PageDrawing(1, ())], 2.0, LIMITS)[0]
    assert larger.refused and larger.note == first[0].note
    assert calls == [1]  # measured once; neither the marks nor a higher zoom make it drawable


def test_a_page_found_costly_is_redrawn_by_the_costly_runner(counted):
    run, calls = counted
    costly_calls: list[int] = []

    def run_costly(task, source, drawing, zoom, limits) -> DrawnPage:
        costly_calls.append(drawing.page)
        return task(source, drawing, zoom, limits)

    scheduler = DrawingScheduler(run, 1, run_costly=run_costly)
    source = make_stroke_heavy_pdf(1_500, pages=2)
    first = scheduler.draw("attacker", source, [PageDrawing(1, ())], 1.3, LIMITS)[0]
    assert not first.refused and first.zoom < 1.3 and calls == [1] and costly_calls == []
    again = scheduler.draw("someone", source, [PageDrawing(1, ())], 1.4, LIMITS)
    assert costly_calls == [1] and again[0].zoom == first.zoom  # the budget, not the zoom asked for, sets it
    scheduler.draw("a third", source, [PageDrawing(2, ())], 1.3, LIMITS)
    assert calls == [1, 2]  # page 2 was not known to be costly, nor was the session asking for it
    scheduler.draw(
        "attacker", make_pdf(["An ordinary page, uploaded after a costly one."]), [PageDrawing(1, ())], 1.0, LIMITS
    )
    assert costly_calls == [1, 1]  # every page of a session that asked for a costly one


def test_an_ordinary_page_is_drawn_once_per_session_and_kept_to_it(counted):
    run, calls = counted
    scheduler = DrawingScheduler(run, 2)
    source = make_pdf(["Otters hold hands while they sleep. " * 20])
    drawings = [PageDrawing(1, ())]
    mine = scheduler.draw("me", source, drawings, 0.5, LIMITS)
    assert scheduler.draw("me", source, drawings, 0.5, LIMITS) == mine and calls == [1]
    assert scheduler.draw("someone else", source, drawings, 0.5, LIMITS) == mine
    assert calls == [1, 1]  # drawn again for another session: no one learns what another opened
    assert mine[0] == draw_page(source, drawings[0], 0.5, LIMITS)


def test_a_drawing_error_reaches_the_session_that_asked_and_the_next_page_is_drawn(counted):
    run, _ = counted
    scheduler = DrawingScheduler(run, 1)
    with pytest.raises(pymupdf.FileDataError):
        scheduler.draw("me", b"not a pdf", [PageDrawing(1, ())], 1.0, LIMITS)
    source = make_pdf(["A page."])
    assert scheduler.draw("me", source, [PageDrawing(1, ())], 1.0, LIMITS)[0].zoom == 1.0


def test_the_kept_pages_are_bounded_by_bytes():
    cache = DrawnPages(max_bytes=1_000)
    for page in range(1, 20):
        request = PageRequest("hash", PageDrawing(page, ()), 1.0, LIMITS)
        cache.put("me", request, DrawnPage(page, b"x" * 300, 1.0, PaintCost(1, 1.0, 595, 842)))
    assert sum(len(drawn.png) for drawn in cache._data.values()) <= 1_000
    assert cache.get("me", PageRequest("hash", PageDrawing(19, ()), 1.0, LIMITS)) is not None
