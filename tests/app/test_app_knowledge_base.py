"""The Knowledge base page through AppTest: the bundled base, cached first stage, operator folders.

The bundled base is built once for this module into a temporary ``RSE_CACHE_DIR`` (the samples'
MiniLM vectors ship with them; loading the model is most of the build's time).
"""

from __future__ import annotations

import html

import numpy as np
import pytest

from app_ui import keys
from app_ui import knowledge_bases as kbs
from app_ui import scorers as app_scorers
from app_ui.page_state import knowledge_base as knowledge_base_state
from app_ui.samples import list_samples, load_sample_document
from rse_core import Calibration, RSEParams, preset
from rse_core.documents.reflow import reflow
from rse_core.kb import KnowledgeBase, build, rse_from_first_stage
from tests.kb.support import SAMPLES, HashingEmbedder
from tests.support.apptest_support import (
    all_text,
    chart_specs,
    html_text,
    messages,
    new_app,
    no_problems,
    open_page,
    own_cache,
    rendered,
)

K = knowledge_base_state.Keys


@pytest.fixture(scope="module", autouse=True)
def cache_dir(tmp_path_factory):
    """A cache of this module's own, so the bundled base is built here (once)."""
    with own_cache(tmp_path_factory.mktemp("rse_cache"), **{kbs.KB_DIRS_ENV: None}) as folder:
        yield folder


def _page(**query_params: str):
    at = open_page(new_app(**query_params).run(), "knowledge-base")
    no_problems(at)
    return at


def _cached_first_stages(at):
    return list(at.session_state[K.FIRST_STAGE_CACHE].values())


def test_the_page_answers_on_the_bundled_base_with_the_documents_exact_text(cache_dir):
    at = _page()
    assert at.selectbox(key=K.SOURCE).value == kbs.BUNDLED
    assert (cache_dir / "kb" / "samples" / "kb.json").is_file()
    [first] = _cached_first_stages(at)
    kb = KnowledgeBase.open(kbs.bundled_dir())
    result = rse_from_first_stage(kb, first, kbs.rse_params_for(kbs.open_bundled(), _page_params(at)))
    assert result.segments, "the showcase question should find segments"
    by_name = {sample.path.name: load_sample_document(sample.path) for sample in list_samples().values()}
    shown = html_text(at)
    for segment in result.segments:
        assert segment.text == by_name[segment.document].text[segment.start_char : segment.end_char]
        assert html.escape(reflow(segment.text)) in shown
    assert len(chart_specs(at)) == len(result.selected_documents)
    names = list(at.dataframe[0].value["Document"])
    assert set(kb.documents[doc_id].name for doc_id in result.selected_documents) <= set(names)
    assert "Top-k beside" in [header.value for header in at.subheader]


def _page_params(at) -> RSEParams:
    """The RSE parameters the page's preset and sliders hold."""
    values = {name: at.slider(key=K.param(name)).value for name in K.PARAM_FIELDS}
    name = at.selectbox(key=K.PRESET).value
    return (preset(name) if name != "custom" else RSEParams()).with_changes(**values)


def test_an_rse_slider_reuses_the_first_stage_and_a_first_stage_knob_does_not(monkeypatch):
    calls = []
    original = kbs.search_first_stage
    monkeypatch.setattr(kbs, "search_first_stage", lambda *args, **kw: calls.append(args[1]) or original(*args, **kw))
    at = _page()
    assert len(calls) == 1
    for value in (0.3, 0.1):
        at.slider(key=K.param("irrelevant_chunk_penalty")).set_value(value).run()
        no_problems(at)
    at.slider(key=K.param("max_length")).set_value(5).run()
    assert len(calls) == 1
    assert [metric.value for metric in at.metric if metric.label == "First stage"] == ["cached"]
    assert at.selectbox(key=K.PRESET).value == "custom"
    at.slider(key=K.param("top_n")).set_value(100).run()
    no_problems(at)
    assert len(calls) == 2


