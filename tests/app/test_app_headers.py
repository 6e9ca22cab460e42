"""The sidebar's contextual-header toggle and the hybrid scorer in the app (AppTest, bm25 for speed)."""

from __future__ import annotations

import html

from tests.support.apptest_support import html_text, new_app, no_problems, result_of


def test_header_toggle_rescores_with_headers_and_keeps_the_exact_text():
    at = new_app(docs="tech_report").run()
    no_problems(at)
    toggle = at.sidebar.toggle(key="sb_chunk_headers")
    start = toggle.value
    toggle.set_value(not start).run()
    no_problems(at)
    result = result_of(at)
    assert result.params.chunk_headers is (not start) and result.corpus.headers is (not start)
    with_headers = result if result.corpus.headers else None
    if with_headers is None:
        at.sidebar.toggle(key="sb_chunk_headers").set_value(True).run()
        with_headers = result_of(at)
    assert all(chunk.header.startswith("Alderwick GSU-3700") for chunk in with_headers.corpus.chunks)
    document = with_headers.corpus.documents[0]
    for segment in with_headers.segments:
        assert segment.text == document.text[segment.start_char : segment.end_char]
    assert "headers=1" in at.code[0].value  # the share link carries it


def test_header_setting_comes_from_the_link_and_shows_in_the_explain_panel():
    at = new_app(docs="tech_report", headers="1")
    at.session_state["explore_selected_chunk"] = 20
    at.run()
    no_problems(at)
    assert at.sidebar.toggle(key="sb_chunk_headers").value is True
    result = result_of(at)
    header = result.corpus.chunks[20].header
    assert header and "Scored with the header" in html_text(at)
    assert html.escape(header) in html_text(at)
    at = new_app(docs="tech_report", headers="0").run()
    assert at.sidebar.toggle(key="sb_chunk_headers").value is False
    assert "Scored with the header" not in html_text(at)


def test_hybrid_scorer_is_selectable():
    at = new_app(docs="employee_handbook", scorer="hybrid", q="How many days of annual leave do employees get?").run()
    no_problems(at)
    assert at.sidebar.selectbox(key="sb_scorer").value == "hybrid"
    result = result_of(at)
    assert result.scorer == "hybrid" and "bm25s" in result.model
    assert result.segments
