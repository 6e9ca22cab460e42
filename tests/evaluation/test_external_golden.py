"""The external golden set: its spans still match the third-party documents, and paths stay safe."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from rse_core import load_document
from rse_core.evaluation.golden import (
    QUERY_KINDS,
    GoldenSetError,
    find_phrase_all,
    load_golden_set,
    locate_region,
    parse_golden_json,
)
from rse_core.evaluation.sets import (
    EXTERNAL_DIR,
    CorpusMissingError,
    SetName,
    corpus_dir,
    corpus_missing_message,
    golden_paths,
    golden_sets,
)

EXTERNAL_PATHS = golden_paths(SetName.EXTERNAL)
needs_corpus = pytest.mark.skipif(
    corpus_missing_message() is not None, reason=corpus_missing_message() or "the corpus is there"
)


def test_the_external_set_has_at_least_40_queries_over_6_documents_of_all_kinds():
    sets = [load_golden_set(path) for path in EXTERNAL_PATHS]
    assert len(sets) >= 6
    queries = [query for golden in sets for query in golden.queries]
    assert len(queries) >= 40
    assert set(Counter(query.kind for query in queries)) == set(QUERY_KINDS)
    ids = [query.id for query in queries]
    assert len(ids) == len(set(ids)), "query ids are unique across the whole set"


@pytest.mark.parametrize("path", EXTERNAL_PATHS, ids=lambda p: p.stem)
def test_documents_are_named_by_file_name_and_never_copied(path):
    golden = load_golden_set(path)
    assert golden.document == golden.document_name, "a bare file name, looked up in the corpus folder"
    assert not list(EXTERNAL_DIR.parent.rglob(golden.document_name)), "the document itself is never in the project"


def test_external_documents_resolve_in_the_corpus_folder_given(tmp_path, monkeypatch):
    monkeypatch.setenv("RSE_CORPUS_DIR", str(tmp_path))
    assert corpus_dir() == tmp_path
    assert {golden.document_path.parent for golden in golden_sets("external")} == {tmp_path}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert {golden.document_path.parent for golden in golden_sets("external", elsewhere)} == {elsewhere}


def test_without_a_corpus_folder_the_external_set_says_which_variable_to_set(monkeypatch):
    monkeypatch.delenv("RSE_CORPUS_DIR")
    assert corpus_dir() is None
    with pytest.raises(CorpusMissingError, match="set RSE_CORPUS_DIR"):
        golden_sets("external")


@needs_corpus
@pytest.mark.parametrize("path", EXTERNAL_PATHS, ids=lambda p: p.stem)
def test_offsets_match_the_phrases_in_the_extracted_text(path):
    golden = load_golden_set(path)
    text = load_document(corpus_dir() / golden.document_name).text
    assert golden.check_offsets(text) == []
    for query in golden.queries:
        assert len(query.first_phrase.split()) >= 5 and len(query.last_phrase.split()) >= 5, query.id
        assert len(find_phrase_all(text, query.first_phrase)) == 1, f"{query.id}: first phrase not unique"
        assert locate_region(text, query.first_phrase, query.last_phrase) == query.span, query.id


@needs_corpus
def test_golden_sets_loads_every_external_set():
    assert [golden.document_name for golden in golden_sets("external")] == [
        load_golden_set(path).document_name for path in EXTERNAL_PATHS
    ]


def test_a_bundled_external_set_with_folders_in_its_document_stays_in_the_corpus(tmp_path, monkeypatch):
    import rse_core.evaluation.sets as eval_sets

    rogue = tmp_path / "external"
    rogue.mkdir()
    data = json.loads(EXTERNAL_PATHS[0].read_text("utf-8"))
    data["document"] = "../../../../../../../../etc/passwd"
    (rogue / "rogue.golden.json").write_text(json.dumps(data), "utf-8")
    monkeypatch.setattr(eval_sets, "EXTERNAL_DIR", rogue)
    (golden,) = eval_sets.golden_sets("external", tmp_path)
    assert golden.document_path == tmp_path / "passwd"


def test_a_bundled_sample_set_pointing_outside_the_samples_folder_is_refused(tmp_path, monkeypatch):
    import rse_core.evaluation.sets as eval_sets

    rogue = tmp_path / "samples"
    rogue.mkdir()
    data = json.loads((eval_sets.SAMPLE_DIR / "tech_report.golden.json").read_text("utf-8"))
    data["document"] = "../../../../../../../../etc/passwd"
    (rogue / "rogue.golden.json").write_text(json.dumps(data), "utf-8")
    monkeypatch.setattr(eval_sets, "SAMPLE_DIR", rogue)
    with pytest.raises(GoldenSetError, match="outside the samples folder"):
        eval_sets.golden_sets("samples")


def test_an_uploaded_golden_set_never_resolves_a_path():
    uploaded = parse_golden_json(EXTERNAL_PATHS[0].read_bytes(), "upload.json")
    assert uploaded.document_name.endswith(".pdf")
    with pytest.raises(GoldenSetError, match="matched by file name"):
        _ = uploaded.document_path


def test_unknown_set_name_lists_the_choices():
    with pytest.raises(Exception, match="samples, external, financebench"):
        golden_paths("nope")
