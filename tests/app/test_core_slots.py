"""Machine-wide core slots (``app_ui.core_slots``): the embedding workers of several app processes
never run more threads than the machine has cores, a worker alone gets them all, and a dead
worker's slots come back."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from app_ui import core_slots, worker_pool
from app_ui.worker_pool import PoolSettings, WorkerPool
from rse_core.scoring import minilm
from tests.support import worker_tasks

ROOT = Path(__file__).resolve().parents[2]


def test_a_worker_alone_gets_the_cores_it_wants(tmp_path):
    with core_slots.cores_held(2, tmp_path, cores=4) as granted:
        assert granted == 2
    with core_slots.cores_held(9, tmp_path, cores=4) as granted:
        assert granted == 4  # never more than the machine has


def test_two_holders_share_the_cores_and_never_exceed_them(tmp_path):
    with core_slots.cores_held(1, tmp_path, cores=2) as first, core_slots.cores_held(2, tmp_path, cores=2) as second:
        assert (first, second) == (1, 1)


def test_a_holder_waits_while_every_core_is_held_then_gets_one(tmp_path):
    got: list[tuple[float, int]] = []

    def second_worker() -> None:
        with core_slots.cores_held(2, tmp_path, cores=2) as granted:
            got.append((time.monotonic(), granted))

    with core_slots.cores_held(2, tmp_path, cores=2):
        waiter = threading.Thread(target=second_worker)
        waiter.start()
        time.sleep(0.3)
        assert not got, "took a core while every core was held"
        released = time.monotonic()
    waiter.join(timeout=10)
    assert got and got[0][0] >= released and got[0][1] >= 1


def test_a_dead_worker_s_cores_come_back(tmp_path):
    code = (
        "import sys, time; from pathlib import Path; from app_ui import core_slots\n"
        "with core_slots.cores_held(2, Path(sys.argv[1]), cores=2):\n"
        "    print('held', flush=True); time.sleep(60)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        holder.kill()
        holder.wait(timeout=10)
        with core_slots.cores_held(2, tmp_path, cores=2) as granted:
            assert granted == 2
    finally:
        holder.kill()


@pytest.mark.parametrize("mode", [0o777, 0o775])
def test_a_folder_others_can_write_is_not_trusted_and_nothing_is_coordinated(tmp_path, mode):
    shared = tmp_path / "slots"
    shared.mkdir()
    shared.chmod(mode)
    with core_slots.cores_held(2, shared, cores=2) as granted:
        assert granted == 2
    assert not list(shared.iterdir()), "wrote lock files into a folder others can write"


def test_a_symlink_is_not_followed(tmp_path):
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    link = tmp_path / "slots"
    link.symlink_to(target)
    with core_slots.cores_held(2, link, cores=2) as granted:
        assert granted == 2
    assert not list(target.iterdir())


@pytest.mark.slow
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="needs two cores to leave one to the worker")
def test_a_worker_s_batch_runs_on_the_cores_left_free_with_the_same_embeddings(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the spawned worker's default folder
    folder = tmp_path / f"rse-explorer-cores-{os.getuid()}"
    cores = os.cpu_count() or 1
    texts = ["Valve positions are adjusted every shift.", "The annual report lists revenue by segment."]
    pool = WorkerPool(PoolSettings(processes=1, timeout=120, nice=5, threads=cores))
    try:
        with core_slots.cores_held(cores - 1, folder, cores=cores) as taken:
            assert taken == cores - 1
            assert pool.run(worker_tasks.threads_for_a_batch, None, texts, cores, what="a test") == 1
        assert pool.run(worker_tasks.threads_for_a_batch, None, texts, cores, what="a test") == cores
        embedded = pool.run(worker_pool.encode_on_free_cores, None, texts, cores, what="a test")
    finally:
        pool.shutdown()
    np.testing.assert_allclose(embedded, minilm.encode_texts(None, texts), atol=1e-5)