def test_ranking_within_documents_is_a_switch_that_reuses_the_search(monkeypatch):
    calls = []
    original = kbs.search_first_stage
    monkeypatch.setattr(kbs, "search_first_stage", lambda *args, **kw: calls.append(args[1]) or original(*args, **kw))
    at = _page()
    assert at.toggle(key=K.RANK_ACROSS).value is True  # dsRAG's way by default
    at.toggle(key=K.RANK_ACROSS).set_value(False).run()
    no_problems(at)
    assert len(calls) == 1
    assert [metric.value for metric in at.metric if metric.label == "First stage"] == ["cached"]
    [first] = _cached_first_stages(at)
    assert first.kb_params.rank_across_documents is True  # the cached search is shared by both


def test_search_within_one_document_answers_from_it_alone_and_a_switch_of_base_clears_it(tmp_path, monkeypatch):
    at = _page()
    within = at.multiselect(key=K.WITHIN)
    assert within.value == [] and within.placeholder == "the whole base"
    kb = kbs.open_bundled().kb
    [whole] = _cached_first_stages(at)
    assert len({hit.doc_id for hit in whole.hits[0]}) > 1 and whole.within == ()
    other = next(doc_id for doc_id in kb.documents if doc_id not in whole.selected)  # one the base-wide search left
    within.set_value([other]).run()
    no_problems(at)
    first = next(first for first in _cached_first_stages(at) if first.within)
    assert first.within == (other,) and first.selected == (other,)
    assert {hit.doc_id for hit in first.hits[0]} == {other}
    assert "searched within 1 document of 3" in all_text(at)
    assert "best chunks over the documents searched within" in all_text(at)
    assert set(at.dataframe[0].value["Document"]) == {kb.documents[other].name}
    # Another base: the choice names a document it does not hold, so it is dropped before the list is drawn.
    folder = tmp_path / "team_docs"
    build(folder, [path for path in SAMPLES if path.name != kb.documents[other].name][:1], embedder=HashingEmbedder())
    monkeypatch.setenv(kbs.KB_DIRS_ENV, str(folder))
    at.run()  # the list of bases now offers the folder
    at.selectbox(key=K.FIRST_STAGE).set_value("bm25")
    at.selectbox(key=K.SOURCE).set_value("folder:team_docs").run()
    no_problems(at)
    assert at.multiselect(key=K.WITHIN).value == []
    assert "searched within" not in all_text(at)


def test_only_documents_the_question_names_is_a_first_stage_switch():
    at = _page()
    named = at.toggle(key=K.NAMED)
    assert named.value is False
    at.text_input(key=K.QUERY).set_value("What does the employee handbook say about probation?")
    named.set_value(True).run()
    no_problems(at)
    kb = kbs.open_bundled().kb
    [handbook] = [doc_id for doc_id, entry in kb.documents.items() if entry.name == "employee_handbook.pdf"]
    first = next(first for first in _cached_first_stages(at) if first.kb_params.named_documents)
    assert first.named == (handbook,) and first.selected == (handbook,)
    assert "searched only the 1 document of 3 the question names" in all_text(at)
    assert "best chunks over the documents searched within" in all_text(at)
    assert set(at.dataframe[0].value["Document"]) == {"employee_handbook.pdf"}
    at.text_input(key=K.QUERY).set_value("How long is the probation period?").run()  # names no file
    no_problems(at)
    assert "searched" not in all_text(at)
    # One everyday word names the two reports; the handbook answers, so the name is set aside, and said so.
    at.text_input(key=K.QUERY).set_value("What is the deadline for handing in an expense report?").run()
    no_problems(at)
    assert "searched" not in all_text(at)
    assert any("so the name was set aside" in info.value for info in at.info)


