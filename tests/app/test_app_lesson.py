"""The lesson taught exactly, in AppTest (gold spans on Explore, the sidebar per page,
the Lesson page, the window baseline, greedy vs optimal, the board mode).

Expected numbers are computed here from the golden sets, the chunks and the course's own
answers, never read from the page's code.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tests.support.apptest_support import chart_specs, html_text, new_app, no_problems, open_page, result_of

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = json.loads((ROOT / "sample_docs" / "annual_report.golden.json").read_text())
AR10 = next(q for q in GOLDEN["queries"] if q["id"] == "ar-10")
TR_GOLDEN = json.loads((ROOT / "sample_docs" / "tech_report.golden.json").read_text())
TR10 = next(q for q in TR_GOLDEN["queries"] if q["id"] == "tr-10")


def sample_result(slug: str, query: dict, **changes):
    """RSE on a sample at the default parameters (with ``changes``), outside the app."""
    from app_ui.samples import list_samples, load_sample_document
    from rse_core import RSEParams, extract

    document = load_sample_document(list_samples()[slug].path)
    return extract([document], [query["query"]], RSEParams(**changes), "minilm")


def expected_gold_chunks(result, query: dict) -> tuple[int, int]:
    """Corpus chunks start:end that the golden character span touches (independent of the app)."""
    touched = [
        i
        for i, chunk in enumerate(result.corpus.chunks)
        if chunk.start < query["end_char"] and chunk.end > query["start_char"]
    ]
    return touched[0], touched[-1] + 1


def test_explore_shades_the_gold_span_of_a_golden_query():
    at = new_app(q=AR10["query"]).run()
    no_problems(at)
    result = result_of(at)
    start, end = expected_gold_chunks(result, AR10)
    value_chart = chart_specs(at)[0]
    strips = [s for s in value_chart["layout"]["shapes"] if s.get("name") == "gold-strip"]
    assert len(strips) == 1
    assert (strips[0]["x0"], strips[0]["x1"]) == (start - 0.5, end - 0.5)
    assert any(t["name"] == "Gold span (golden set)" for t in value_chart["data"])
    assert any("gold answer of ar-10" in c.value for c in at.caption)


def test_explore_without_a_golden_query_has_no_gold_span():
    at = new_app(q="What colour is the sky on Mars?").run()
    no_problems(at)
    value_chart = chart_specs(at)[0]
    assert not [s for s in value_chart["layout"].get("shapes", []) if s.get("name") == "gold-strip"]


def test_worked_example_sidebar_says_nothing_applies_and_disables_the_controls():
    at = new_app().run()
    open_page(at, "worked-example")
    no_problems(at)
    assert any("Nothing in this sidebar applies on Worked example" in i.value for i in at.sidebar.info)
    assert at.sidebar.slider(key="sb_irrelevant_chunk_penalty").disabled
    assert at.sidebar.text_area(key="sb_query").disabled
    # The values survive the visit: back on Explore they are live again, unchanged.
    open_page(at, "")
    assert not at.sidebar.slider(key="sb_irrelevant_chunk_penalty").disabled
    assert at.sidebar.slider(key="sb_irrelevant_chunk_penalty").value == pytest.approx(0.2)


def test_explore_sidebar_has_every_control_live_and_names_the_course_preset():
    at = new_app().run()
    no_problems(at)
    assert not any(s.disabled for s in at.sidebar.slider)
    assert any("course" in c.value and "minimum segment value 0.7" in c.value for c in at.sidebar.caption)


def test_evaluate_runs_the_chunk_size_study_on_request():
    at = new_app().run()
    open_page(at, "evaluate")
    no_problems(at)
    assert not [d for d in at.dataframe if "chunk size" in d.value.columns]  # only when asked
    at.button(key="cs_run").click().run()
    no_problems(at)
    (table,) = [d.value for d in at.dataframe if "chunk size" in d.value.columns]
    assert sorted(set(table["chunk size"])) == [200, 400, 800, 1200, 1600]
    assert {"RSE", "top-k"} <= set(table["method"])
    study = [spec for spec in chart_specs(at) if any(t.get("name") == "RSE" for t in spec["data"])]
    assert study and study[-1]["data"][0]["x"] == [200, 400, 800, 1200, 1600]


def test_compare_has_the_window_column_and_sends_contexts_in_the_chosen_order():
    at = new_app(penalty="0.05").run()  # a low penalty: several segments, so the order shows
    open_page(at, "compare")
    no_problems(at)
    result = result_of(at)
    assert len(result.segments) > 1
    page = html_text(at)
    assert f"Window (±{result.params.window})" in page
    contexts = [code.value for code in at.code]
    assert result.params.context_order == "document"
    assert result.rse_context("document") in contexts and result.window_context() in contexts
    firsts = [contexts[0].index(f"[{s.label}]") for s in sorted(result.segments, key=lambda s: s.start)]
    assert firsts == sorted(firsts)  # document order: the segments as they stand in the document
    at.sidebar.radio(key="sb_context_order").set_value("score").run()
    no_problems(at)
    contexts = [code.value for code in at.code]
    assert result_of(at).rse_context("score") in contexts
    firsts = [contexts[0].index(f"[{s.label}]") for s in result_of(at).segments]
    assert firsts == sorted(firsts)  # best first: S1, S2, ...
    assert at.query_params["order"] == ["score"] or at.query_params["order"] == "score"  # the link keeps it


def test_compare_no_longer_claims_top_k_never_keeps_inner_gaps():
    at = new_app().run()
    open_page(at, "compare")
    text = " ".join(c.value for c in at.caption)
    assert "never keeps" not in text
    assert "Top-k keeps such a chunk only when it still ranks in its top k" in text


def test_worked_example_greedy_vs_optimal_on_the_budget_case():
    at = new_app().run()
    open_page(at, "worked-example")
    at.selectbox(key="we_example").set_value("Overall budget binds").run()
    no_problems(at)
    assert at.number_input(key="we_overall_max_length").value == 4
    at.toggle(key="we_reveal").set_value(True).run()
    at.toggle(key="we_optimal").set_value(True).run()
    no_problems(at)
    metrics = {m.label: m.value for m in at.metric}
    # By hand: greedy takes 4-6 (0.3 + 0.9 + 0.8 = 2.0), then one chunk fits: chunk 1 (0.7) -> 2.7;
    # chunks 0-1 (0.6 + 0.7 = 1.3) and 5-6 (0.9 + 0.8 = 1.7) fit the same 4 chunks: 3.0.
    assert (metrics["Greedy total (RSE)"], metrics["Maximum total"], metrics["Difference"]) == ("2.7", "3.0", "0.3")
    info = next(i for i in at.info if "Kadane" in i.value)
    assert "chunks 4-6 (2.0) and chunk 1 (0.7), 2.7 in all" in info.value
    assert "chunks 0-1 (1.3) and chunks 5-6 (1.7), 3.0 in all" in info.value
    assert not at.warning
    optimal_chart = next(
        spec
        for spec in chart_specs(at)
        if any("O2" in str(a.get("text")) for a in spec["layout"].get("annotations", []))
    )
    assert optimal_chart


def test_worked_example_course_example_2_teaches_the_objective_not_a_warning():
    """The optimum's 2.1 on course example 2 is explained, not shown as RSE's failure."""
    at = new_app().run()
    open_page(at, "worked-example")
    at.selectbox(key="we_example").set_value("Course example 2: a gap worth crossing").run()
    assert not any("numbers chunks from 1" in c.value for c in at.caption)  # "its chunks 3-7" is the answer
    at.toggle(key="we_reveal").set_value(True).run()
    assert any("numbers chunks from 1" in c.value for c in at.caption)
    at.toggle(key="we_optimal").set_value(True).run()
    no_problems(at)
    assert not at.warning
    info = next(i for i in at.info if "Kadane" in i.value)
    assert "maximises the total" in info.value and "cuts out chunk 4 (-0.1)" in info.value
    assert "gains 0.1" in info.value and "RSE keeps the gap on purpose" in info.value
    assert "Plain Kadane" in info.value
    at.selectbox(key="we_example").set_value("Course example 1: one cluster").run()
    at.toggle(key="we_reveal").set_value(True).run()
    at.toggle(key="we_optimal").set_value(True).run()
    assert any("both agree" in i.value for i in at.info)


def test_explore_optimal_toggle_outlines_the_exact_answer_and_gives_both_totals():
    from rse_core.search.optimal import compare_with_greedy

    at = new_app().run()
    at.toggle(key="explore_optimal").set_value(True).run()
    no_problems(at)
    result = result_of(at)
    params = result.params
    expected = compare_with_greedy(
        [v.value for v in result.values],
        max_length=params.max_length,
        overall_max_length=params.overall_max_length,
        minimum_value=params.minimum_value,
        document_splits=result.corpus.document_splits,
    )
    assert expected.optimal_value >= expected.greedy_value
    bands = [s for s in chart_specs(at)[0]["layout"]["shapes"] if s.get("name") == "optimal-band"]
    assert [(b["x0"], b["x1"]) for b in bands] == [(s.start - 0.5, s.end - 0.5) for s in expected.optimal]
    line = html_text(at)
    assert f"Greedy total {expected.greedy_value:.2f}" in line
    assert f"optimal total {expected.optimal_value:.2f}" in line or "the greedy search is optimal" in line
    at.toggle(key="explore_optimal").set_value(False).run()
    assert not [s for s in chart_specs(at)[0]["layout"]["shapes"] if s.get("name") == "optimal-band"]


def test_lesson_page_quotes_the_lesson_and_computes_our_numbers():
    at = new_app(scorer="minilm").run()  # the lesson's numbers are the offline model's
    open_page(at, "lesson")
    no_problems(at)
    text = "\n".join(m.value for m in at.markdown)
    # Quoted from the lesson, as the lesson says it: 20 chunks by position.
    assert "Of the 20 chunks **320-339** (by position), **7** are marked relevant" in text
    assert "best-scored" not in text and "number tables" not in text
    assert "**323-333**" in text and "**323-336**" in text
    assert "**4.72** with top-k and **6.73** with RSE, at k = 20 and roughly equal context length" in text
    assert "an LLM's grades from 0 to 10 of the answers to 50 questions" in text
    assert any("We did not run KITE" in w.value for w in at.warning)
    # Ours, on tr-10 at the defaults, computed here from the golden span and a run outside the app.
    result = sample_result("tech_report", TR10)
    values = result.values[0].value
    start, end = expected_gold_chunks(result, TR10)
    assert f"sits in chunks **{start}-{end - 1}** of {len(result.corpus.chunks)}" in text
    window = (start - 3, start + 17)
    positive = sum(1 for i in range(*window) if values[i] > 0)
    assert f"Of the 20 chunks **{window[0]}-{window[1] - 1}** (by position" in text
    assert f"**{positive}** score above zero on their own" in text
    gaps = [i for s in result.segments for i in range(s.start, s.end) if values[i] < 0]
    assert gaps == [86, 87, 90]  # the live case has gaps at the defaults
    assert "**3 gaps** in RSE's segments" in text
    for i in gaps:
        segment = next(s for s in result.segments if s.start <= i < s.end)
        before, after = float(values[segment.start : i].sum()), float(values[i + 1 : segment.end].sum())
        assert f"chunk {i} scores {num(values[i])} on its own; {num(before)} before it and {num(after)} after" in text
    assert "A gap, as the lesson means it:" in text and "penalty 0.2, decay 30" in text
    gold = set(range(start, end))
    assert f"drops {len(gold - set(result.top_k))} of the {end - start} answer chunks" in text
    first = result.segments[0]
    assert f"RSE's first segment is chunks **{first.first_chunk}-{first.last_chunk}**" in text
    # The measured table has the window rows, and the ceiling follows the sidebar.
    (table,) = [d.value for d in at.dataframe if "method" in d.value.columns]
    assert {"RSE", "top-k", "window"} <= set(table["method"])
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Lesson's ceiling (quoted)"] == "24,000 characters"
    assert metrics["Current ceiling"] == "24,000 characters"
    at.sidebar.slider(key="sb_overall_max_length").set_value(20).run()
    assert {m.label: m.value for m in at.metric}["Current ceiling"] == "16,000 characters"


def num(x: float) -> str:
    from rse_core.numerals import num as teacher_num

    return teacher_num(float(x))


def test_lesson_teaches_the_objective_on_course_example_2():
    at = new_app(scorer="minilm").run()  # the lesson's numbers are the offline model's
    open_page(at, "lesson")
    text = "\n".join(m.value for m in at.markdown)
    assert "Plain Kadane finds the one run of largest sum: chunks 2-6, worth 2.0" in text
    assert "chunks 2-3 (1.2) and chunks 5-6 (0.9), 2.1 in all" in text and "pure cost" in text
    titles = [spec["layout"].get("title", {}).get("text") for spec in chart_specs(at)]
    assert "RSE's greedy: 2.0" in titles and "Exact maximum total: 2.1" in titles


def test_lesson_steps_the_search_on_tr10_with_the_binding_constraint():
    at = new_app(scorer="minilm").run()  # the lesson's numbers are the offline model's
    open_page(at, "lesson")
    result = sample_result("tech_report", TR10)
    first = result.segments[0]
    text = "\n".join(m.value for m in at.markdown)
    assert "Turn 0: predict the first pick" in text and "taken as S1" not in text  # predict first
    assert "20 per segment, 30 overall, minimum 0.5" in text  # the limits the class predicts with
    at.button(key="ls_step_next").click().run()
    text = "\n".join(m.value for m in at.markdown)
    assert (
        f"Turn 1: best candidate chunks {first.first_chunk}-{first.last_chunk} ({num(first.score)}); bound by:" in text
    )
    assert "taken as S1" in text
    chart = next(
        spec
        for spec in chart_specs(at)
        if "S1 = " in str(spec["layout"].get("annotations")) and spec["layout"]["xaxis"]["range"][1] > 20
    )
    low, high = chart["layout"]["xaxis"]["range"]
    assert 0 < low < first.first_chunk and high > first.last_chunk  # a slice, with the real chunk numbers
    while not at.button(key="ls_step_next").disabled:
        at.button(key="ls_step_next").click().run()
        no_problems(at)
    assert "The search stops:" in "\n".join(m.value for m in at.markdown)


def test_lesson_measures_the_headers_confound_live():
    at = new_app(scorer="minilm").run()  # the lesson's numbers are the offline model's
    open_page(at, "lesson")
    text = "\n".join(m.value for m in at.markdown)
    assert "**83%**" in text and "**19%**" in text and "contextual chunk headers **and** RSE at once" in text
    (table,) = [d.value for d in at.dataframe if "contextual headers" in d.value.columns]
    assert table["query"].tolist() == ["tr-10", "tr-10", "ar-10", "ar-10"]
    ar_off = sample_result("annual_report", AR10, chunk_headers=False)
    values = ar_off.values[0].value
    off_gaps = [i for s in ar_off.segments for i in range(s.start, s.end) if values[i] < 0]
    row = table[(table["query"] == "ar-10") & (table["contextual headers"] == "off")].iloc[0]
    assert row["gaps (value)"] == ", ".join(f"{i} ({num(values[i])})" for i in off_gaps)
    assert table[(table["query"] == "ar-10") & (table["contextual headers"] == "on")].iloc[0]["gaps (value)"] == "none"
    assert "Headers on vs off, measured now: tr-10: RSE recall" in text
    assert "cannot be credited to either one" in text


# --------------------------------------------------------------------------- Worked example: board modes

BOARD_SCORES = [0.02, 0.06, 0.85, 0.97, 0.03, 0.9, 0.6, 0.04, 0.01]  # the classroom's raw-scores example


def by_hand(scores, a=0.4, b=0.4, decay=30.0, penalty=0.2):
    """Each chunk's columns, computed here: beta CDF, rank from 0 (best = 0, ties: earlier chunk),
    exp(-rank / decay), minus the penalty."""
    import math

    from scipy.stats import beta

    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    rank = {chunk: position for position, chunk in enumerate(order)}
    rows = []
    for i, score in enumerate(scores):
        t = float(beta.cdf(score, a, b))
        d = math.exp(-rank[i] / decay)
        rows.append((t, rank[i], d, t * d, t * d - penalty))
    return rows


def worked_mode(mode: str):
    at = new_app().run()
    open_page(at, "worked-example")
    at.radio(key="we_mode").set_value(mode).run()
    no_problems(at)
    return at


def test_board_mode_every_number_matches_a_hand_computation():
    at = worked_mode("board")
    assert at.text_input(key="we_board_scores").value == ", ".join(f"{x:g}" for x in BOARD_SCORES)
    at.slider(key="we_board_reveal").set_value(4).run()
    table = next(d.value for d in at.dataframe if "① score" in d.value.columns)
    expected = by_hand(BOARD_SCORES)
    assert table["rank (best = 0)"].tolist() == [str(r[1]) for r in expected]
    assert table["rank (best = 0)"][3] == "0"  # 0.97, the best score, is rank 0
    for row, (t, _, d, td, value) in zip(table.to_dict("records"), expected, strict=True):
        assert row["② beta.cdf(score)"] == f"{t:.3f}"
        assert row["③ × exp(−rank/decay)"] == f"{t:.3f} × {d:.3f} = {td:.3f}"
        assert row["④ − penalty = value"] == f"{td:.3f} − 0.2 = {value:.3f}"
    # The default example has a gap: chunk 4 (score 0.03) is below zero and kept in chunks 2-6.
    assert expected[4][4] < 0
    text = "\n".join(m.value for m in at.markdown)
    assert "chunks 2-6 (1.88)" in text and "Gaps: chunk 4 (-0.08), paid for by its neighbours" in text
    # Beside the board, a lookup of every one of its scores (a generic table of round scores missed 5 of 9),
    # checked against scipy's beta CDF directly, and the decay of every rank.
    from scipy.stats import beta as beta_distribution

    lookup = next(d.value for d in at.dataframe if "beta.cdf" in d.value.columns)
    looked_up = dict(zip(lookup["score"], lookup["beta.cdf"], strict=True))
    assert sorted(looked_up, key=float) == [f"{x:g}" for x in sorted(set(BOARD_SCORES))]
    for score in BOARD_SCORES:
        assert looked_up[f"{score:g}"] == f"{beta_distribution.cdf(score, 0.4, 0.4):.3f}"
    assert looked_up["0.01"] == "0.094"  # a = b = 0.4 spreads out the ends
    decays = next(d.value for d in at.dataframe if "decay" in d.value.columns and "rank" in d.value.columns)
    assert decays["decay"].tolist() == [f"{math.exp(-rank / 30):.3f}" for rank in range(len(BOARD_SCORES))]


def test_board_stage_numbers_match_the_stage_charts():
    from rse_core.figures.teaching import Stage
    from views.worked_board import COLUMNS

    titles = dict(COLUMNS)
    assert titles["beta"].startswith(Stage.TRANSFORM.label[0]) and Stage.TRANSFORM.label.startswith("②")
    assert titles["decay"].startswith(Stage.DECAY.label[0]) and titles["value"].startswith(Stage.PENALTY.label[0])


def test_board_mode_opens_with_every_column_hidden():
    at = worked_mode("board")
    assert at.slider(key="we_board_reveal").value == 0  # predict, then reveal
    table = next(d.value for d in at.dataframe if "① score" in d.value.columns)
    assert all(set(table[column]) == {"?"} for column in table.columns if column not in ("chunk", "① score"))
    at.slider(key="we_board_reveal").set_value(1).run()
    table = next(d.value for d in at.dataframe if "① score" in d.value.columns)
    assert table["② beta.cdf(score)"].tolist()[0] != "?"
    assert set(table["rank (best = 0)"]) == {"?"} and set(table["④ − penalty = value"]) == {"?"}


def test_table_one_lists_every_run_of_the_five_value_example():
    at = new_app().run()
    open_page(at, "worked-example")
    no_problems(at)
    at.toggle(key="we_reveal").set_value(True).run()  # the best run shows after the reveal
    table = next(d.value for d in at.dataframe if "Run" in d.value.columns)
    values = [-0.2, -0.2, 0.4, 0.8, -0.1]
    expected = [(i, j, sum(values[i : j + 1])) for i in range(5) for j in range(i, 5)]
    assert len(table) == len(expected) == 15
    for row, (i, j, total) in zip(table.to_dict("records"), expected, strict=True):
        assert row["Run"] == f"{i} to {j}" and float(row["Sum"]) == pytest.approx(total)
    whole = table[table["Run"] == "0 to 4"].iloc[0]
    assert float(whole["Sum"]) == pytest.approx(0.7) and "the whole list" in whole["Note"] and whole["Allowed"] == "no"
    best = table[table["Best"] == "best"]
    assert best["Run"].tolist() == ["2 to 3"] and float(best["Sum"].iloc[0]) == pytest.approx(1.2)


def test_round_robin_steps_two_queries_in_turns():
    at = worked_mode("round_robin")
    # The classroom's conflict example (limits 20 / 30 / 0.5), by hand: Q1's best is 0-1 (0.5 + 0.6 = 1.1);
    # Q2's best would be 1-4 (0.2 - 0.1 + 0.7 + 0.6 = 1.4) but chunk 1 is taken, so 3-4 (1.3); Q1 then 6-7 (0.7).
    assert at.number_input(key="we_rr_minimum").value == 0.5
    expected = [(1, 1, "0-1", "1.1"), (2, 2, "3-4", "1.3"), (3, 1, "6-7", "0.7")]
    assert next(d.value for d in at.dataframe if "turn" in d.value.columns).empty  # turn 0: predict first
    at.button(key="we_rr_next").click().run()
    for turn, (number, query, segment, value) in enumerate(expected, 1):
        table = next(d.value for d in at.dataframe if "turn" in d.value.columns)
        row = table.iloc[turn - 1]
        assert (row["turn"], row["query"], row["what"], row["segment"], row["value"]) == (
            number,
            query,
            "pick",
            segment,
            value,
        )
        at.button(key="we_rr_next").click().run()
        no_problems(at)
    table = next(d.value for d in at.dataframe if "turn" in d.value.columns)
    assert table.iloc[3]["what"] != "pick"


def test_evaluate_has_window_rows_per_kind_and_per_query():
    at = new_app().run()
    open_page(at, "evaluate")
    no_problems(at)
    per_query = next(d.value for d in at.dataframe if "window recall" in d.value.columns)
    assert "window, RSE's budget recall" in per_query.columns
    summary = next(spec for spec in chart_specs(at) if any(t.get("name") == "window" for t in spec["data"]))
    kinds = next(t for t in summary["data"] if t.get("name") == "window")["x"]
    assert any(kind.startswith("factoid") for kind in kinds) and any(kind.startswith("all") for kind in kinds)


def test_the_real_document_exercise_uses_the_apps_own_tr10_values():
    """E13's values are frozen from the app (tr-10, defaults, minilm): they must still match a live run."""
    from rse_core.teaching.exercises import TR10_FIRST, TR10_K, TR10_VALUES, exercise_bank

    result = sample_result("tech_report", TR10)
    live = result.values[0].value[TR10_FIRST : TR10_FIRST + len(TR10_VALUES)]
    assert [round(float(v), 2) for v in live] == list(TR10_VALUES)
    rse = {i for s in result.segments for i in range(s.start, s.end)}
    (e13,) = [e for e in exercise_bank() if e.id == "E13"]
    assert set(e13.answer) == rse - set(result.top_k) and len(result.top_k) == TR10_K


def test_one_gap_is_written_in_the_singular_with_its_value():
    """One gap reads as one gap: "1 chunk have ... (chunks 96)" is gone."""
    from rse_core.teaching.lesson_case import cluster_facts
    from views.lesson import cluster_lines

    result = sample_result("annual_report", AR10, chunk_headers=False)
    facts = cluster_facts(result, expected_gold_chunks(result, AR10))
    assert [gap.index for gap in facts.gaps] == [96]
    text = "\n".join(cluster_lines(result, facts))
    assert "**1 gap** in RSE's segments: chunk 96 scores -0.01 on its own" in text
    assert " have " not in text and "(chunks 96)" not in text
