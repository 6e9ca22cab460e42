"""A knowledge base on Milvus (a milvus-lite server) answers like one on LanceDB."""

from __future__ import annotations

import pytest

from rse_core.kb import KBQueryParams, KnowledgeBase, build, query_kb
from tests.kb.support import SAMPLES, HashingEmbedder, as_default_embedder


def test_a_milvus_base_gives_the_same_segments_as_a_lancedb_base(tmp_path, milvus_uri):
    store = {"kind": "milvus", "uri": milvus_uri, "collection": "kb_samples"}
    build(tmp_path / "milvus_kb", SAMPLES, embedder=HashingEmbedder(), store=store)
    build(tmp_path / "lance_kb", SAMPLES, embedder=HashingEmbedder())
    on_milvus = KnowledgeBase.open(tmp_path / "milvus_kb", HashingEmbedder())
    on_lance = KnowledgeBase.open(tmp_path / "lance_kb", HashingEmbedder())
    assert on_milvus.catalog.store["kind"] == "milvus"
    assert on_milvus.store.documents() == on_lance.store.documents()
    for query in ("How long is the probation period for new hires?", "Which pump moves the coolant?"):
        milvus_result = query_kb(on_milvus, query, kb_params=KBQueryParams())
        lance_result = query_kb(on_lance, query, kb_params=KBQueryParams())
        assert [(s.doc_id, s.first_chunk, s.last_chunk, s.text) for s in milvus_result.segments] == [
            (s.doc_id, s.first_chunk, s.last_chunk, s.text) for s in lance_result.segments
        ]
        # The engines' float cosines can swap near-tied chunks' ranks, which moves a value's decay a little.
        expected = [s.score for s in lance_result.segments]
        assert [s.score for s in milvus_result.segments] == pytest.approx(expected, abs=0.02)
    removed = on_milvus.remove("tech_report.pdf")
    assert removed.doc_id not in on_milvus.store.documents()


def test_the_cli_builds_a_base_on_milvus(tmp_path, milvus_uri, monkeypatch, capsys):
    import json

    from rse_core.cli.kb import main

    as_default_embedder(monkeypatch)
    kb_dir = tmp_path / "kb"
    args = ["build", str(kb_dir), str(SAMPLES[1]), "--milvus-uri", milvus_uri, "--collection", "kb_cli", "--quiet"]
    assert main(args) == 0
    assert main(["info", str(kb_dir), "--json"]) == 0
    capsys.readouterr()
    assert (
        main(
            [
                "query",
                str(kb_dir),
                "-q",
                "How long is the probation period for new hires?",
                "--json",
                "--first-stage",
                "bm25",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["segments"] and data["segments"][0]["document"] == "employee_handbook.pdf"
    assert main(["build", str(kb_dir), str(SAMPLES[1]), "--quiet"]) == 0  # adds to the base's own store
    assert "Added 0 document(s)" in capsys.readouterr().out
    other = ["build", str(kb_dir), str(SAMPLES[1]), "--milvus-uri", milvus_uri, "--collection", "elsewhere"]
    assert main(other) == 2
    assert "keeps its chunks in" in capsys.readouterr().err