def test_operator_folders_are_offered_by_name_only(tmp_path, monkeypatch):
    folder = tmp_path / "hidden_server_path" / "team_docs"
    build(folder, SAMPLES[:1], embedder=HashingEmbedder())
    monkeypatch.setenv(kbs.KB_DIRS_ENV, str(folder))
    at = _page()
    box = at.selectbox(key=K.SOURCE)
    assert "team_docs (server folder)" in box.options
    assert not any("hidden_server_path" in option for option in box.options)
    at.selectbox(key=K.FIRST_STAGE).set_value("bm25")
    box.set_value("folder:team_docs").run()
    no_problems(at)
    assert "hidden_server_path" not in all_text(at)
    assert at.metric[0].label == "Segments"


def test_a_path_in_the_url_is_ignored(tmp_path):
    at = _page(kb=str(tmp_path), kb_source=str(tmp_path), path="/etc")
    assert at.selectbox(key=K.SOURCE).value == kbs.BUNDLED
    assert all(str(tmp_path) not in option for option in at.selectbox(key=K.SOURCE).options)
    assert list(kbs.operator_folders()) == []


def test_open_in_explore_loads_the_sample_and_the_question():
    at = _page()
    [first] = _cached_first_stages(at)
    doc_id = first.selected[0]
    slug = kbs.sample_ids()[doc_id]
    at.button(key=K.open_explore(doc_id)).click().run()
    no_problems(at)
    assert at.session_state[keys.SAMPLES] == [slug]
    assert at.session_state[keys.QUERY] == first.queries[0]
    assert at.title[0].value == "Explore"


def test_a_session_base_keeps_to_its_limits_and_is_removed_with_the_session():
    import gc

    base = kbs.SessionBase(HashingEmbedder())
    folder = base.folder
    limits = kbs.UploadLimits(files=2, bytes=5_000)
    text = b"The pump moves coolant through the loop.\n" * 20
    refused = base.add(
        [("a.txt", text), ("../../etc/b.md", text + b"More."), ("c.txt", text), ("d.exe", b"x")], limits, None
    )
    assert sorted(entry.name for entry in base.kb.documents.values()) == ["a.txt", "b.md"]
    assert (folder / "files" / "b.md").is_file()  # the name's folders are dropped
    assert any(line.startswith("c.txt: ") for line in refused) and any(line.startswith("d.exe: ") for line in refused)
    assert base.add([("e.txt", b"y" * 4_000)], kbs.UploadLimits(files=9, bytes=5_000), None) == [
        "e.txt: this session's base holds at most 5,000 bytes"
    ]
    del base
    gc.collect()
    assert not folder.exists()


def test_the_page_answers_on_this_sessions_base():
    at = _page()
    session = kbs.SessionBase(HashingEmbedder())
    session.add(
        [("pump.txt", b"The pump moves coolant through the cooling loop.\n" * 30)], kbs.UploadLimits(9, 10**6), None
    )
    at.session_state[K.SESSION_BASE] = session
    at.run()
    at.selectbox(key=K.FIRST_STAGE).set_value("bm25")
    at.text_input(key=K.QUERY).set_value("How does the pump move coolant?")
    at.selectbox(key=K.SOURCE).set_value(kbs.UPLOADED).run()
    no_problems(at)
    assert "Built from my uploads" in at.selectbox(key=K.SOURCE).options
    assert len(chart_specs(at)) == 1  # its one document was selected
    assert "pump.txt" in html_text(at)
    assert not [button for button in at.button if button.key.startswith("kb_open_explore_")]  # not a sample


def test_a_broken_operator_folder_is_reported_without_its_path(tmp_path, monkeypatch):
    broken = tmp_path / "secret_mount" / "not_a_base"
    broken.mkdir(parents=True)
    monkeypatch.setenv(kbs.KB_DIRS_ENV, str(broken))
    at = _page()
    at.selectbox(key=K.SOURCE).set_value("folder:not_a_base").run()
    assert not at.exception
    assert [error.value for error in at.error] and "secret_mount" not in all_text(at)


