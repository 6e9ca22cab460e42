"""A bystander's page images alone, and while another session asks for a costly PDF's pages.

    python bench/page_drawing_fairness.py                 # RSE_WORKER_PROCESSES=1, as the app runs
    python bench/page_drawing_fairness.py --rounds 2 --strokes 60000 7000 1500

Both sessions draw through ``app_ui.worker_pool.render_pages`` (the app's path: the fair queue,
the drawing workers, the content cache) with their own requester ids. The bystander draws what
opening a sample shows: every page's thumbnail and three pages at the page view's zoom, once per
zoom in ``--zooms`` (the thumbnails are drawn once, then come from the cache). The other
session loops over the hostile PDF (generated here, never saved:
one page per ``--strokes`` count of thick page-wide strokes, text under them), each time at a
new zoom and with new marks. The drawn pages and the costs kept are forgotten before each round,
as if the hostile PDF were uploaded again (new bytes): its pages are measured again each round.
Prints each phase's seconds and the ratio (goal: at most 2x), the old path (one task per request)
for reference, and what the drawing budget made of each hostile page.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("RSE_WORKER_PROCESSES", "1")

from app_ui import worker_pool  # noqa: E402
from rse_core import load_document  # noqa: E402
from rse_core.figures import page_view  # noqa: E402
from rse_core.figures.page_view import SEGMENT, THUMBNAIL_ZOOM, Mark  # noqa: E402
from tests.support.pdf_factory import make_stroke_heavy_pdf  # noqa: E402

TEXT = "Costly strokes lie over this text, which is cheap to read and slow to draw. " * 5


def bystander(document, zooms: list[float]) -> float:
    """Seconds to draw the thumbnails and three pages at each zoom, as the page view asks for them."""
    pages = list(range(1, document.page_count + 1))
    marks = [Mark(document.doc_id, 0, min(len(document.text), 2000), SEGMENT, "S1")]
    started = time.perf_counter()
    for zoom in zooms:
        worker_pool.render_pages(document, pages, marks, THUMBNAIL_ZOOM, requester="bystander")
        worker_pool.render_pages(document, pages[1:4], marks, zoom, requester="bystander")
    return time.perf_counter() - started


def attacker(document, stop: threading.Event, outcomes: dict[int, str]) -> None:
    """The hostile PDF's pages, again and again, each time at a zoom (and marks) not yet asked for."""
    pages = list(range(1, document.page_count + 1))
    for step in itertools.count():
        if stop.is_set():
            return
        zoom = 0.6 + (step % 240) * 0.01
        marks = [Mark(document.doc_id, 0, 10 + step % 50, SEGMENT, "S1")]
        for drawn in worker_pool.draw_pages(document, pages, marks, zoom, requester="attacker"):
            outcomes[drawn.page] = "refused" if drawn.refused else f"drawn at zoom {drawn.zoom:.2f} (asked {zoom:.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="measurements of each phase (the best is kept)")
    parser.add_argument("--zooms", type=float, nargs="+", default=[1.3, 1.5, 2.0])
    parser.add_argument("--strokes", type=int, nargs="+", default=[60_000, 7_000, 1_500])
    parser.add_argument("--sample", default=str(ROOT / "sample_docs" / "annual_report.pdf"))
    arguments = parser.parse_args()

    own = load_document(Path(arguments.sample))
    hostile_pages = [make_stroke_heavy_pdf(count, text=TEXT) for count in arguments.strokes]
    hostile = load_document(_joined(hostile_pages), name="strokes.pdf")
    print(
        f"RSE_WORKER_PROCESSES={os.environ['RSE_WORKER_PROCESSES']} (drawing workers: "
        f"{worker_pool.shared_pool(worker_pool.DRAWING).settings.processes}); bystander: {own.name}, "
        f"{own.page_count} pages; hostile: {len(hostile.layout.source) / 1e6:.1f} MB, strokes per page "
        f"{arguments.strokes}"
    )
    scheduler = worker_pool.drawing_scheduler()
    costly = worker_pool.shared_pool(worker_pool.COSTLY_DRAWING)
    _start_every_worker([worker_pool.shared_pool(worker_pool.DRAWING), costly])

    alone = []
    for _ in range(arguments.rounds):
        scheduler.cache.clear()
        alone.append(bystander(own, arguments.zooms))
    contended, outcomes = [], {}
    for _ in range(arguments.rounds):
        scheduler.cache.clear()
        stop = threading.Event()
        thread = threading.Thread(target=attacker, args=(hostile, stop, outcomes), daemon=True)
        thread.start()
        time.sleep(1.0)  # the hostile pages are being drawn
        contended.append(bystander(own, arguments.zooms))
        stop.set()
        thread.join()
    one_task = [_one_task_per_request(own, arguments.zooms) for _ in range(arguments.rounds)]
    print(f"bystander alone:              {_times(alone)}")
    print(f"bystander with hostile pages: {_times(contended)}")
    print(f"ratio (best of each):         {min(contended) / min(alone):7.2f}x  (goal: at most 2x)")
    print(f"ratio (worst of each):        {max(contended) / max(alone):7.2f}x")
    print(f"alone, one task per request:  {_times(one_task)}  (the path before: no turns, no budget)")
    for page, outcome in sorted(outcomes.items()):
        print(f"hostile page {page} ({arguments.strokes[page - 1]:,} strokes): {outcome}")
    worker_pool.shared_pool(worker_pool.DRAWING).shutdown()
    costly.shutdown()


def _start_every_worker(pools) -> None:
    """Every worker of the pools started (the executor starts one per task that finds none idle:
    otherwise the first round would time the interpreters' start, which a server pays once)."""
    tasks = [(pool, index) for pool in pools for index in range(pool.settings.processes)]
    threads = [
        threading.Thread(target=pool.run, args=(time.sleep, 1.0), kwargs={"what": "warming up"}) for pool, _ in tasks
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _times(seconds: list[float]) -> str:
    return f"{min(seconds):7.2f} s  (rounds: {', '.join(f'{t:.2f}' for t in seconds)})"


def _one_task_per_request(document, zooms: list[float]) -> float:
    """What :func:`bystander` took before pages were drawn one per task: one task per request."""
    pool = worker_pool.shared_pool(worker_pool.DRAWING)
    pages = list(range(1, document.page_count + 1))
    marks = [Mark(document.doc_id, 0, min(len(document.text), 2000), SEGMENT, "S1")]
    started = time.perf_counter()
    for step, zoom in enumerate(zooms):
        for shown, at in ((pages if step == 0 else [], THUMBNAIL_ZOOM), (pages[1:4], zoom)):  # thumbnails kept
            drawings = page_view.page_drawings(document, shown, marks, at)
            pool.run(page_view.draw_pages, document.layout.source, drawings, at, 12_000_000, what="the bench")
    return time.perf_counter() - started


def _joined(pages: list[bytes]) -> bytes:
    import pymupdf

    with pymupdf.open() as joined:
        for data in pages:
            with pymupdf.open(stream=data, filetype="pdf") as part:
                joined.insert_pdf(part)
        return joined.tobytes(deflate=True)


if __name__ == "__main__":
    main()
