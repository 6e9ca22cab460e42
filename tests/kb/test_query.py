"""RSE over a knowledge base: exact spans, whole-document values, calibration anchored on the base's best hit."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rse_core import RSEParams, chunk_document, load_document
from rse_core.errors import ParameterError, QueryError
from rse_core.kb import (
    DENSE_CEILING,
    DENSE_SPREAD,
    FirstStage,
    KBQueryParams,
    KnowledgeBase,
    add_paths,
    build,
    dense_calibration,
    query_kb,
    search_first_stage,
)
from tests.kb.support import ROOT, SAMPLE_EMBEDDINGS, SAMPLES, HashingEmbedder, filler


@pytest.fixture(scope="module")
def sample_kb(tmp_path_factory):
    kb_dir = tmp_path_factory.mktemp("kbq") / "samples"
    build(kb_dir, SAMPLES, embedder=HashingEmbedder())
    return KnowledgeBase.open(kb_dir, HashingEmbedder())


def _golden(per_document: int = 1):
    for path in sorted((ROOT / "sample_docs").glob("*.golden.json")):
        data = json.loads(path.read_text())
        for golden in data["queries"][:per_document]:
            yield data["document"], golden


@pytest.mark.parametrize("stage", [FirstStage.BM25, FirstStage.DENSE, FirstStage.HYBRID])
def test_segments_index_the_loaded_text_exactly(sample_kb, stage):
    texts = {path.name: load_document(path) for path in SAMPLES}
    answered = 0
    for _, golden in _golden(per_document=3):
        result = query_kb(sample_kb, golden["query"], kb_params=KBQueryParams(first_stage=stage))
        answered += bool(result.segments)
        for segment in result.segments:
            document = texts[segment.document]
            assert segment.text == document.text[segment.start_char : segment.end_char]
            assert (segment.first_page, segment.last_page) == document.pages_of_span(
                segment.start_char, segment.end_char
            )
        assert result.characters == sum(s.end_char - s.start_char for s in result.segments)
    assert answered >= 5


def test_the_bm25_answer_covers_the_golden_span(sample_kb):
    hits = 0
    for name, golden in _golden(per_document=3):
        result = query_kb(sample_kb, golden["query"], kb_params=KBQueryParams(first_stage="bm25"))
        hits += any(
            s.document == name and s.start_char < golden["end_char"] and golden["start_char"] < s.end_char
            for s in result.segments
        )
    assert hits >= 4


def test_top_k_lists_the_first_stage_best_first_and_covers_twice_rse(sample_kb):
    result = query_kb(sample_kb, "How long is the probation period?")  # dense: every chunk is a candidate
    scores = [hit.score for hit in result.top_k]
    assert scores == sorted(scores, reverse=True)
    assert len(result.top_k) >= 50
    assert sum(hit.end_char - hit.start_char for hit in result.top_k) >= 2 * result.characters
    data = result.to_dict()
    assert set(data) >= {"query", "segments", "top_k", "characters"}
    assert set(data["top_k"][0]) >= {"document", "start_char", "end_char", "score"}
    json.dumps(data)
    lexical = query_kb(sample_kb, "How long is the probation period?", kb_params=KBQueryParams(first_stage="bm25"))
    assert 0 < len(lexical.top_k) < 50  # BM25 finds only chunks sharing a word: all of them are listed


def _paragraph(words: str, fill: str, seed: int) -> str:
    """About 600 characters: ``words`` among filler words, one chunk each at the default size."""
    rng = np.random.default_rng(seed)
    filler_words = " ".join(f"{fill}{n}" for n in rng.integers(0, 30, size=50))
    return f"{words} {filler_words} {words}."


@pytest.fixture
def flaw_kb(tmp_path):
    """Document ``long.txt``: chunks 0-3 about zebra stripes, then filler. Document ``strong.txt``:
    three chunks that match the query better than any of long.txt's (cosine 0.88 against 0.82 and
    0.79: within the dense map's spread of the base's best, so long.txt's chunks keep value)."""
    long_doc = "\n\n".join(
        [_paragraph("zebra stripes " * (6 if n == 0 else 5), "savanna", n) for n in range(4)]
        + [_paragraph("", "ledger", 10 + n) for n in range(6)]
    )
    strong = "\n\n".join(_paragraph("zebra stripes " * 8, "x", 20 + n) for n in range(3))
    (tmp_path / "long.txt").write_text(long_doc)
    (tmp_path / "strong.txt").write_text(strong)
    build(tmp_path / "kb", [tmp_path / "long.txt", tmp_path / "strong.txt"], embedder=HashingEmbedder())
    kb = KnowledgeBase.open(tmp_path / "kb", HashingEmbedder())
    assert len(chunk_document(load_document(tmp_path / "long.txt"))) == 10
    return kb


