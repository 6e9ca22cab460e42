"""Building a knowledge base: content-hashed documents, batched commits, resume, remove, progress."""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from rse_core import chunk_document, load_document
from rse_core.errors import EmbedderMismatchError, UnsupportedFormatError
from rse_core.kb import KnowledgeBase, KnowledgeBaseError, build
from rse_core.kb.base import KnowledgeBase as KBClass
from tests.kb.support import SAMPLES, HashingEmbedder, filler


@pytest.fixture(scope="module")
def sample_kb(tmp_path_factory):
    """The three sample PDFs, built once for the module (model-free embeddings)."""
    kb_dir = tmp_path_factory.mktemp("kb") / "samples"
    report = build(kb_dir, SAMPLES, embedder=HashingEmbedder())
    return kb_dir, report


def test_a_build_stores_every_chunk_of_every_sample_as_chunk_document_makes_it(sample_kb):
    kb_dir, report = sample_kb
    kb = KnowledgeBase.open(kb_dir, HashingEmbedder())
    assert len(report.added) == 3 and report.skipped == () and report.failed == ()
    for path in SAMPLES:
        document = load_document(path)
        chunks = chunk_document(document)  # default RSEParams chunk size, headers on
        entry = kb.documents[document.doc_id]
        assert (entry.name, entry.chunks, entry.pages) == (path.name, len(chunks), document.page_count)
        stored = kb.store.read(document.doc_id, 0, len(chunks) - 1)
        assert [(c.start, c.end, c.text) for c in stored] == [(c.start, c.end, c.text) for c in chunks]
        assert "".join(c.text for c in stored) == document.text
        assert list(kb.chunk_ends(document.doc_id)) == [c.end for c in chunks]
    assert kb.store.count() == kb.info().chunks == report.chunks


def test_adding_the_same_files_again_stores_them_once(sample_kb, tmp_path):
    kb_dir, _ = sample_kb
    renamed = tmp_path / "copy of tech report.pdf"
    shutil.copy(SAMPLES[-1], renamed)  # same bytes, another name
    before = KnowledgeBase.open(kb_dir, HashingEmbedder()).store.count()
    again = build(kb_dir, [*SAMPLES, renamed], embedder=HashingEmbedder())
    assert again.added == () and len(again.skipped) == 4
    kb = KnowledgeBase.open(kb_dir, HashingEmbedder())
    assert kb.store.count() == before and len(kb.documents) == 3


def test_the_same_bytes_twice_in_one_build_are_stored_once(tmp_path):
    first = tmp_path / "a.md"
    first.write_text("# Notes\n\n" + filler("alpha", 4))
    second = tmp_path / "b.md"
    second.write_bytes(first.read_bytes())
    report = build(tmp_path / "kb", [first, second], embedder=HashingEmbedder())
    assert [entry.name for entry in report.added] == ["a.md"] and report.skipped == (str(second),)


def test_a_build_interrupted_after_its_first_batch_resumes_with_the_rest(tmp_path):
    files = []
    for number, topic in enumerate(("alpha", "beta", "gamma")):
        path = tmp_path / f"doc{number}.txt"
        path.write_text(filler(topic, 6, seed=number))
        files.append(path)
    kb_dir = tmp_path / "kb"

    def stop_after_first_commit(progress):
        if progress.committed_documents:
            raise KeyboardInterrupt  # as if the process were killed

    with pytest.raises(KeyboardInterrupt):
        build(kb_dir, files, stop_after_first_commit, embedder=HashingEmbedder(), batch_chunks=1)
    kb = KnowledgeBase.open(kb_dir, HashingEmbedder())
    assert [entry.name for entry in kb.documents.values()] == ["doc0.txt"]
    resumed = build(kb_dir, files, embedder=HashingEmbedder(), batch_chunks=1)
    assert [entry.name for entry in resumed.added] == ["doc1.txt", "doc2.txt"]
    assert resumed.skipped == (str(files[0]),)
    kb = KnowledgeBase.open(kb_dir, HashingEmbedder())
    assert kb.store.count() == sum(entry.chunks for entry in kb.documents.values())


