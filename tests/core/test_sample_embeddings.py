"""The embeddings shipped for the sample documents are there and still right."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from rse_core import chunk_document, get_scorer, load_document
from rse_core.scoring.embedding_cache import EmbeddingCache
from tests.support.apptest_support import ROOT

sys.path.insert(0, str(ROOT / "sample_docs"))
import embed


def test_every_sample_has_bundled_embeddings_for_its_current_chunks():
    missing = [path.name for path in embed.expected_files() if not path.exists()]
    assert missing == [], "run python sample_docs/embed.py"
    assert {path.name for path in embed.EMBEDDINGS.glob("*.npy")} == {p.name for p in embed.expected_files()}


def test_bundled_folder_is_read_only_and_used_after_the_cache(tmp_path):
    path, chunks = next(iter(embed.expected_files().items()))
    cache = EmbeddingCache(tmp_path, read_only=(embed.EMBEDDINGS,))
    array = cache.get(path.stem, len(chunks))
    assert array is not None and array.shape == (len(chunks), 384)
    assert EmbeddingCache(tmp_path, read_only=(embed.EMBEDDINGS,)).get(path.stem, len(chunks) + 1) is None
    assert path.exists()  # a wrong-shaped request never deletes a bundled file
    assert not list(tmp_path.rglob("*.npy"))  # nothing copied into the user's cache


@pytest.mark.slow
def test_bundled_embeddings_equal_a_fresh_computation(tmp_path):
    document = load_document(ROOT / "sample_docs" / "employee_handbook.pdf")
    chunks = chunk_document(document)
    fresh = get_scorer("minilm", disk_cache=False).embed_chunks(chunks)
    bundled = get_scorer("minilm", disk_cache=False, bundled_embeddings=(embed.EMBEDDINGS,))
    bundled._load = lambda: pytest.fail("the bundled embeddings should make the model unnecessary")
    assert np.allclose(bundled.embed_chunks(chunks), fresh, atol=1e-4)


def test_shipped_text_equals_what_pymupdf_extracts_today():
    # The app opens samples from sample_docs/text/ (no PyMuPDF import); it must be the same document.
    from app_ui.samples import load_sample_document, text_path

    for pdf in sorted((ROOT / "sample_docs").glob("*.pdf")):
        assert text_path(pdf).exists(), "run python sample_docs/embed.py"
        shipped = load_sample_document(pdf)
        assert shipped == load_document(pdf), f"{text_path(pdf).name} is stale: run python sample_docs/embed.py"


def test_shipped_text_is_ignored_when_the_pdf_changes(tmp_path):
    from app_ui import samples

    pdf = ROOT / "sample_docs" / "employee_handbook.pdf"
    changed = tmp_path / pdf.name
    changed.write_bytes(pdf.read_bytes() + b"\n%")  # other bytes, other hash
    document = samples.load_sample_document(changed)
    assert document == load_document(changed)
    assert document.doc_id != load_document(pdf).doc_id


def test_every_sample_opens_on_its_default_query_without_the_model():
    from app_ui.samples import list_samples, load_sample_document

    scorer = get_scorer("minilm", disk_cache=False, bundled_embeddings=(embed.EMBEDDINGS,))
    scorer._load = lambda *args: pytest.fail("the first screen should need no model")
    for sample in list_samples().values():
        chunks = chunk_document(load_sample_document(sample.path))
        assert scorer.score(sample.showcase_query, chunks).shape == (len(chunks),)
    assert not scorer.model_loaded


@pytest.mark.slow
def test_bundled_query_vectors_equal_a_fresh_computation():
    from app_ui.samples import list_samples

    fresh = get_scorer("minilm", disk_cache=False)
    bundled = get_scorer("minilm", disk_cache=False, bundled_embeddings=(embed.EMBEDDINGS,))
    for sample in list_samples().values():
        expected = fresh._embed_query(sample.showcase_query)
        assert np.abs(bundled._embed_query(sample.showcase_query) - expected).max() < 1e-6


def test_pdf_text_is_the_same_without_pymupdfs_onnxruntime_add_ons():
    # rse_core imports PyMuPDF without pymupdf.layout / pymupdf4llm (they load onnxruntime and its
    # telemetry); text extraction must not change because of it.
    import subprocess

    code = (
        "import hashlib, sys\n"
        "{prefix}"
        "from rse_core import load_document\n"
        "text = load_document('sample_docs/tech_report.pdf').text\n"
        "print('onnxruntime' in sys.modules, hashlib.sha256(text.encode()).hexdigest())\n"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", code.format(prefix=prefix)], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.split()
        for prefix in ("", "import pymupdf\n")  # ours, then with the add-ons loaded first
    ]
    assert runs[0][0] == "False"
    assert runs[0][1] == runs[1][1]


def test_chunks_embedded_longest_first_come_back_in_their_own_order():
    """Batches are cut from texts sorted by length (less padding); each row must still be its own
    chunk's vector, as if embedded alone."""
    from rse_core.chunking import Chunk

    texts = ["pump", "The coolant pump moves water through the reactor loop. " * 12, "valve", "A gasket. " * 5]
    chunks = [Chunk(doc_id="d", index=n, start=0, end=len(text), text=text) for n, text in enumerate(texts)]
    scorer = get_scorer("minilm", disk_cache=False, batch_size=2)
    together = scorer.embed_chunks(chunks)
    alone = np.vstack([get_scorer("minilm", disk_cache=False).embed_chunks([chunk]) for chunk in chunks])
    assert np.allclose(together, alone, atol=1e-5)