def test_a_segment_may_run_past_the_documents_last_first_stage_hit(flaw_kb):
    """dsRAG sizes a document by its highest first-stage hit + 1, so long.txt would end at its one
    hit (chunk 0, the base-wide top 4 being strong.txt's 3 chunks and it). Here the selected
    document is valued over all its chunks, scored again within it, and the segment runs on."""
    kb_params = KBQueryParams(top_n=4, documents_selected=4)
    result = query_kb(flaw_kb, "zebra stripes", kb_params=kb_params)
    long_id = next(e.doc_id for e in flaw_kb.documents.values() if e.name == "long.txt")
    first_stage_hits = [hit.chunk_index for hit in result.top_k if hit.doc_id == long_id]
    assert first_stage_hits == [0]
    assert len(result.values[long_id][0]) == 10  # every chunk of the document, not max hit + 1
    segment = next(s for s in result.segments if s.doc_id == long_id)
    assert (segment.first_chunk, segment.last_chunk) == (0, 3)
    assert segment.last_chunk > max(first_stage_hits)
    # Without the second pass (dsRAG's values) the chunks after the hit are worth the penalty only.
    plain = query_kb(flaw_kb, "zebra stripes", kb_params=KBQueryParams(top_n=4, documents_selected=4, selected_top_n=0))
    assert all(s.last_chunk == 0 for s in plain.segments if s.doc_id == long_id)
    assert np.allclose(plain.values[long_id][0][1:], -RSEParams().irrelevant_chunk_penalty)


def test_adding_unrelated_documents_leaves_a_documents_values_unchanged(tmp_path):
    base = [SAMPLES[1]]  # the employee handbook
    build(tmp_path / "kb", base, embedder=HashingEmbedder())
    kb = KnowledgeBase.open(tmp_path / "kb", HashingEmbedder())
    handbook = next(iter(kb.documents))
    query = "How many days of paid vacation do new employees get?"
    before = query_kb(kb, query).values[handbook][0]
    for number, topic in enumerate(("orbit", "glacier", "violin")):
        (tmp_path / f"{topic}.txt").write_text(filler(topic, 40, seed=number))
    add_paths(kb, [tmp_path / f"{topic}.txt" for topic in ("orbit", "glacier", "violin")])
    assert len(kb.documents) == 4
    after = query_kb(kb, query).values[handbook][0]
    np.testing.assert_array_equal(before, after)


def test_the_dense_map_is_anchored_on_the_querys_best_hit_and_a_weak_best_stays_weak():
    strong = dense_calibration(0.7)  # hand computations: 0.7 -> 1, 0.5 -> 0, linear between
    assert strong(np.array([0.7, 0.6, 0.5, 0.45, 0.9])).tolist() == pytest.approx([1.0, 0.5, 0.0, 0.0, 1.0])
    weak = dense_calibration(0.3)  # a best under 0.45 counts as 0.45: 0.3 -> (0.3 - 0.25) / 0.2
    assert weak(np.array([0.3, 0.25])).tolist() == pytest.approx([0.25, 0.0])
    assert (DENSE_SPREAD, DENSE_CEILING) == (0.2, 0.45)


def test_a_document_far_below_the_bases_best_hit_is_worth_the_penalty_alone(tmp_path):
    """strong.txt scores 0.94 for the query, weak.txt's best chunk 0.58: more than the spread
    below, so weak.txt's chunks calibrate to 0, in the base-wide search and in the search within
    the selected documents alike (both use the base's anchor)."""
    weak = "\n\n".join(_paragraph("zebra stripes " * 3, "savanna", n) for n in range(4))
    strong = "\n\n".join(_paragraph("zebra stripes " * 12, "x", 20 + n) for n in range(3))
    (tmp_path / "weak.txt").write_text(weak)
    (tmp_path / "strong.txt").write_text(strong)
    build(tmp_path / "kb", [tmp_path / "weak.txt", tmp_path / "strong.txt"], embedder=HashingEmbedder())
    kb = KnowledgeBase.open(tmp_path / "kb", HashingEmbedder())
    first = search_first_stage(kb, "zebra stripes", KBQueryParams(top_n=5, documents_selected=5))
    weak_id = next(e.doc_id for e in kb.documents.values() if e.name == "weak.txt")
    anchor = max(hit.order for hit in first.hits[0])
    assert anchor == pytest.approx(0.94, abs=0.01)
    assert weak_id in first.selected
    weak_hits = [hit for hit in first.valued[0] if hit.doc_id == weak_id]
    assert len(weak_hits) == 4, "the search within the selected documents scores all of weak.txt's chunks"
    assert all(hit.score == 0.0 and hit.order < anchor - DENSE_SPREAD for hit in weak_hits)
    for hit in first.valued[0]:
        assert hit.score == pytest.approx(float(dense_calibration(anchor)(np.array([hit.order]))[0]))
    result = query_kb(kb, "zebra stripes", kb_params=KBQueryParams(top_n=5, documents_selected=5))
    assert all(segment.doc_id != weak_id for segment in result.segments)


