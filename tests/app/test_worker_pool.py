"""The worker processes that embed documents and draw pages off the server's interpreter lock
(``app_ui.worker_pool``): same answers as in the server, clear failures, nothing left running.

Each test starts its own small pool (spawned interpreters, so a few seconds each) and shuts it
down; the root conftest fails the run if a worker outlives it.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from app_ui import worker_pool
from app_ui.drawing_queue import DrawingScheduler
from app_ui.samples import SAMPLE_DIR
from app_ui.worker_pool import PoolSettings, WorkerError, WorkerPool
from rse_core import ParameterError, extract, load_document
from rse_core.errors import PageViewTooLargeError
from rse_core.figures import page_view
from tests.support import worker_tasks

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def pool():
    started = WorkerPool(PoolSettings(processes=1, timeout=60, nice=5))
    yield started
    pids = started.worker_pids()
    started.shutdown()
    assert not [pid for pid in pids if _alive(pid)], "a worker outlived shutdown()"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_with_no_workers_the_task_runs_here():
    assert WorkerPool(PoolSettings(processes=0)).run(worker_tasks.pid, what="a test") == os.getpid()


def test_a_task_runs_in_a_worker_at_a_lower_priority(pool):
    assert pool.run(worker_tasks.pid, what="a test") != os.getpid()
    assert pool.run(worker_tasks.niceness, what="a test") == min(os.nice(0) + 5, 19)  # 19 is the lowest


def test_a_task_s_own_error_comes_back_as_it_is(pool):
    with pytest.raises(ValueError, match="bad input"):
        pool.run(worker_tasks.fail, "bad input", what="a test")
    with pytest.raises(PageViewTooLargeError, match="cannot be drawn"):  # the library's message, unchanged
        pool.run(page_view.fitted_zoom, 1.0, 1e9, 1.0, 10, what="drawing PDF pages")


def test_a_crashed_worker_gives_a_clear_message_and_the_pool_recovers(pool):
    with pytest.raises(WorkerError, match="stopped unexpectedly") as raised:
        pool.run(worker_tasks.crash, 3, what="embedding a document")
    assert "embedding a document" in str(raised.value) and "Traceback" not in str(raised.value)
    assert pool.run(worker_tasks.pid, what="a test") != os.getpid()  # new workers for the next task


def test_a_task_over_its_time_is_stopped_with_a_message():
    pool = WorkerPool(PoolSettings(processes=1, timeout=1, nice=5))
    try:
        pool.run(worker_tasks.pid, what="a test")  # a worker up and running
        stuck = pool.worker_pids()
        started = time.monotonic()
        with pytest.raises(WorkerError, match=r"took longer than 1 s \(RSE_WORKER_TIMEOUT\)"):
            pool.run(worker_tasks.sleep, 600, what="drawing PDF pages")
        assert time.monotonic() - started < 300  # stopped, long before the task itself would end (not a speed bound)
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in stuck) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in stuck), "the stuck worker was not stopped"
        assert pool.run(worker_tasks.sleep, 0, what="a test") == 0
    finally:
        pool.shutdown()


def test_settings_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("RSE_WORKER_PROCESSES", "0")
    monkeypatch.setenv("RSE_WORKER_TIMEOUT", "12.5")
    assert PoolSettings.from_environment() == PoolSettings(processes=0, timeout=12.5)
    assert PoolSettings.from_environment(worker_pool.DRAWING).nice == 0  # a page is waited for: no lower priority
    assert PoolSettings.from_environment(worker_pool.DRAWING).processes == 0
    monkeypatch.setenv("RSE_WORKER_PROCESSES", "1")
    assert PoolSettings.from_environment(worker_pool.DRAWING).processes == 2  # a costly page never holds the only one
    assert PoolSettings.from_environment().processes == 1
    costly = PoolSettings.from_environment(worker_pool.COSTLY_DRAWING)
    assert (costly.processes, costly.nice) == (2, 10)  # a page known to be costly takes the CPU others leave
    monkeypatch.setenv("RSE_WORKER_PROCESSES", "many")
    with pytest.raises(ParameterError, match="RSE_WORKER_PROCESSES"):
        PoolSettings.from_environment()


def test_pages_drawn_by_a_worker_are_the_same_images(pool):
    document = load_document(SAMPLE_DIR / "annual_report.pdf")
    result = extract(document, "Show me the consolidated financial statements", scorer="bm25")
    marks = page_view.all_marks(result)
    pages = [*page_view.pages_of(document, marks)[:3], 1]
    here = page_view.render_pages(document, pages, marks, 1.3)
    drawings = page_view.page_drawings(document, pages, marks, 1.3)
    there = pool.run(page_view.draw_pages, document.layout.source, drawings, 1.3, 12_000_000, what="drawing PDF pages")
    assert there == here
    scheduler = DrawingScheduler(functools.partial(pool.run, what="drawing a PDF page"), 2)
    drawn = scheduler.draw("a session", document.layout.source, drawings, 1.3, page_view.DrawingLimits())
    assert [page.png for page in drawn] == here


@pytest.mark.slow
def test_embeddings_from_a_worker_equal_the_server_s(pool):
    from rse_core import Document, chunk_document
    from rse_core.scoring.minilm import MiniLMScorer

    text = "The heat pump moves warmth from outside air into the house. " * 3 + "Soup on Tuesdays. " * 20
    chunks = chunk_document(Document.from_text(text, name="t.txt"), 80)
    here = MiniLMScorer(disk_cache=False, batch_size=4).embed_chunks(chunks)
    encoder = lambda model, texts: pool.run(worker_pool.minilm.encode_texts, model, texts, what="a test")  # noqa: E731
    there = MiniLMScorer(disk_cache=False, batch_size=4, batch_encoder=encoder).embed_chunks(chunks)
    assert there.shape == here.shape and there.dtype == np.float32
    np.testing.assert_allclose(there, here, atol=1e-5)


def test_the_shared_pool_is_shut_down_when_the_server_exits(tmp_path):
    """A process that used the pool exits without leaving its worker behind (atexit)."""
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from app_ui import worker_pool
        from tests.support import worker_tasks
        pools = [worker_pool.shared_pool(kind) for kind in (worker_pool.EMBEDDING, worker_pool.DRAWING)]
        for pool in pools:
            pool.run(worker_tasks.pid, what="a test")
        print(*[pid for pool in pools for pid in pool.worker_pids()])
        """
    )
    env = dict(os.environ, RSE_WORKER_PROCESSES="1")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    pids = [int(pid) for pid in done.stdout.split()]
    assert len(pids) == 2
    assert not [pid for pid in pids if _alive(pid)]


def test_workers_do_not_run_the_app_script_that_is_main_during_a_streamlit_run(tmp_path, monkeypatch):
    """During a Streamlit run ``__main__`` is the app script; a spawned worker must not run it."""
    import types

    marker = tmp_path / "ran"
    script = tmp_path / "app.py"
    script.write_text(f"open({str(marker)!r}, 'w').write('the worker ran the app')\nraise SystemExit(1)\n")
    fake_main = types.ModuleType("__main__")
    fake_main.__file__ = str(script)
    monkeypatch.setitem(sys.modules, "__main__", fake_main)
    pool = WorkerPool(PoolSettings(processes=1, timeout=60))
    try:
        assert pool.run(worker_tasks.pid, what="a test") != os.getpid()
    finally:
        pool.shutdown()
    assert not marker.exists()
    assert sys.modules["__main__"] is fake_main  # put back
