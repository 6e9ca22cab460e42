"""The Explore and RSE vs top-k pages, driven through Streamlit's AppTest, and their charts.

Most tests open the app with ``?scorer=bm25`` (fast, no model to load); one smoke test uses the
default MiniLM scorer. Each test gets its own AppTest (cheap after the first: documents and
scores are cached per process), so no test depends on another's widget changes.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from app_ui import components
from app_ui.page_catalog import PAGES
from app_ui.page_state import compare as compare_state
from rse_core import Calibration, Document, RSEParams, build_corpus, preset, run_rse
from rse_core.documents.reflow import reflow
from rse_core.figures.compare import chunk_sets, compare_chart
from rse_core.figures.style import PALETTE
from rse_core.figures.values import RANGE_SLIDER_ABOVE, value_chart
from tests.support.apptest_support import (
    APP,
    TIMEOUT,
    chart_specs,
    html_text,
    messages,
    new_app,
    no_problems,
    open_page,
    result_of,
)
from tests.support.pdf_factory import make_pdf
from views import compare

ROOT = Path(__file__).resolve().parents[2]

SENTINEL_KEY = "sk-test-SENTINEL-never-export-0123456789"


def metric(at: AppTest, label: str) -> str:
    values = [m.value for m in at.metric if m.label == label]
    assert values, f"no metric {label!r}: {[m.label for m in at.metric]}"
    return values[0]


# --- pages ---


@pytest.mark.slow
def test_default_minilm_app_renders_both_pages():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    no_problems(at)
    result = result_of(at)
    assert result.scorer == "minilm"
    assert int(metric(at, "Segments")) == len(result.segments) >= 1
    assert len(chart_specs(at)) == 1
    open_page(at, "compare")
    no_problems(at)
    assert at.title[0].value == "RSE vs top-k"


def test_every_page_renders_on_the_default_document():
    at = new_app().run()
    no_problems(at)
    for spec in PAGES:
        if not spec.default:  # already rendered
            open_page(at, spec.url_path)
            assert not at.exception, (spec.url_path, [e.value for e in at.exception])
            assert not at.error, (spec.url_path, [e.value for e in at.error])


def test_explore_shows_headline_chart_text_and_exports():
    at = new_app().run()
    no_problems(at)
    result = result_of(at)
    assert metric(at, "Segments") == str(len(result.segments))
    assert metric(at, "Chunks kept") == f"{len(result.rse_chunks)} of {len(result.corpus.chunks)}"
    assert metric(at, "Characters sent") == f"{result.rse_characters:,}"
    assert metric(at, "Top-k characters (k=5)") == f"{result.characters(result.top_k):,}"
    page_html = html_text(at)
    assert html.escape(result.stop_reason.explanation) in page_html
    for segment in result.segments:
        assert f'<span class="rse-chip segment">{segment.label}</span>' in page_html
    # The sample's showcase query has gap chunks, each explained in the text panel.
    gaps = [index for segment in result.segments for index in segment.gap_chunks]
    assert gaps
    assert page_html.count("kept because the chunks on both sides outweigh it") >= len(gaps)
    # The annual report has > 120 chunks: the zoom strip is offered, off (it doubles each redraw's cost).
    assert "rangeslider" not in chart_specs(at)[0]["layout"]["xaxis"]
    at.toggle(key="explore_zoom_strip").set_value(True).run()
    assert chart_specs(at)[0]["layout"]["xaxis"]["rangeslider"]["visible"]
    labels = [button.proto.label for button in at.get("download_button")]
    assert labels == [
        "Download the result (JSON)",
        "Download the context (Markdown)",
        "Download report (HTML, opens offline)",
    ]
    assert "penalty=0.2" in at.code[0].value and "docs=annual_report" in at.code[0].value


def test_compare_page_shows_both_contexts_and_who_keeps_what():
    at = new_app().run()
    open_page(at, "compare")
    no_problems(at)
    result = result_of(at)
    contexts = [code.value for code in at.code]
    assert result.rse_context() in contexts
    assert result.top_k_context() in contexts
    assert result.window_context() in contexts  # the fixed window is the third column
    lengths = [m.value for m in at.metric if m.value.endswith(" characters")]
    assert lengths == [
        f"{result.characters(result.rse_chunks):,} characters",
        f"{result.characters(result.top_k):,} characters",
        f"{result.window_characters(result.window):,} characters",
    ]
    page_html = html_text(at)
    sets = chunk_sets(result)
    assert f"Only RSE keeps · {len(sets['rse_only'])}" in page_html
    assert f"Only top-k keeps · {len(sets['top_k_only'])}" in page_html
    at.radio(key="compare_variant").set_value("budget").run()
    no_problems(at)
    result = result_of(at)
    assert result.top_k_context(result.top_k_equal_budget) in [code.value for code in at.code]
    assert result.window_context(result.window_equal_budget) in [code.value for code in at.code]
    lengths = [m.value for m in at.metric if m.value.endswith(" characters")]
    assert lengths[1:] == [
        f"{result.characters(result.top_k_equal_budget):,} characters",
        f"{result.window_characters(result.window_equal_budget):,} characters",
    ]


def test_higher_penalty_gives_fewer_and_shorter_segments():
    at = new_app().run()
    kept, longest = [], []
    for penalty in (0.2, 0.3, 0.5):
        at.sidebar.slider(key="sb_irrelevant_chunk_penalty").set_value(penalty).run()
        no_problems(at)
        result = result_of(at)
        assert result.params.irrelevant_chunk_penalty == penalty
        kept.append(int(metric(at, "Chunks kept").split(" of ")[0]))
        longest.append(max(segment.chunk_count for segment in result.segments))
    assert kept[0] > kept[1] > kept[2] >= 1, kept
    assert longest[0] >= longest[1] >= longest[2], longest
    assert longest[0] > longest[2]
    # Moving a slider turns the preset into "custom".
    assert at.sidebar.selectbox(key="sb_preset").value == "custom"


def test_preset_picker_sets_the_sliders():
    at = new_app().run()
    at.sidebar.selectbox(key="sb_preset").set_value("find_all").run()
    no_problems(at)
    expected = preset("find_all")
    for field, key in (
        ("irrelevant_chunk_penalty", "sb_irrelevant_chunk_penalty"),
        ("decay_rate", "sb_decay_rate"),
        ("max_length", "sb_max_length"),
        ("overall_max_length", "sb_overall_max_length"),
        ("minimum_value", "sb_minimum_value"),
    ):
        assert at.sidebar.slider(key=key).value == getattr(expected, field), field
    assert at.sidebar.toggle(key="sb_chunk_length_adjustment").value is True
    params = result_of(at).params
    assert params.decay_rate == 200 and params.overall_max_length == 200 and params.chunk_length_adjustment


def test_url_parameters_restore_the_state():
    query = "How does the cooling loop keep the battery cells at an even temperature?"
    at = new_app(docs="tech_report", q=query, penalty="0.35", maxlen="12", topk="7").run()
    no_problems(at)
    assert at.sidebar.multiselect(key="sb_samples").value == ["tech_report"]
    assert at.sidebar.text_area(key="sb_query").value == query
    assert at.sidebar.slider(key="sb_irrelevant_chunk_penalty").value == 0.35
    assert at.sidebar.slider(key="sb_max_length").value == 12
    result = result_of(at)
    assert result.queries == (query,)
    assert [document.name for document in result.corpus.documents] == ["tech_report.pdf"]
    assert (result.params.irrelevant_chunk_penalty, result.params.max_length, result.params.top_k) == (0.35, 12, 7)
    assert metric(at, "Top-k characters (k=7)")
    link = at.code[0].value
    assert "docs=tech_report" in link and "penalty=0.35" in link and "maxlen=12" in link and "topk=7" in link


def test_ignored_link_parameters_are_shown_once():
    at = new_app(penalty="lots", docs="annual_report,no_such_doc").run()
    assert not at.exception
    notices = messages(at, "info")
    assert any("penalty='lots'" in notice for notice in notices), notices
    assert any("no_such_doc" in notice for notice in notices), notices
    assert at.sidebar.slider(key="sb_irrelevant_chunk_penalty").value == 0.2  # the default stays
    at.sidebar.slider(key="sb_decay_rate").set_value(40.0).run()
    assert not any("penalty='lots'" in notice for notice in messages(at, "info"))


def test_uploaded_pdf_is_used():
    pdf = make_pdf(
        [
            "Zebra herds of the Serengeti migrate clockwise every year. " * 3,
            "The zebra migration follows the rains: zebras cover about 800 kilometres a year, "
            "crossing the Mara river where zebras and wildebeest face crocodiles. " * 3,
            "Unrelated appendix about office printers and toner cartridges. " * 6,
        ],
        title="Zebra Field Notes",
    )
    # minilm, the default: bm25 indexes each document on its own (stable values), and on a
    # two-chunk upload its word statistics are too thin to outrank the annual report's best chunk.
    at = new_app(q="How far do zebras migrate each year?", scorer="minilm").run()
    at.sidebar.file_uploader(key="sb_uploads").set_value([("zebra_notes.pdf", pdf, "application/pdf")]).run()
    no_problems(at)
    result = result_of(at)
    names = [document.name for document in result.corpus.documents]
    assert "zebra_notes.pdf" in names
    best = result.segments[0]
    assert best.doc_name == "zebra_notes.pdf"
    assert "zebras cover about 800 kilometres" in best.text
    assert "Zebra Field Notes" in html_text(at)


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("empty.pdf", b"", "empty"),
        ("notes.pdf", b"These are plain notes, not a PDF at all.\n" * 20, "not a PDF"),
    ],
)
def test_bad_upload_shows_an_error_and_keeps_the_sample_result(name, data, message):
    at = new_app().run()
    before = result_of(at)
    at.sidebar.file_uploader(key="sb_uploads").set_value([(name, data, "application/pdf")]).run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value for e in at.error]
    assert any(message in error for error in errors), errors
    result = result_of(at)
    assert [document.name for document in result.corpus.documents] == ["annual_report.pdf"]
    assert [(s.start, s.end) for s in result.segments] == [(s.start, s.end) for s in before.segments]
    assert int(metric(at, "Segments")) == len(before.segments) >= 1


def test_no_segment_shows_the_reason_on_both_pages():
    at = new_app(penalty="1", minval="3").run()
    assert not at.exception
    result = result_of(at)
    assert not result.segments
    reason = result.empty_reason()
    assert any(reason in warning for warning in messages(at, "warning")), messages(at, "warning")
    assert metric(at, "Segments") == "0"
    open_page(at, "compare")
    assert not at.exception
    assert any("RSE found no segment" in w.value for w in at.warning)


def test_two_queries_get_a_chart_selector():
    at = new_app().run()
    at.sidebar.text_input(key="sb_query_2").set_value("audit fees paid to the auditor").run()
    no_problems(at)
    assert len(result_of(at).queries) == 2
    selector = at.radio(key="explore_query")
    assert selector.options == [
        "Q1: Show me the consolidated financial statements",
        "Q2: audit fees paid to the auditor",
    ]
    first = chart_specs(at)[0]
    selector.set_value(1).run()
    no_problems(at)
    second = chart_specs(at)[0]
    assert first["data"][0]["y"] != second["data"][0]["y"]  # the other query's values


def test_selected_chunk_is_outlined_and_described():
    at = new_app()
    at.session_state["explore_selected_chunk"] = 92
    at.run()
    no_problems(at)
    assert "<b>Selected:</b>" in html_text(at)
    assert "chunk 92 (" in html_text(at)
    shapes = chart_specs(at)[0]["layout"]["shapes"]
    assert any(shape.get("x0") == 92 - 0.6 and shape.get("line", {}).get("dash") == "dot" for shape in shapes)
    assert re.search(r'<span class="(gap-chunk )?selected-chunk"', html_text(at))  # chunk 92 is in S1, marked
    at.session_state["explore_selected_chunk"] = 10_000  # out of range
    at.run()
    no_problems(at)
    assert at.session_state["explore_selected_chunk"] is None
    at.session_state["explore_selected_chunk"] = 5
    at.run()
    assert "chunk 5 (" in html_text(at)
    at.sidebar.multiselect(key="sb_samples").set_value(["tech_report"]).run()  # other documents
    no_problems(at)
    assert at.session_state["explore_selected_chunk"] is None
    assert "<b>Selected:</b>" not in html_text(at)


def test_value_stages_toggle_adds_the_stage_layers():
    at = new_app().run()
    names = [trace.get("name") for trace in chart_specs(at)[0]["data"]]
    assert not any(name and name.startswith("①") for name in names)
    at.toggle(key="explore_stages").set_value(True).run()
    no_problems(at)
    names = [trace.get("name") for trace in chart_specs(at)[0]["data"]]
    assert [name for name in names if name and name[0] in "①②③④"] == [
        "① calibrated",
        "② beta-transformed",
        "③ × rank decay",
        "④ − penalty = value",
    ]


def test_document_text_is_escaped_everywhere():
    hostile = (
        "# Report <script>alert('title')</script>\n\n"
        "Penguins huddle for warmth in winter. <img src=x onerror=alert(1)> Penguins <b>huddle</b> tightly.\n\n"
        "Penguin colonies rotate so each penguin gets a turn inside the huddle & out of the wind.\n"
    )
    at = new_app(q="Why do penguins huddle in winter?").run()
    at.sidebar.file_uploader(key="sb_uploads").set_value([("penguins.md", hostile.encode(), "text/markdown")]).run()
    no_problems(at)
    assert any(segment.doc_name == "penguins.md" for segment in result_of(at).segments)
    page_html = html_text(at)
    assert "&lt;img src=x onerror=alert(1)&gt;" in page_html
    # the page view's own thumbnails are <img> tags with data: URIs; the document's never become one
    assert "<img src=x" not in page_html and "<script" not in page_html and "<b>huddle" not in page_html
    assert "&lt;b&gt;huddle&lt;/b&gt;" in page_html
    spec_text = json.dumps(chart_specs(at))
    assert "<script" not in spec_text and "<img" not in spec_text
    assert "&lt;script&gt;" in spec_text  # the title, escaped, in the chart's document label
    open_page(at, "compare")
    no_problems(at)
    compare_html = html_text(at)
    assert "<script" not in compare_html and "&lt;script&gt;" in compare_html


def test_exports_hold_no_api_key():
    at = new_app()
    at.session_state["sb_cohere_api_key"] = SENTINEL_KEY
    at.run()
    no_problems(at)
    result = result_of(at)
    exported = components.result_json(result) + components.context_markdown(result)
    assert SENTINEL_KEY not in exported
    assert SENTINEL_KEY not in at.code[0].value  # the share link
    data = json.loads(components.result_json(result))
    assert [segment["label"] for segment in data["segments"]] == [segment.label for segment in result.segments]
    markdown = components.context_markdown(result)
    assert markdown.startswith("# RSE context")
    for segment in result.segments:
        assert segment.text.strip() in markdown


def test_a_page_error_becomes_a_message_not_a_traceback():
    def app() -> None:
        from app_ui.components import guarded

        @guarded
        def broken_page() -> None:
            raise ZeroDivisionError("drawing failed")

        broken_page()

    at = AppTest.from_function(app, default_timeout=TIMEOUT).run()
    assert not at.exception
    assert len(at.error) == 1
    assert "ZeroDivisionError: drawing failed" in at.error[0].value


def test_an_error_in_a_fragment_becomes_a_message_not_a_traceback():
    """A fragment reruns on its own, outside its page's guard (Streamlit's traceback,
    with server paths, used to show)."""

    def app() -> None:
        from app_ui.components import guarded_fragment

        @guarded_fragment
        def broken_fragment(divisor: int) -> None:
            print(1 / divisor)

        broken_fragment(0)

    at = AppTest.from_function(app, default_timeout=TIMEOUT).run()
    assert not at.exception
    assert len(at.error) == 1
    assert "ZeroDivisionError" in at.error[0].value and "Traceback" not in at.error[0].value


def test_the_server_shows_no_error_details():
    """The last net: what no guard catches shows a generic message, not a traceback."""
    import tomllib

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["client"]["showErrorDetails"] == "none"


# --- charts, without Streamlit ---


def _synthetic_result(values_per_doc: list[list[float]], **changes) -> object:
    """A result whose raw scores are given (identity calibration), one document per list."""
    documents = [
        Document.from_text(
            "\n\n".join(f"Document {d} paragraph {i}: " + "word " * 60 for i in range(len(scores))),
            name=f"doc{d}.txt",
        )
        for d, scores in enumerate(values_per_doc)
    ]
    params = RSEParams(chunk_size=400, **changes)
    corpus = build_corpus(documents, params.chunk_size)
    assert len(corpus.chunks) == sum(len(scores) for scores in values_per_doc)
    raw = np.concatenate([np.asarray(scores, dtype=float) for scores in values_per_doc])
    return run_rse(corpus, ["q"], [raw], params, Calibration(), scorer="simulated")


def _traces(figure: go.Figure, name_prefix: str) -> list:
    return [trace for trace in figure.data if (trace.name or "").startswith(name_prefix)]


def test_value_chart_draws_every_chunk_once_with_segments_gaps_and_top_k():
    scores = [0.02] * 10 + [0.95, 0.9, 0.05, 0.97, 0.92] + [0.02] * 10
    result = _synthetic_result([scores, [0.02] * 8 + [0.9, 0.88] + [0.02] * 5], top_k=3)
    assert result.segments and result.segments[0].gap_chunks
    figure = value_chart(result)
    go.Figure(figure.to_dict())  # the figure is built unvalidated for speed: validate it here
    bars = [trace for trace in figure.data if trace.type == "bar"]
    x = np.concatenate([np.asarray(trace.x) for trace in bars])
    assert sorted(x.tolist()) == list(range(len(result.corpus.chunks)))
    for trace in bars:
        assert np.allclose(np.asarray(trace.y), result.values[0].value[np.asarray(trace.x, dtype=int)])
        assert np.array_equal(np.asarray(trace.customdata)[:, 0], np.asarray(trace.x))
    (gap,) = _traces(figure, "Inner gap")
    assert sorted(np.asarray(gap.x).tolist()) == sorted(i for s in result.segments for i in s.inner_gaps)
    assert gap.marker.line.color == PALETTE.gap
    (padding,) = _traces(figure, "Edge padding")
    assert len(padding.x) == 0 and not padding.showlegend  # RSE's segments start and end on chunks >= 0
    (top,) = _traces(figure, "Top-k")
    assert np.asarray(top.x).tolist() == list(result.top_k)
    bands = [shape for shape in figure.layout.shapes if shape.type == "rect" and shape.fillcolor]
    assert [(band.x0, band.x1) for band in bands] == [
        (s.start - 0.5, s.end - 0.5) for s in sorted(result.segments, key=lambda s: s.start)
    ]
    labels = {annotation.text for annotation in figure.layout.annotations}
    assert {f"<b>{s.label}</b>" for s in result.segments} <= labels
    boundaries = [shape for shape in figure.layout.shapes if shape.type == "line"]
    assert [shape.x0 for shape in boundaries] == [split - 0.5 for split in result.corpus.document_splits]
    assert figure.layout.font.size >= 13
    assert "rangeslider" not in figure.to_dict()["layout"]["xaxis"]  # 40 chunks: no slider needed


def test_value_chart_draws_edge_padding_apart_from_inner_gaps():
    """A segment with a negative chunk at its end (as the optimal search or a window may keep):
    the end chunk is hatched edge padding, the middle one a solid inner gap."""
    import dataclasses

    result = _synthetic_result([[0.02] * 5 + [0.95, 0.9, 0.05, 0.97, 0.92] + [0.02] * 5])
    (segment,) = result.segments
    (inner,) = segment.inner_gaps
    padded = dataclasses.replace(segment, end=segment.end + 1, edge_padding=(segment.end,))
    figure = value_chart(dataclasses.replace(result, segments=(padded,)))
    (gap,) = _traces(figure, "Inner gap")
    (padding,) = _traces(figure, "Edge padding")
    assert np.asarray(gap.x).tolist() == [inner] and np.asarray(padding.x).tolist() == [segment.end]
    assert padding.marker.pattern.shape == "/" and gap.marker.pattern.shape is None
    assert padding.marker.color != gap.marker.color


def test_value_chart_hover_has_every_stage_and_escapes_text():
    result = _synthetic_result([[0.1, 0.9, 0.8, 0.1]])
    figure = value_chart(result)
    template = figure.data[0].hovertemplate
    for part in ("raw score", "calibrated", "beta-transformed", "rank", "exp(−rank/30)", "value ="):
        assert part in template
    document = Document.from_text("# A <b>bold</b> & risky title\n\nSome <i>text</i> " * 3, name="x.md")
    corpus = build_corpus(document, 400)
    hostile = run_rse(corpus, ["q"], [np.full(len(corpus.chunks), 0.9)], RSEParams(chunk_size=400), Calibration())
    spec = json.dumps(value_chart(hostile).to_dict(), default=str)
    assert "<b>bold</b>" not in spec and "&lt;b&gt;bold&lt;/b&gt;" in spec and "&amp; risky" in spec
    assert "<i>text</i>" not in spec


def test_value_chart_stages_selection_and_long_documents():
    result = _synthetic_result([[0.05] * 60 + [0.9] * 5 + [0.05] * 70])
    assert len(result.corpus.chunks) > RANGE_SLIDER_ABOVE
    figure = value_chart(result, show_stages=True, selected_chunk=61)
    go.Figure(figure.to_dict())
    assert figure.layout.xaxis.rangeslider.visible
    assert "rangeslider" not in value_chart(result, range_slider=False).to_dict()["layout"]["xaxis"]
    stage_names = [trace.name for trace in figure.data if trace.name and trace.name[0] in "①②③④"]
    assert len(stage_names) == 4
    (calibrated,) = _traces(figure, "①")
    assert np.allclose(np.asarray(calibrated.y), result.values[0].calibrated)
    (decayed,) = _traces(figure, "③")
    assert np.allclose(np.asarray(decayed.y), result.values[0].transformed * result.values[0].decay)
    outlines = [shape for shape in figure.layout.shapes if shape.line.dash == "dot" and shape.x0 == 61 - 0.6]
    assert len(outlines) == 1
    with pytest.raises(ValueError, match="query"):
        value_chart(result, query=1)


def test_compare_chart_and_chunk_sets():
    result = _synthetic_result(
        [[0.02] * 10 + [0.95, 0.9, 0.05, 0.97, 0.92] + [0.02] * 10 + [0.99]], top_k=4, minimum_value=1.0
    )
    sets = chunk_sets(result)
    rse, top = set(result.rse_chunks), set(result.top_k)
    assert set(sets["both"]) == rse & top and set(sets["rse_only"]) == rse - top
    assert set(sets["top_k_only"]) == top - rse and 25 in sets["top_k_only"]  # the isolated hit
    figure = compare_chart(result)
    go.Figure(figure.to_dict())
    strips = {trace.name: trace for trace in figure.data if trace.yaxis == "y2" and trace.showlegend}
    assert sorted(np.asarray(strips["RSE inner gap"].x).tolist()) == list(result.segments[0].gap_chunks)
    assert strips["RSE segment chunk"].marker.color == PALETTE.segment
    assert strips["Top-k chunk"].marker.color == PALETTE.top_k
    window_rows = [t for t in figure.data if t.yaxis == "y2" and (t.name or "").startswith("Window")]
    hits = sorted({hit for segment in result.window for hit in segment.hits})
    added = sorted({i for segment in result.window for i in segment.padding})
    assert sorted(np.asarray(window_rows[0].x).tolist()) == hits
    assert sorted(np.asarray(window_rows[1].x).tolist()) == added
    assert window_rows[0].marker.color == PALETTE.window


def test_gap_reason_gives_the_sums_on_both_sides():
    result = _synthetic_result([[0.02] * 5 + [0.95, 0.9, 0.05, 0.97, 0.92] + [0.02] * 5])
    (segment,) = result.segments
    (gap,) = segment.gap_chunks
    values = result.values[0].value
    reason = components.gap_reason(result, segment, gap)
    assert reason.startswith(f"Chunk {result.corpus.chunks[gap].index} scores −")
    assert components.signed(float(values[segment.start : gap].sum())) in reason
    assert components.signed(float(values[gap + 1 : segment.end].sum())) in reason
    assert f"worth {segment.score:.2f} with it" in reason


def test_explain_panel_on_explore_applies_the_flipping_penalty():
    """Select a chunk just outside a segment: the panel offers the penalty that pulls it in, and it does.

    (A segment already at the most chunks per segment cannot grow, so its neighbours offer none.)"""
    at = new_app().run()
    result = result_of(at)
    edges = [chunk for segment in result.segments for chunk in (segment.start - 1, segment.end)]
    for chunk in edges:
        at.session_state["explore_selected_chunk"] = chunk
        at.session_state["_explore_selected_corpus"] = result.corpus.key
        at.run()
        no_problems(at)
        assert "Why is this chunk in or out?" in [s.value for s in at.subheader]
        buttons = [b for b in at.button if b.key == "xp_apply_penalty"]
        if buttons:
            break
    assert buttons, "no chunk next to S1 has a penalty that flips it"
    assert not any(s.start <= chunk < s.end for s in result_of(at).segments)
    buttons[0].click().run()
    no_problems(at)
    assert any(s.start <= chunk < s.end for s in result_of(at).segments)


# --- first impression: what a demo audience reads ---


def test_no_segment_is_said_once_and_shows_no_segment_legend():
    at = new_app(penalty="1", minval="3").run()
    no_problems_but_warnings = not at.exception and not at.error
    assert no_problems_but_warnings
    shown = "\n".join([w.value for w in at.warning] + [i.value for i in at.info] + [html_text(at)])
    assert shown.count("No segment") + shown.count("no segment") == 1, shown
    assert '<span class="rse-chip segment">S1</span>' not in html_text(at)
    assert any("RSE sends no text" in caption.value for caption in at.caption)


def test_counts_are_written_in_words_that_agree():
    assert components.plural(1, "segment") == "1 segment" and components.plural(2, "segment") == "2 segments"
    assert components.passages_phrase(1) == "1 passage"
    assert components.passages_phrase(3) == "3 separate passages"
    at = new_app().run()
    open_page(at, "compare")
    no_problems(at)
    captions = [caption.value for caption in at.caption]
    assert not any("(s)" in caption or re.search(r"\b1 separate", caption) for caption in captions), captions
    at.radio(key=compare_state.Keys.VARIANT).set_value(compare.AT_BUDGET).run()
    assert "Top-k, up to the same characters as RSE" in html_text(at)


def test_segment_text_is_reflowed_for_reading_but_exported_exactly():
    at = new_app().run()
    no_problems(at)
    result = result_of(at)
    page_html = html_text(at)
    segment = result.segments[0]
    document = result.corpus.documents_by_id[segment.doc_id]
    exact = document.text[segment.start_char : segment.end_char]
    lines = [line for line in reflow(exact).split("\n") if line.strip()]
    assert reflow(exact) != exact, "the sample's PDF text has hard line breaks inside paragraphs"
    joined = [line for line in lines if line not in exact]  # lines reflow made from several
    assert joined
    shown = re.sub(r'<span class="boundary"[^>]*>\d+</span>', "", page_html)
    shown = html.unescape(re.sub(r"<[^>]+>", "", shown))
    for line in joined:
        assert line in shown
    assert exact.strip() in result.rse_context()  # what an LLM gets keeps the exact text
    assert reflow("a long line that goes on and on and on and on and on and ends mid\nsentence") == (
        "a long line that goes on and on and on and on and on and ends mid sentence"
    )
    assert reflow("Heading\nText.\n\nNext paragraph") == "Heading\nText.\n\nNext paragraph"
    from app_ui.theme import CSS

    assert "serif" not in CSS.split(".rse-text {")[1].split("}")[0].replace("sans-serif", "")


def test_evaluate_table_fits_beside_the_sidebar_without_scrolling():
    at = new_app().run()
    open_page(at, "evaluate")
    no_problems(at)
    table = at.dataframe[0]
    config = json.loads(table.proto.columns)
    widths = {name: column.get("width") for name, column in config.items() if name != "_index"}  # hidden
    assert all(isinstance(width, int) for width in widths.values()), widths
    assert widths["query"] >= 240
    # A 1,440 px window minus the sidebar, the page margins and the row-selection checkboxes.
    assert sum(widths.values()) <= 980