def test_several_queries_share_one_budget_and_take_turns(sample_kb):
    # BM25 on a three-document base scores low (every word is common), so the minimum is lowered
    # for the pump question's segments to count; ranked across documents they are worth 0.3-0.44.
    params = RSEParams(overall_max_length=12, minimum_value=0.3)
    result = query_kb(
        sample_kb,
        ["How long is the probation period?", "Which pump moves the coolant?"],
        params,
        KBQueryParams(first_stage="bm25"),
    )
    assert {segment.query for segment in result.segments} == {0, 1}
    assert sum(s.last_chunk - s.first_chunk + 1 for s in result.segments) <= 12
    assert result.to_dict()["query"] == list(result.queries)


def test_chunking_parameters_must_match_the_base(sample_kb):
    with pytest.raises(Exception, match="chunked at 800"):
        query_kb(sample_kb, "pump", RSEParams(chunk_size=400), KBQueryParams(first_stage="bm25"))


def test_an_empty_query_is_refused(sample_kb):
    with pytest.raises(QueryError, match="empty"):
        query_kb(sample_kb, "   ", kb_params=KBQueryParams(first_stage="bm25"))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"first_stage": "sparse"}, "Unknown first stage 'sparse'; choose one of: dense, bm25, hybrid"),
        ({"top_n": 0}, "top_n must be a whole number of at least 1"),
        ({"documents_selected": 2.5}, "documents_selected must be a whole number"),
        ({"fusion_weight": 1.5}, "fusion_weight must be between 0 and 1"),
        ({"selected_top_n": -1}, "selected_top_n must be a whole number of at least 0"),
    ],
)
def test_query_parameters_are_validated(changes, message):
    with pytest.raises(ParameterError, match=message.replace("(", r"\(")):
        KBQueryParams(**changes)


@pytest.mark.slow
def test_the_minilm_first_stage_finds_a_golden_answer(tmp_path):
    from rse_core.kb import MiniLMEmbedder

    embedder = MiniLMEmbedder(bundled_embeddings=[SAMPLE_EMBEDDINGS])
    build(tmp_path / "kb", SAMPLES, embedder=embedder)
    kb = KnowledgeBase.open(tmp_path / "kb", embedder)
    found = 0
    for name, golden in _golden():
        result = query_kb(kb, golden["query"])
        segment = result.segments[0]
        text = load_document(ROOT / "sample_docs" / segment.document).text
        assert segment.text == text[segment.start_char : segment.end_char]
        found += segment.document == name and segment.start_char <= golden["start_char"] < segment.end_char
    assert found >= 2


def test_ranks_are_taken_across_the_selected_documents_as_dsrag_does(flaw_kb):
    """strong.txt's three chunks outrank long.txt's best, so across documents that chunk is ranked
    at least 3 and decays; within its own document it is ranked 0 and keeps its full weight."""
    long_id = next(e.doc_id for e in flaw_kb.documents.values() if e.name == "long.txt")
    params = RSEParams(decay_rate=2.0)
    across = query_kb(flaw_kb, "zebra stripes", params, KBQueryParams(top_n=4))
    within = query_kb(flaw_kb, "zebra stripes", params, KBQueryParams(top_n=4, rank_across_documents=False))
    penalty = params.irrelevant_chunk_penalty
    best_across, best_within = across.values[long_id][0][0] + penalty, within.values[long_id][0][0] + penalty
    assert best_within > 0
    assert best_across <= best_within * np.exp(-3 / 2.0) + 1e-12


def test_the_rank_switch_is_validated():
    with pytest.raises(ParameterError, match="rank_across_documents must be true or false"):
        KBQueryParams(rank_across_documents="yes")


