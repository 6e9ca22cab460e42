"""The live value chart (updated in place in the browser) and what keeps it in place.

A slider move must reach the same chart element in the browser: Explore's chart is a component
keyed by ``explore_chart`` whose frame survives reruns only if nothing before it in the page changes
its position. These tests pin the parts that can be checked without a browser: the component's
files, its arguments (the same figure ``value_chart`` draws), clicks, and a page structure that
is the same whether a run scored the query (with a progress bar) or found the scores cached.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from app_ui import compute, live_chart
from rse_core import RSEParams
from rse_core.figures.values import value_chart, value_chart_spec
from rse_core.scoring.minilm import MiniLMScorer
from tests.support.apptest_support import chart_specs, html_text, live_charts, new_app, no_problems, result_of
from tests.support.pdf_factory import make_pdf


def test_the_frontend_folder_holds_our_files_and_the_installed_plotly_js(tmp_path):
    folder = live_chart.assemble_frontend(tmp_path)
    assert sorted(path.name for path in folder.iterdir()) == ["index.html", "live_chart.js", "plotly.min.js"]
    assert (folder / "plotly.min.js").read_bytes() == live_chart.plotly_js().read_bytes()
    assert (folder / "live_chart.js").read_text() == (live_chart.FRONTEND / "live_chart.js").read_text()
    assert '<script src="plotly.min.js"></script>' in (folder / "index.html").read_text()
    assert live_chart.assemble_frontend(tmp_path) == folder  # made once, then reused
    assert [path.name for path in (tmp_path / "live_chart").iterdir()] == [folder.name]  # no staging left


def test_a_changed_frontend_file_gets_a_new_folder(tmp_path, monkeypatch):
    first = live_chart.assemble_frontend(tmp_path)
    edited = tmp_path / "frontend"
    edited.mkdir()
    for name in live_chart.FRONTEND_FILES:
        (edited / name).write_text((live_chart.FRONTEND / name).read_text())
    (edited / "live_chart.js").write_text((edited / "live_chart.js").read_text() + "\n// changed\n")
    monkeypatch.setattr(live_chart, "FRONTEND", edited)
    second = live_chart.assemble_frontend(tmp_path)
    assert second != first
    assert (second / "live_chart.js").read_text().endswith("// changed\n")


def test_the_frontend_puts_no_figure_text_into_the_page_itself():
    """Plotly draws (and escapes) every label; the script itself only sets textContent."""
    script = (live_chart.FRONTEND / "live_chart.js").read_text()
    for risky in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert risky not in script


def test_explore_sends_the_value_chart_as_a_keyed_live_chart():
    at = new_app().run()
    no_problems(at)
    charts = live_charts(at)
    assert len(charts) == 1
    assert charts[0].proto.id.endswith("-explore_chart")
    args = json.loads(charts[0].proto.json_args)
    assert args["height"] == 520
    assert args["config"]["toImageButtonOptions"]["filename"] == "rse-values"
    result = result_of(at)
    expected = json.loads(value_chart(result, 0, gold_spans=[(92, 104, "gold ar-10")]).to_json())
    assert chart_specs(at)[0]["data"] == expected["data"]


def test_the_chart_keeps_its_identity_when_its_figure_changes():
    """What lets the browser update the drawn chart instead of drawing a new one."""
    at = new_app().run()
    before = live_charts(at)[0].proto
    at.sidebar.slider(key="sb_irrelevant_chunk_penalty").set_value(0.4).run()
    no_problems(at)
    after = live_charts(at)[0].proto
    assert after.json_args != before.json_args
    assert after.id == before.id


def test_a_clicked_bar_selects_its_chunk_and_a_repeated_click_counts_again():
    at = new_app().run()
    at.session_state["explore_chart"] = {"x": 40, "curve": 0, "at": 1}
    at.run()
    no_problems(at)
    assert at.session_state["explore_selected_chunk"] == 40
    assert "chunk 40 (" in html_text(at)
    at.session_state["explore_selected_chunk"] = 7  # chosen some other way (e.g. a link)
    at.run()
    assert at.session_state["explore_selected_chunk"] == 7  # the old click does not overwrite it
    at.session_state["explore_chart"] = {"x": 40, "curve": 0, "at": 2}  # the same bar, clicked again
    at.run()
    assert at.session_state["explore_selected_chunk"] == 40


@pytest.mark.parametrize("value", [{"x": "forty"}, {"x": 10_000, "curve": 0, "at": 3}, {"curve": 1}, "40", None])
def test_a_malformed_or_out_of_range_click_is_ignored(value):
    at = new_app().run()
    at.session_state["explore_chart"] = value
    at.run()
    no_problems(at)
    assert "explore_selected_chunk" not in at.session_state or at.session_state["explore_selected_chunk"] is None


def _main_sequence(at) -> list[str]:
    return [node.type for node in at.main.children.values()]


def test_the_page_has_the_same_structure_whether_the_query_was_scored_or_cached():
    """A progress bar drawn only when scoring used to shift every later element by one, and the
    browser (which matches unkeyed elements by position) rebuilt the whole page on the next move."""
    at = new_app(q="Which parts of the company own the pumps made in Poland? (structure test)")
    at.run()  # a query no test asked before: scored now, with a progress bar
    no_problems(at)
    scored = _main_sequence(at)
    at.sidebar.slider(key="sb_irrelevant_chunk_penalty").set_value(0.3).run()  # the same query: scores cached
    no_problems(at)
    assert _main_sequence(at) == scored


def test_an_upload_is_embedded_once_before_the_run_that_scores_it(monkeypatch):
    """The reading run embeds the new file; the run it then starts finds the embeddings."""
    phase = ["before"]
    encoded: list[tuple[str, int]] = []
    original_encode, original_embed = MiniLMScorer._encode, compute.embed_new_uploads

    def counting(self, texts, progress, done, total):
        encoded.append((phase[0], len(texts)))
        return original_encode(self, texts, progress, done, total)

    def in_fragment(inputs, progress):
        phase[0] = "reading run"
        original_embed(inputs, progress)
        phase[0] = "scoring run"

    monkeypatch.setattr(MiniLMScorer, "_encode", counting)
    monkeypatch.setattr(compute, "embed_new_uploads", in_fragment)
    pdf = make_pdf(["Otters hold hands while they sleep so they do not drift apart. " * 4] * 3, title="Otter Notes")
    at = new_app(scorer="minilm").run()
    encoded.clear()
    at.sidebar.file_uploader(key="sb_uploads").set_value([("otters.pdf", pdf, "application/pdf")]).run()
    no_problems(at)
    result = result_of(at)
    upload_chunks = sum(1 for chunk in result.corpus.chunks if chunk.doc_id != result.corpus.chunks[0].doc_id)
    assert upload_chunks >= 1
    assert encoded == [("reading run", upload_chunks)]  # embedded once, then found cached by the next run
    assert "_uploads_changed" not in at.session_state


def test_an_unwritable_cache_directory_falls_back_to_a_temporary_folder(tmp_path, monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setattr(live_chart, "default_cache_dir", lambda: blocked / "cache")
    folder = live_chart._frontend_folder()
    try:
        assert (folder / "index.html").is_file() and (folder / "plotly.min.js").is_file()
        assert not folder.is_relative_to(blocked)
    finally:
        shutil.rmtree(folder.parent.parent, ignore_errors=True)  # the temporary folder it made


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def test_a_deeply_nested_click_value_does_not_break_the_session():
    """A value posted from the chart's frame is the browser's to choose: a 900-level nested
    ``curve`` used to raise RecursionError when compared with the last click."""
    at = new_app().run()
    at.session_state["explore_chart"] = {"x": 40, "curve": _nested(900), "at": _nested(900)}
    at.run()
    no_problems(at)
    assert at.session_state["explore_selected_chunk"] == 40
    at.session_state["explore_chart"] = {"x": 41, "curve": _nested(900), "at": 5}
    at.run()
    no_problems(at)
    assert at.session_state["explore_selected_chunk"] == 41


def test_the_chart_json_is_plotlys_own_for_every_kind_of_figure():
    """``figure_json`` skips plotly's copy and checks but must send exactly what ``to_json`` would."""
    from rse_core import Calibration, Document, build_corpus, run_rse
    from rse_core.figures.compare import compare_chart

    document = Document.from_text(" ".join(f"Sentence {n} about pumps and valves." for n in range(400)), name="t.txt")
    corpus = build_corpus([document], chunk_size=200)
    scores = [np.linspace(0, 1, len(corpus.chunks)) ** 3, np.linspace(1, 0, len(corpus.chunks))]
    result = run_rse(corpus, ["pumps", "valves"], scores, RSEParams(chunk_size=200), Calibration())
    figures = [
        value_chart(result, 0),
        value_chart(result, 1, show_stages=True, selected_chunk=3, gold_spans=[(2, 5, "gold")], optimal=[(1, 4)]),
        value_chart(result, 0, range_slider=True),
        compare_chart(result),
    ]
    for figure in figures:
        assert live_chart.figure_json(figure) == figure.to_json()
    # Explore sends the value chart as plain data: the same figure as value_chart's (keys may come in another order)
    stages = {"show_stages": True, "selected_chunk": 3, "gold_spans": [(2, 5, "gold")], "optimal": [(1, 4)]}
    for options in ({}, stages):
        spec = value_chart_spec(result, 1, **options)
        assert json.loads(live_chart.figure_json(spec)) == json.loads(value_chart(result, 1, **options).to_json())


def test_typed_arrays_match_plotlys_for_every_dtype():
    from _plotly_utils.utils import to_typed_array_spec

    arrays = [
        np.array([1, 2, 300], dtype=np.int64),
        np.array([-1, 70_000]),
        np.array([2**40]),
        np.array([1, 2], dtype=np.uint64),
        np.array([[1.5, 2.0], [3.0, 4.0]]),
        np.arange(10)[::2],
        np.array([1, 2], dtype=np.int16),
        np.array([True, False]),
        np.array([], dtype=float),
        np.array([1.0], dtype=np.float16),
        np.array(["a", "b"], dtype=object),
    ]
    for array in arrays:
        ours, theirs = live_chart._typed_array(array), to_typed_array_spec(array)
        assert json.dumps(ours, default=np.ndarray.tolist) == json.dumps(theirs, default=np.ndarray.tolist), array
