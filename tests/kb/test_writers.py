"""One writer per base: concurrent builds both land whole, a busy base is one clear line, and
the catalog is replaced through temporary files of its own."""

from __future__ import annotations

import importlib.machinery
import multiprocessing
import sys
import types

import pytest

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

from rse_core.cli.kb import main
from rse_core.kb import KnowledgeBase, build
from rse_core.kb.check import check_base
from rse_core.kb.writer_lock import BUSY_MESSAGE, LOCK_FILE, BaseBusyError, writer_lock
from tests.kb.support import HashingEmbedder, as_default_embedder, build_in_process, filler, hold_writer_lock


@pytest.fixture(autouse=True)
def no_main_module_for_spawned_children(monkeypatch):
    """A spawned child imports the parent's ``__main__`` again; after an AppTest in the same run that is
    the app script's temporary file, which a child cannot run. A module named ``__main__`` by its spec is
    one ``multiprocessing`` skips."""
    placeholder = types.ModuleType("__main__")
    placeholder.__spec__ = importlib.machinery.ModuleSpec("__main__", None)
    monkeypatch.setitem(sys.modules, "__main__", placeholder)


def test_two_builds_into_one_base_at_once_list_and_store_every_document_once(tmp_path):
    paths = []
    for number in range(12):
        path = tmp_path / "docs" / f"doc{number:02}.md"
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"# Note {number}\n\n" + filler(f"topic{number}", 3, seed=number))
        paths.append(str(path))
    kb_dir = str(tmp_path / "kb")
    spawn = multiprocessing.get_context("spawn")
    start = spawn.Barrier(2)
    builders = [spawn.Process(target=build_in_process, args=(kb_dir, half, start)) for half in (paths[:6], paths[6:])]
    for builder in builders:
        builder.start()
    for builder in builders:
        builder.join(300)
    assert [builder.exitcode for builder in builders] == [0, 0]
    kb = KnowledgeBase.open(kb_dir, HashingEmbedder())
    assert sorted(entry.name for entry in kb.documents.values()) == [f"doc{number:02}.md" for number in range(12)]
    assert kb.store.documents() == {doc_id: entry.chunks for doc_id, entry in kb.documents.items()}
    assert kb.store.stored_chunks() == kb.store.documents()
    assert check_base(kb_dir).ok
    assert not list((tmp_path / "kb").glob("*.tmp")) and not list((tmp_path / "kb" / "bounds").glob("*.tmp"))


@pytest.fixture
def base_held_by_another_process(tmp_path):
    document = tmp_path / "a.md"
    document.write_text("# A\n\n" + filler("alpha", 3))
    build(tmp_path / "kb", [document], embedder=HashingEmbedder())
    spawn = multiprocessing.get_context("spawn")
    held, release = spawn.Event(), spawn.Event()
    holder = spawn.Process(target=hold_writer_lock, args=(str(tmp_path / "kb"), held, release))
    holder.start()
    assert held.wait(60)
    yield tmp_path / "kb"
    release.set()
    holder.join(60)


def test_a_second_writer_that_cannot_wait_is_told_in_one_line(
    base_held_by_another_process, tmp_path, monkeypatch, capsys
):
    kb_dir = base_held_by_another_process
    other = tmp_path / "b.md"
    other.write_text("# B\n\n" + filler("beta", 3))
    with pytest.raises(BaseBusyError, match="another build is writing this base"):
        build(kb_dir, [other], embedder=HashingEmbedder(), wait=0)
    kb = KnowledgeBase.open(kb_dir, HashingEmbedder())
    assert [entry.name for entry in kb.documents.values()] == ["a.md"]
    as_default_embedder(monkeypatch)
    assert main(["build", str(kb_dir), str(other), "--wait", "0", "--quiet"]) == 2
    assert capsys.readouterr().err == f"error: {BUSY_MESSAGE}\n"


def _lock_is_free(kb_dir) -> bool:
    """Whether a new open file description can take the lock (this process's own hold blocks it too)."""
    with open(kb_dir / LOCK_FILE, "rb") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(handle, fcntl.LOCK_UN)
        return True


@pytest.mark.skipif(fcntl is None, reason="flock is POSIX")
def test_the_lock_is_reentrant_within_a_process_and_released_after(tmp_path):
    document = tmp_path / "a.md"
    document.write_text("# A\n\n" + filler("alpha", 3))
    build(tmp_path / "kb", [document], embedder=HashingEmbedder())
    assert _lock_is_free(tmp_path / "kb")  # the build released it
    with writer_lock(tmp_path / "kb", wait=0), writer_lock(tmp_path / "kb", wait=0):  # taken again without waiting
        assert not _lock_is_free(tmp_path / "kb")
    assert _lock_is_free(tmp_path / "kb")  # released when the outer hold ends
    kb = KnowledgeBase.open(tmp_path / "kb", HashingEmbedder())
    assert kb.remove("a.md").name == "a.md"
    assert KnowledgeBase.open(tmp_path / "kb", HashingEmbedder()).documents == {}