def test_chunks_written_but_not_committed_are_replaced_on_resume(tmp_path, monkeypatch):
    """Killed between the store write and the catalog write: the rerun adds the batch again
    without duplicating its chunks."""
    path = tmp_path / "doc.txt"
    path.write_text(filler("delta", 8))
    kb_dir = tmp_path / "kb"

    def crash(self, entries):
        raise KeyboardInterrupt

    monkeypatch.setattr(KBClass, "commit", crash)
    with pytest.raises(KeyboardInterrupt):
        build(kb_dir, [path], embedder=HashingEmbedder())
    monkeypatch.undo()
    assert KnowledgeBase.open(kb_dir, HashingEmbedder()).documents == {}
    report = build(kb_dir, [path], embedder=HashingEmbedder())
    kb = KnowledgeBase.open(kb_dir, HashingEmbedder())
    assert kb.store.count() == report.chunks == kb.store.documents()[report.added[0].doc_id]


def test_progress_reports_counts_and_an_eta(tmp_path):
    paths = []
    for number in range(3):
        path = tmp_path / f"n{number}.md"
        path.write_text(filler(f"topic{number}", 5, seed=number))
        paths.append(path)
    seen = []
    build(tmp_path / "kb", paths, seen.append, embedder=HashingEmbedder(), batch_chunks=2)
    assert seen[-1].files_done == seen[-1].files_total == 3
    assert seen[-1].documents_added == seen[-1].committed_documents == 3
    assert any(p.eta_seconds is not None for p in seen)
    assert "3/3 files" in seen[-1].line()


def test_remove_by_name_or_hash(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(filler("alpha", 3))
    b.write_text(filler("beta", 3, seed=1))
    build(tmp_path / "kb", [a, b], embedder=HashingEmbedder())
    kb = KnowledgeBase.open(tmp_path / "kb", HashingEmbedder())
    b_id = next(e.doc_id for e in kb.documents.values() if e.name == "b.txt")
    assert kb.remove("a.txt").name == "a.txt"
    assert kb.remove(b_id[:8]).doc_id == b_id
    assert kb.documents == {} and kb.store.count() == 0
    with pytest.raises(KnowledgeBaseError, match="No document"):
        kb.remove("a.txt")


def test_folders_are_walked_for_supported_files_and_bad_ones_are_reported(tmp_path):
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "good.md").write_text(filler("alpha", 3))
    (folder / "notes.json").write_text("{}")  # not a document type: left out of a folder walk
    (folder / "broken.pdf").write_bytes(b"%PDF-1.7\nnot really a pdf")
    report = build(tmp_path / "kb", [folder], embedder=HashingEmbedder())
    assert [entry.name for entry in report.added] == ["good.md"]
    assert [path.rsplit("/", 1)[-1] for path, _ in report.failed] == ["broken.pdf"]


def test_a_file_of_another_type_or_a_missing_path_is_refused_before_anything_is_made(tmp_path):
    (tmp_path / "data.csv").write_text("a,b\n")
    with pytest.raises(UnsupportedFormatError, match=r"Nothing to add: data\.csv: not a PDF, text or Markdown file"):
        build(tmp_path / "kb", [tmp_path / "data.csv"], embedder=HashingEmbedder())
    with pytest.raises(UnsupportedFormatError, match="No such file"):
        build(tmp_path / "kb", [tmp_path / "missing.pdf"], embedder=HashingEmbedder())
    assert not (tmp_path / "kb").exists()


def test_a_base_built_with_one_model_refuses_another(sample_kb):
    kb_dir, _ = sample_kb

    other = HashingEmbedder("another")
    other.identity = dataclasses.replace(other.identity, model="another-model")
    with pytest.raises(EmbedderMismatchError, match=r"built with test-hashing \(dim 384\); you asked for another"):
        KnowledgeBase.open(kb_dir, other)