def test_a_query_within_named_documents_searches_and_returns_only_them(sample_kb):
    names = sorted(entry.name for entry in sample_kb.documents.values())
    question = "How long is the probation period?"
    whole = query_kb(sample_kb, question)
    assert len({hit.document for hit in whole.top_k}) > 1  # the whole base: hits in several documents
    for name in names:
        result = query_kb(sample_kb, question, within=[name])
        assert result.selected_names == (name,)
        assert {segment.document for segment in result.segments} <= {name}
        assert {hit.document for hit in result.top_k} == {name}
        assert result.searched_within == (name,) and result.to_dict()["searched_within"] == [name]
    assert whole.searched_within == ()
    pair = query_kb(sample_kb, question, within=names[:2], kb_params=KBQueryParams(first_stage="bm25"))
    assert set(pair.selected_names) <= set(names[:2])
    assert pair.top_k and {hit.document for hit in pair.top_k} <= set(names[:2])


def test_a_document_to_search_within_must_be_in_the_base(sample_kb):
    from rse_core.kb import KnowledgeBaseError

    with pytest.raises(KnowledgeBaseError, match=r"No document 'annual_report_2019\.pdf'"):
        query_kb(sample_kb, "What was the revenue?", within=["annual_report_2019.pdf"])
    with pytest.raises(ParameterError, match="Give at least one document"):
        query_kb(sample_kb, "What was the revenue?", within=[])


def test_a_query_that_names_a_document_is_searched_within_it_when_asked(sample_kb):
    question = "What does the employee handbook say about the probation period for new employees?"
    named = KBQueryParams(named_documents=True)
    result = query_kb(sample_kb, question, kb_params=named)
    assert result.named_documents == ("employee_handbook.pdf",) and not result.notes
    assert result.to_dict()["named_documents"] == ["employee_handbook.pdf"]
    assert result.selected_names == ("employee_handbook.pdf",)
    assert result.top_k and {hit.document for hit in result.top_k} == {"employee_handbook.pdf"}
    assert result.searched_within == ()  # the caller named no document; the query did
    off = query_kb(sample_kb, question)
    assert off.named_documents == () and len({hit.document for hit in off.top_k}) > 1
    unnamed = query_kb(sample_kb, "How long is the probation period?", kb_params=named)
    assert unnamed.named_documents == () and len({hit.document for hit in unnamed.top_k}) > 1
    # Named documents are looked for among those searched within: none there, so within decides.
    inside = query_kb(sample_kb, question, kb_params=named, within=["tech_report.pdf"])
    assert inside.named_documents == () and inside.selected_names == ("tech_report.pdf",)
    reports = search_first_stage(sample_kb, "Which report covers revenue?", named)
    assert sorted(sample_kb.documents[d].name for d in reports.named) == ["annual_report.pdf", "tech_report.pdf"]
    assert reports.searched == reports.named


def test_a_name_the_content_disagrees_with_is_set_aside_with_a_note(sample_kb):
    """The handbook is named by one word, but the coolant pump is in the tech report. Named by two
    (``employee handbook``), the name stands whatever the content says."""
    question = "What does the handbook say about the coolant pump?"
    named = KBQueryParams(named_documents=True)
    result = query_kb(sample_kb, question, kb_params=named)
    assert result.named_documents == ()
    assert result.selected_names == query_kb(sample_kb, question).selected_names  # the whole base, as without
    [note] = result.notes
    assert note.startswith("The question names employee_handbook.pdf by one word, but the best chunk there scores 0.")
    assert note.endswith("(below 0.75 of it), so the name was set aside.")
    firm = query_kb(sample_kb, "What does the employee handbook say about the coolant pump?", kb_params=named)
    assert firm.named_documents == ("employee_handbook.pdf",) and not firm.notes


def test_named_documents_is_part_of_the_first_stage_key():
    assert KBQueryParams(named_documents=True).search_key != KBQueryParams().search_key
    with pytest.raises(ParameterError, match="named_documents must be true or false"):
        KBQueryParams(named_documents="yes")


def test_a_note_names_at_most_three_files(tmp_path):
    for year in range(2015, 2020):
        (tmp_path / f"minutes_{year}.txt").write_text(filler("ledger", 2, seed=year))
    (tmp_path / "pumps.txt").write_text("The coolant pump moves glycol through the cold plates.\n\n" * 3)
    build(tmp_path / "kb", sorted(tmp_path.glob("*.txt")), embedder=HashingEmbedder())
    kb = KnowledgeBase.open(tmp_path / "kb", HashingEmbedder())
    named = KBQueryParams(named_documents=True)
    [note] = query_kb(kb, "What do the minutes say about the coolant pump?", kb_params=named).notes
    shown = "minutes_2015.txt, minutes_2016.txt, minutes_2017.txt and 2 more"
    assert note.startswith(f"The question names {shown} by one word")


def test_the_selection_says_whether_named_documents_narrow_it():
    assert KBQueryParams(documents_selected=5).selection == "5 documents selected"
    assert KBQueryParams(named_documents=True).selection == "10 documents selected among those the question names"