def test_a_preset_sets_the_sliders_and_a_second_question_is_drawn_on_the_strips():
    at = _page()
    at.selectbox(key=K.PRESET).set_value("balanced").run()
    no_problems(at)
    balanced = preset("balanced")
    for name in K.PARAM_FIELDS:
        assert at.slider(key=K.param(name)).value == getattr(balanced, name)
    assert "chunk_length_adjustment=True" in at.code[0].value  # the preset's other fields apply too
    at.text_input(key=K.QUERY_2).set_value("How many vacation days do employees get?").run()
    no_problems(at)
    assert any(trace.get("name") == "Query 2" for spec in chart_specs(at) for trace in spec["data"])


LONG_NAMES = ("a" * 300 + ".txt", "é" * 130 + ".txt")  # 304 characters; 264 bytes of UTF-8


def test_uploads_with_overlong_names_build_and_are_shown_by_their_names_cut_to_display_length():
    """A name longer than a file system takes is stored under a short safe name before anything
    is recorded; the page lists the file by the name the user gave, cut, and names no server path."""
    at = _page()
    at.selectbox(key=K.SOURCE).set_value(kbs.UPLOADED).run()
    pumps = b"The pump moves coolant through the cooling loop.\n" * 30
    valves = b"The valve opens when the pressure rises above the set point.\n" * 30
    files = [(name, data, "text/plain") for name, data in zip(LONG_NAMES, (pumps, valves), strict=True)]
    at.file_uploader(key=K.UPLOADS).set_value(files).run()
    at.button(key=K.BUILD).click().run()
    no_problems(at)
    assert not at.warning, [warning.value for warning in at.warning]
    session = at.session_state[K.SESSION_BASE]
    assert len(session.kb.documents) == 2
    stored = sorted(path.name for path in (session.folder / "files").iterdir())
    assert all(len(name.encode("utf-8")) <= 100 and name.endswith(".txt") for name in stored)
    listed = sorted(
        rendered(markdown.value).split(":")[0] for markdown in at.markdown if markdown.value.startswith("- ")
    )
    assert listed == sorted(f"- {name[:79]}…" for name in LONG_NAMES)  # "Documents in this base"
    assert str(session.folder) not in all_text(at) and "rse-kb-session" not in all_text(at)


def test_a_session_base_tells_apart_files_of_one_name_and_names_no_server_path():
    base = kbs.SessionBase(HashingEmbedder())
    limits = kbs.UploadLimits(files=9, bytes=10**6)
    first, second = (f"Notes on the {part}: it moves coolant.\n".encode() * 20 for part in ("pump", "valve"))
    assert base.add([("notes.md", first), ("notes.md", second), ("notes.md", first)], limits, None) == [
        "notes.md: already added (the same contents as notes.md)"
    ]
    assert len(base.kb.documents) == 2 and set(base.shown_names.values()) == {"notes.md"}
    broken = ("é" * 130 + ".pdf", b"%PDF-1.4 not really a PDF")
    refused = base.add([broken], limits, None)
    assert len(refused) == 1 and refused[0].startswith("é" * 79 + "…: ")
    assert str(base.folder) not in refused[0] and "rse-kb-session" not in refused[0]
    assert base.add([broken], limits, None) == refused  # refused for itself again, not as "already added"
    assert len(base.files) == 2
    base.discard()


def test_the_page_says_why_a_segment_is_worth_another_score_than_in_explore_and_the_reasons_hold():
    """The note's claims, measured on the page's own search: the dense calibration is anchored on the
    query's best hit (best -> 1, 0.2 below -> 0), and with one selected document the ranks are Explore's."""
    import dataclasses

    import numpy as np

    from rse_core.kb.calibration import dense_calibration
    from rse_core.kb.query import _timed_values

    at = _page()
    note = "Why the same segment is worth a different score in Explore"
    [caption] = [c.value for c in at.caption if note in c.value]
    assert "docs/knowledge_base.md" in caption and "own quantiles" in caption
    [first] = _cached_first_stages(at)
    hits = first.valued[0]
    cosines = np.array([hit.order for hit in hits])
    np.testing.assert_allclose([hit.score for hit in hits], dense_calibration(cosines.max())(cosines), atol=1e-9)
    kb = KnowledgeBase.open(kbs.bundled_dir())
    params = kbs.rse_params_for(kbs.open_bundled(), _page_params(at))
    within = first.reused_with(dataclasses.replace(first.kb_params, rank_across_documents=False))
    across_values = _timed_values(kb, first, params)[0].values[0]
    within_values = _timed_values(kb, within, params)[0].values[0]
    if len(first.selected) == 1:  # the showcase question: ranks as in Explore, and the note says so
        np.testing.assert_allclose(across_values, within_values)
        assert "counts within the document, as in Explore" in caption
    else:
        assert np.all(across_values <= within_values + 1e-12)
        assert f"all {len(first.selected)} selected documents" in caption


def test_the_note_names_the_rank_across_documents_only_when_it_acts():
    from views.knowledge_base import why_values_differ

    assert "all 3 selected documents" in why_values_differ(True, 3)
    assert "as in Explore" in why_values_differ(False, 3) and "as in Explore" in why_values_differ(True, 1)


class LengthReranker:
    """A cross-encoder stand-in: longer chunks are more relevant (no model to load)."""

    name = "cross-encoder"
    model = "tiny-ce"
    calibration = Calibration()

    def score(self, query, chunks, progress=None):
        return np.array([min(len(chunk.text) / 2000, 1.0) for chunk in chunks])


def _caption_with(at, words: str) -> str:
    found = [text for text in messages(at, "caption") if words in text]
    assert found, messages(at, "caption")
    return found[0]


def test_the_rerank_choice_offers_the_operators_rerankers_and_the_page_says_where_values_come_from(
    monkeypatch, tmp_path
):
    folder = tmp_path / "server" / "tiny-ce"
    folder.mkdir(parents=True)
    monkeypatch.setenv("RSE_CROSS_ENCODER_MODELS", str(folder))
    monkeypatch.delenv("CO_API_KEY", raising=False)
    asked, original = [], app_scorers.scorer_for

    def fake_scorer_for(name, options, key_digest=""):
        if name != "cross-encoder":
            return original(name, options, key_digest)
        asked.append(options)
        return LengthReranker()

    monkeypatch.setattr(app_scorers, "scorer_for", fake_scorer_for)
    at = _page()
    rerank = at.selectbox(key=kbs.RERANK_KEY)
    assert rerank.options == ["none (the first stage's values)", "tiny-ce"]  # no Cohere without a key
    first = _caption_with(at, "Values from")
    assert "Values from the dense first stage" in first
    assert "built with all-MiniLM-L6-v2 (dim 384)" in first
    searches, charts = len(at.session_state[K.FIRST_STAGE_CACHE]), chart_specs(at)

    rerank.set_value(kbs.CROSS_ENCODER_PREFIX + "tiny-ce").run()
    no_problems(at)
    assert asked == [(("model", "tiny-ce"),)]
    line = _caption_with(at, "Values from")
    assert "Values from the rerank tiny-ce over " in line and "first-stage candidates" in line
    assert str(tmp_path) not in all_text(at)
    assert len(at.session_state[K.FIRST_STAGE_CACHE]) == searches + 1  # a rerank is a new first stage
    assert chart_specs(at) != charts  # the strips show the reranker's values


def test_cohere_rerank_is_offered_once_a_key_is_configured(monkeypatch):
    monkeypatch.setenv("CO_API_KEY", "test-key-not-real")
    monkeypatch.delenv("RSE_CROSS_ENCODER_MODELS", raising=False)
    at = _page()
    assert at.selectbox(key=kbs.RERANK_KEY).options == [
        "none (the first stage's values)",
        "Cohere rerank (rerank-v3.5)",
    ]
