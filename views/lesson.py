"""Lesson: the course's case material beside our own numbers, computed live.

What a teacher quotes from the lesson, each next to what this app measures:

1. the gapped cluster of the lesson's Nike 10-K example (quoted), mirrored on the technical
   report's golden query tr-10 (a coolant leak): at the default parameters its answer has chunks
   that score below zero on their own, and RSE keeps them because their neighbours pay;
2. what the search maximises: RSE's greedy turns vs the exact maximum total, on course example 2;
3. the search turn by turn on tr-10, with the constraint that bound each pick;
4. the FinanceBench result, which tested contextual headers and RSE together, and the headers
   toggle's effect measured here;
5. the authors' reported KITE gain, quoted as their claim, beside our measured recall table;
6. the context ceiling of the lesson's settings against the current ones.

Numbers from the lesson are constants below, labelled as quoted; every other number is computed
on this run (:mod:`rse_core.teaching.lesson_case`). Widget keys start with ``ls_``.
"""

from __future__ import annotations

import html

import pandas as pd
import streamlit as st

from app_ui import components, compute, corpora, hotkeys, keys, presenter, state
from app_ui.gold import chunk_range
from app_ui.page_state import lesson as lesson_state
from app_ui.panels.explain_panel import render_explain_panel
from app_ui.safe_text import md
from app_ui.samples import list_samples
from rse_core import ExtractionResult, RSEError
from rse_core.evaluation.golden import GoldenQuery
from rse_core.evaluation.metrics import METHOD_LABELS, summarize
from rse_core.figures.teaching import Band, segment_bands, worked_example_chart
from rse_core.figures.values import value_chart
from rse_core.numerals import num
from rse_core.teaching import StepKind, explain_search
from rse_core.teaching.classroom import EXAMPLES
from rse_core.teaching.course import limits_text, search_limits
from rse_core.teaching.lesson_case import (
    ClusterFacts,
    HeadersRow,
    cluster_facts,
    gap_sentence,
    headers_row,
    runs_text,
)
from rse_core.teaching.objective import explain_objective
from rse_core.teaching.quotes import BONUS_CHUNKS, CEILING, FINANCEBENCH, KITE, NIKE_CASE, Source

K = lesson_state.Keys

CASE_SAMPLE, CASE_QUERY_ID = "tech_report", "tr-10"
"""The live case: the Demo's gapped story, the sample whose answer has gaps at the default parameters."""
STATEMENTS_SAMPLE, STATEMENTS_QUERY_ID = "annual_report", "ar-10"
"""The annual report's consolidated statements: the closest to the lesson's 10-K, no gap at the defaults."""
OBJECTIVE_EXAMPLE = "Course example 2: a gap worth crossing"

# Quoted from the lesson (not computed here).
NIKE_RELEVANT, NIKE_WINDOW = 7, (320, 339)
NIKE_STATEMENTS = (323, 333)
NIKE_FIRST_SEGMENT = (323, 336)
KITE_BEFORE, KITE_AFTER, KITE_K, KITE_QUESTIONS = 4.72, 6.73, 20, 50
FINANCEBENCH_WITH, FINANCEBENCH_WITHOUT = 0.83, 0.19
LESSON_CHUNKS, LESSON_CHUNK_SIZE = 30, 800

SECTIONS = {
    "cluster": "1. Gapped cluster",
    "objective": "2. What is maximised",
    "steps": "3. Search, turn by turn",
    "headers": "4. Headers confound",
    "claims": "5. Reported vs measured",
    "ceiling": "6. Context ceiling",
}


def _golden(sample_slug: str, query_id: str) -> tuple[GoldenQuery, object] | None:
    sample = list_samples().get(sample_slug)
    if sample is None:
        return None
    query = next((q for q in sample.golden.queries if q.id == query_id), None)
    return (query, sample) if query else None


def _case_result(
    sample_slug: str, query_id: str, inputs: state.Inputs, **changes
) -> tuple[ExtractionResult, GoldenQuery]:
    found = _golden(sample_slug, query_id)
    if found is None:
        raise RSEError(f"The sample {sample_slug} or its golden query {query_id} is missing.")
    query, sample = found
    if changes:
        inputs = state.Inputs(
            inputs.samples, inputs.queries, inputs.scorer, inputs.scorer_options, inputs.params.with_changes(**changes)
        )
    document = corpora.sample_document(sample.slug)
    return compute.result_for([document], [query.query], inputs), query


def _gold_chunks(result: ExtractionResult, query: GoldenQuery) -> tuple[int, int] | None:
    return chunk_range(result.corpus, result.corpus.documents[0].doc_id, query.span)


@components.guarded
def render() -> None:
    present = presenter.is_on()
    st.title("Lesson: the gapped cluster, the objective, claims and the ceiling")
    if not present:  # presenter mode labels each figure with its source on the slide itself
        st.caption(
            "What the lesson reports, next to what this app measures on its own sample documents. Quoted numbers are "
            "marked as quoted; every other number is computed now, at the sidebar's scorer and parameters. Chunks are "
            "numbered from 0, ranks count from 0 (best = rank 0)."
        )
    inputs = state.read_inputs()
    try:
        result, query = _case_result(CASE_SAMPLE, CASE_QUERY_ID, inputs)
    except RSEError as error:
        st.error(md(error), icon=":material/error:")
        return
    draw = {
        "cluster": lambda: render_cluster(result, query),
        "objective": render_objective,
        "steps": lambda: render_search_steps(result, query),
        "headers": lambda: render_headers(inputs),
        "claims": lambda: render_claims(inputs),
        "ceiling": lambda: render_ceiling(result),
    }
    if present:
        lesson_state.init_section()
        st.segmented_control(
            "Section",
            list(SECTIONS),
            format_func=SECTIONS.__getitem__,
            key=K.SECTION,
            label_visibility="collapsed",
        )
        draw[lesson_state.read().section]()
        return
    for number, name in enumerate(SECTIONS):
        if number:
            st.divider()
        draw[name]()


# --------------------------------------------------------------------------- 1. the gapped cluster


def render_cluster(result: ExtractionResult, query: GoldenQuery) -> None:
    st.header("1. The gapped cluster")
    facts = cluster_facts(result, _gold_chunks(result, query))
    if presenter.is_on():
        presenter.line(html.escape(_one_line(facts)))
        chart, beside = st.columns([3, 2], gap="medium")
        with chart:
            _cluster_chart(result, query, facts, height=400, zoom=facts.window)
        with beside:
            st.markdown(nike_card())
            presenter.note(
                f"The chart: {CASE_QUERY_ID} on the technical report, chunks {facts.window[0]}-{facts.window[1] - 1} "
                f"(20 by position, as the lesson's 320-339), {Source.MEASURED.value}."
            )
        with st.expander("Explain a chunk"):
            _explain_beside(result, facts)
        return
    left, right = st.columns(2, gap="large")
    with left:
        st.subheader("In the lesson (quoted)")
        st.markdown(nike_card())
        st.caption("These numbers are the lesson's, on a document this app does not ship; they are not computed here.")
    with right:
        st.subheader(f"On the technical report, {CASE_QUERY_ID} (computed now)")
        st.markdown("\n".join(f"- {line}" for line in cluster_lines(result, facts)))
    _cluster_chart(result, query, facts)
    st.markdown(
        "**A gap, as the lesson means it:** a chunk that scores low on its own (its value is below zero, so sent "
        "alone it would cost more than it gives) and that RSE keeps because the chunks on both sides of it pay for "
        "it. " + _parameters_sentence(result)
    )
    st.caption(
        f"Query {html.escape(query.id)}: “{html.escape(query.query)}”. Purple under the bars: the gold span; blue "
        f"bands: RSE's segments; orange triangles: top-k. The annual report's {STATEMENTS_QUERY_ID} (its consolidated "
        "statements, closest to the lesson's 10-K) is the other case: section 4 measures its gaps with contextual "
        "headers on and off."
    )


def nike_card() -> str:
    """The lesson's Nike case as Markdown bullets, each figure with its source."""
    return (
        f"- Nike's 10-K, query about the consolidated financial statements {NIKE_CASE.label}.\n"
        f"- Of the {NIKE_WINDOW[1] - NIKE_WINDOW[0] + 1} chunks **{NIKE_WINDOW[0]}-{NIKE_WINDOW[1]}** "
        f"(by position), **{NIKE_RELEVANT}** are marked relevant: a *gapped cluster*.\n"
        f"- The statements sit in chunks **{NIKE_STATEMENTS[0]}-{NIKE_STATEMENTS[1]}**.\n"
        f"- RSE's first segment is chunks **{NIKE_FIRST_SEGMENT[0]}-{NIKE_FIRST_SEGMENT[1]}**: the statements "
        f"plus {NIKE_FIRST_SEGMENT[1] - NIKE_STATEMENTS[1]} chunks after them "
        f"({NIKE_STATEMENTS[1] + 1}-{NIKE_FIRST_SEGMENT[1]}). Calling them 'bonus chunks' is "
        f"{BONUS_CHUNKS.source.value}.\n"
    )


def _explain_beside(result: ExtractionResult, facts: ClusterFacts) -> None:
    """The explain panel beside the chart (presenter mode): a gap first, any chunk on request."""
    lesson_state.init_explain_chunk(facts.gaps[0].index if facts.gaps else 0)
    st.number_input("Explain chunk", min_value=0, max_value=len(result.corpus.chunks) - 1, step=1, key=K.EXPLAIN_CHUNK)
    render_explain_panel(result, lesson_state.read().explain_chunk or 0)


def _cluster_chart(
    result: ExtractionResult,
    query: GoldenQuery,
    facts: ClusterFacts,
    *,
    height: int = 480,
    zoom: tuple[int, int] | None = None,
) -> None:
    """The value chart with the gold span; ``zoom``: only chunks ``start:end`` (the cluster, not a sliver of the
    whole document)."""
    gold = facts.gold
    figure = value_chart(
        result,
        0,
        gold_spans=[(gold[0], gold[1], f"gold {query.id}: the answer")] if gold else (),
        height=height,
        range_slider=False if zoom else None,
    )
    if zoom:
        figure.update_xaxes(range=[zoom[0] - 0.5, zoom[1] - 0.5])
    st.plotly_chart(
        figure,
        key=K.CHART,
        config=components.chart_config("lesson-gapped-cluster"),
        theme=None,
        width="stretch",
    )


def _one_line(facts: ClusterFacts) -> str:
    if not facts.gaps:
        return f"{CASE_QUERY_ID}: no gap at these parameters; RSE's segments hold no chunk below zero."
    listed = ", ".join(f"{gap.index} ({num(gap.value)})" for gap in facts.gaps)
    return f"{CASE_QUERY_ID}: RSE keeps chunks {listed}: low on their own, paid for by their neighbours."


def _parameters_sentence(result: ExtractionResult) -> str:
    p = result.params
    return (
        f"These gaps appear at penalty {p.irrelevant_chunk_penalty:g}, decay {p.decay_rate:g}, beta a = {p.beta_a:g}, "
        f"b = {p.beta_b:g}, minimum {p.minimum_value:g}, contextual headers {'on' if p.chunk_headers else 'off'} "
        f"(the sidebar's values, scorer {result.scorer})."
    )


def cluster_lines(result: ExtractionResult, facts: ClusterFacts) -> list[str]:
    """The facts as Markdown bullet lines (numbers only: nothing from the document's text)."""
    k = result.params.top_k
    n = len(result.corpus.chunks)
    lines = []
    first_window, end_window = facts.window
    lines.append(
        f"Of the {end_window - first_window} chunks **{first_window}-{end_window - 1}** (by position, from "
        f"{min(3, (facts.gold or (0,))[0])} before the answer, as the lesson's 320-339), **{facts.window_positive}** "
        "score above zero on their own."
    )
    if facts.gold:
        lines.append(
            f"The answer (gold span of {CASE_QUERY_ID}) sits in chunks **{facts.gold[0]}-{facts.gold[1] - 1}** of {n}."
        )
    if facts.gaps:
        lines.append(
            f"**{components.plural(len(facts.gaps), 'gap')}** in RSE's segments: "
            + "; ".join(gap_sentence(gap) for gap in facts.gaps)
            + "."
        )
    else:
        lines.append("RSE's segments hold no gap at these parameters (no chunk below zero inside a segment).")
    if result.segments:
        first = result.segments[0]
        lines.append(
            f"RSE's first segment is chunks **{first.first_chunk}-{first.last_chunk}** (worth {first.score:.2f}); "
            f"{components.plural(len(result.segments), 'segment')} in all."
        )
    else:
        lines.append(f"RSE returns nothing here: {result.empty_reason()}")
    missed = len(facts.rse_missed)
    lines.append(
        f"RSE leaves out {components.plural(missed, 'answer chunk')}"
        + (f" ({runs_text(facts.rse_missed)})" if facts.rse_missed else "")
        + f" and keeps {components.plural(len(facts.kept_outside_gold), 'chunk')} outside the answer"
        + (f" ({runs_text(facts.kept_outside_gold)})." if facts.kept_outside_gold else ".")
    )
    size = facts.gold[1] - facts.gold[0] if facts.gold else 0
    dropped_gaps = [gap.index for gap in facts.gaps if gap.index not in result.top_k]
    lines.append(
        f"Top-k (k = {k}) drops {len(facts.top_k_missed)} of the {size} answer chunks"
        + (
            f" and every gap ({runs_text(dropped_gaps)})"
            if dropped_gaps and len(dropped_gaps) == len(facts.gaps)
            else ""
        )
        + "."
    )
    w = result.params.window
    lines.append(
        f"The fixed window (the same {k} hits, ±{w} neighbours) drops {len(facts.window_missed)} of them and sends "
        f"{components.plural(len(facts.window_outside), 'chunk')} outside them: one width for every hit, so it "
        "pads a short answer and cuts a long section."
    )
    return lines


# --------------------------------------------------------------------------- 2. the objective


def render_objective() -> None:
    st.header("2. What the search maximises, and why the optimum splits a gap")
    example = EXAMPLES[OBJECTIVE_EXAMPLE]
    objective = explain_objective(example.values, **example.limits)
    if presenter.is_on():
        presenter.line(html.escape(objective.headline))
    else:
        st.markdown(f"Course example 2, values {example.text} (minimum {num(example.minimum_value)}):")
        st.markdown("\n".join(f"- {line}" for line in objective.lines))
    left, right = st.columns(2, gap="large")
    optimal = [Band(s.start, s.end, f"O{i}", float(s.score)) for i, s in enumerate(objective.optimal, 1)]
    for column, title, bands, key in (
        (
            left,
            f"RSE's greedy: {num(objective.greedy_total)}",
            segment_bands(list(objective.greedy)),
            K.OBJECTIVE_CHART,
        ),
        (right, f"Exact maximum total: {num(objective.optimal_total)}", optimal, K.OBJECTIVE_CHART + "_opt"),
    ):
        with column:
            st.plotly_chart(
                worked_example_chart(example.values, bands, height=330, title=html.escape(title, quote=False)),
                key=key,
                theme=None,
                config={"displaylogo": False, "displayModeBar": False},
            )
    if presenter.is_on():
        st.markdown(objective.lines[-1])


# --------------------------------------------------------------------------- 3. the search turn by turn


def render_search_steps(result: ExtractionResult, query: GoldenQuery) -> None:
    st.header(f"3. The search, turn by turn, on {CASE_QUERY_ID}")
    p = result.params
    values = result.values[0].value
    steps = explain_search(
        values,
        max_length=p.max_length,
        overall_max_length=p.overall_max_length,
        minimum_value=p.minimum_value,
        document_splits=result.corpus.document_splits,
    )
    hotkeys.step_keys(K.HOTKEYS, K.STEP, 0, len(steps), default=0)
    current = components.stepper(len(steps), K.STEP, noun="turn", button_key=K.STEP_NEXT, first=0)
    entry = steps[current - 1] if current else None  # turn 0: the class predicts, nothing is drawn yet
    picks = [step for step in steps[:current] if step.kind is StepKind.PICK]
    bands = segment_bands(
        [step.segment for step in picks],
        current=len(picks) - 1 if entry is not None and entry.kind is StepKind.PICK else None,
    )
    if entry is not None and entry.kind is not StepKind.PICK and entry.segment is not None:
        bands.append(Band(entry.segment.start, entry.segment.end, "refused", float(entry.segment.score), refused=True))
    line = _turn_line(entry, limits_text(search_limits(p)))
    shown = [i for band in bands for i in (band.start, band.end - 1)]
    gold = _gold_chunks(result, query)
    if gold:
        shown += [gold[0], gold[1] - 1]
    first = max(0, min(shown) - 3) if shown else 0
    last = min(len(values), max(shown) + 4) if shown else len(values)
    if last - first > 40:
        first, last = 0, len(values)
    if presenter.is_on():
        presenter.line(html.escape(line))
    chart, text = st.columns([3, 2], gap="medium") if not presenter.is_on() else (st.container(), None)
    with chart:
        st.plotly_chart(
            worked_example_chart(values[first:last], bands, height=400, first=first),
            key=K.STEP_CHART,
            theme=None,
            config={"displaylogo": False, "displayModeBar": False},
        )
    if text is not None:
        with text:
            st.markdown(f"**{html.escape(line)}**")
            if entry is not None:
                st.markdown(md(entry.message))
            st.caption("Arrow keys, space and PageDown step through the turns (click the page first).")


def _turn_line(entry, limits: str = "") -> str:
    if entry is None:
        return f"Turn 0: predict the first pick and the limit that binds it ({limits}). Press → to see."
    if entry.kind is StepKind.PICK:
        return (
            f"Turn {entry.number}: best candidate chunks {entry.segment.start}-{entry.segment.end - 1} "
            f"({num(float(entry.segment.score))}); bound by: {entry.constraint_note}; taken as {entry.label}."
        )
    if entry.kind is StepKind.RETIRE:
        return f"Turn {entry.number}: no pick. {entry.message}"
    return f"The search stops: {entry.message}"


# --------------------------------------------------------------------------- 4. the headers confound


def render_headers(inputs: state.Inputs) -> None:
    st.header("4. FinanceBench: contextual headers and RSE, tested together")
    rows: list[HeadersRow] = []
    try:
        with st.spinner("Scoring with and without contextual headers..."):
            for slug, query_id in ((CASE_SAMPLE, CASE_QUERY_ID), (STATEMENTS_SAMPLE, STATEMENTS_QUERY_ID)):
                for headers in (True, False):
                    result, query = _case_result(slug, query_id, inputs, chunk_headers=headers)
                    rows.append(headers_row(query_id, result, query.span))
    except RSEError as error:
        st.error(md(error), icon=":material/error:")
        return
    if presenter.is_on():
        presenter.line(
            f"FinanceBench: {FINANCEBENCH_WITH:.0%} vs {FINANCEBENCH_WITHOUT:.0%} with headers and RSE changed at "
            f"once {FINANCEBENCH.label}. The headers alone, measured now:"
        )
    else:
        st.markdown(
            f"> On FinanceBench the authors' system answered **{FINANCEBENCH_WITH:.0%}** of "
            f"the questions correctly, against **{FINANCEBENCH_WITHOUT:.0%}** for a baseline; that system used "
            f"contextual chunk headers **and** RSE at once. {FINANCEBENCH.label}"
        )
        st.warning(
            "Two changes were tested together, so the gain cannot be split between them: a confound. The headers "
            "toggle in the sidebar changes only the headers; below, its effect is measured with RSE and top-k, "
            "on two golden queries, at the other current parameters.",
            icon=":material/warning:",
        )
    st.dataframe(
        headers_table(rows),
        key=K.HEADERS_TABLE,
        hide_index=True,
        column_config={
            "RSE recall": st.column_config.NumberColumn(format="%.2f"),
            "top-k recall": st.column_config.NumberColumn(format="%.2f"),
        },
    )
    st.markdown(headers_line(rows))


def headers_table(rows: list[HeadersRow]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "query": row.case,
                "contextual headers": "on" if row.headers else "off",
                "RSE recall": row.rse_recall,
                "top-k recall": row.top_k_recall,
                "RSE characters": row.rse_characters,
                "gaps (value)": ", ".join(f"{gap.index} ({num(gap.value)})" for gap in row.gaps) or "none",
            }
            for row in rows
        ]
    )


def headers_line(rows: list[HeadersRow]) -> str:
    """One sentence: what switching the headers off changes, per query (numbers only)."""
    parts = []
    for on, off in zip(rows[::2], rows[1::2], strict=True):
        parts.append(
            f"{on.case}: RSE recall {on.rse_recall:.0%} with headers, {off.rse_recall:.0%} without; top-k "
            f"{on.top_k_recall:.0%} and {off.top_k_recall:.0%}; gaps {len(on.gaps)} and {len(off.gaps)}"
        )
    pairs = list(zip(rows[::2], rows[1::2], strict=True))
    rse_move = max((abs(on.rse_recall - off.rse_recall) for on, off in pairs), default=0.0)
    top_k_move = max((abs(on.top_k_recall - off.top_k_recall) for on, off in pairs), default=0.0)
    moved = "top-k's recall more than RSE's" if top_k_move > rse_move else "RSE's recall at least as much as top-k's"
    return (
        "Headers on vs off, measured now: "
        + "; ".join(parts)
        + f". Here the headers alone move {moved}: a gain measured with both changed at once cannot be credited "
        "to either one."
    )


# --------------------------------------------------------------------------- 2. claims vs measurements


def render_claims(inputs: state.Inputs) -> None:
    st.header("5. A reported gain, and what we measured")
    if presenter.is_on():
        _claims_presenting(inputs)
        return
    left, right = st.columns([2, 3], gap="large")
    with left:
        st.subheader("Reported by the RSE authors (quoted)")
        st.markdown(
            f"> On the KITE benchmark the authors report an average score of **{KITE_BEFORE}** with top-k and "
            f"**{KITE_AFTER}** with RSE, at k = {KITE_K} and roughly equal context length. The scores are an LLM's "
            f"grades from 0 to 10 of the answers to {KITE_QUESTIONS} questions. {KITE.label}"
        )
        st.warning(
            "This is the authors' claim. We did not run KITE, so this app cannot confirm it. The lesson's pitfall: "
            "quoting a benchmark you did not run as if it were your own result. Say *the authors report*, and "
            "show your own measurement beside it.",
            icon=":material/warning:",
        )
    with right:
        st.subheader("Measured here (the three sample golden sets)")
        table = measured_table(inputs)
        if table is None:
            return
        _measured_dataframe(table)
        sentence = window_sentence(table)
        if sentence:
            st.markdown(sentence)
        st.caption(
            f"Scorer {inputs.scorer}, the sidebar's parameters (preset {st.session_state.get(keys.PRESET)}), "
            f"k = {inputs.params.top_k}. Recall: share of the gold span sent; full coverage: share of queries whose "
            "whole gold span was sent. A different measure, corpus and scorer than KITE: the two are not comparable."
        )


def _claims_presenting(inputs: state.Inputs) -> None:
    """Presenter mode: the claim in one line with its source, the measurement beside the pitfall."""
    presenter.line(
        f"KITE: {KITE_BEFORE} with top-k, {KITE_AFTER} with RSE (k = {KITE_K}, an LLM's 0-10 grades on "
        f"{KITE_QUESTIONS} questions) {KITE.label}. We did not run KITE."
    )
    table = measured_table(inputs)
    if table is None:
        return
    left, right = st.columns([3, 2], gap="medium")
    with left:  # the three methods the lesson compares; the budget-matched rows are in the normal layout
        shown = table[table["method"].isin([METHOD_LABELS[m] for m in ("rse", "top_k", "window")])]
        _measured_dataframe(shown, row_height=27)
    with right:
        st.markdown(f"**Measured here** ({Source.MEASURED.value}, scorer {inputs.scorer}, k = {inputs.params.top_k}):")
        sentence = window_sentence(table)
        if sentence:
            st.markdown(sentence)
        presenter.note(
            "The pitfall: quoting a benchmark you did not run as your own result. Say 'the authors report', and show "
            "your own measurement beside it. Different measure, corpus and scorer: not comparable with KITE."
        )


def _measured_dataframe(table: pd.DataFrame, *, row_height: int = 35) -> None:
    st.dataframe(
        table,
        key=K.MEASURED,
        hide_index=True,
        height=38 + row_height * len(table),
        row_height=row_height,
        column_config={
            "recall": st.column_config.NumberColumn(format="%.2f"),
            "full coverage": st.column_config.NumberColumn(format="%.2f"),
            "characters": st.column_config.NumberColumn(format="%d"),
        },
    )


def measured_table(inputs: state.Inputs) -> pd.DataFrame | None:
    """Recall, full coverage and characters per kind and method, pooled over the sample golden sets."""
    evaluations = []
    try:
        with st.spinner("Evaluating the sample golden sets..."):
            for sample in list_samples().values():
                document = corpora.sample_document(sample.slug)
                evaluations.append(compute.evaluation_for(sample.golden, document, inputs))
    except RSEError as error:
        st.error(md(error), icon=":material/error:")
        return None
    rows = summarize([q for evaluation in evaluations for q in evaluation.queries])
    return pd.DataFrame(
        [
            {
                "kind": f"{row['kind']} ({row['queries']})",
                "method": METHOD_LABELS.get(str(row["method"]), str(row["method"])),
                "recall": row["recall"],
                "full coverage": row["covered"],
                "characters": round(float(row["characters"])),
            }
            for row in rows
        ]
    )


def window_sentence(table: pd.DataFrame) -> str:
    """The lesson's point about the fixed window, as measured here: what it sends on factoid
    queries and how much of a broad answer it covers, next to RSE (numbers only)."""

    def cell(kind: str, method: str, column: str) -> float | None:
        rows = table[table["kind"].str.startswith(kind) & (table["method"] == METHOD_LABELS[method])]
        return float(rows[column].iloc[0]) if len(rows) else None

    factoid = [cell("factoid", m, "characters") for m in ("window", "rse")]
    broad = [cell("broad", m, "recall") for m in ("window", "rse")]
    if None in factoid or None in broad:
        return ""
    return (
        f"**The fixed window, measured:** on factoid queries it sent {factoid[0]:,.0f} characters on average "
        f"(RSE {factoid[1]:,.0f}); on broad queries it covered {broad[0]:.0%} of the gold span on average "
        f"(RSE {broad[1]:.0%}). The lesson's point is that one width serves neither: it pads short answers and "
        "cuts long sections."
    )


# --------------------------------------------------------------------------- 3. the context ceiling


def render_ceiling(result: ExtractionResult) -> None:
    st.header("6. The context ceiling")
    params = result.params
    lesson = LESSON_CHUNKS * LESSON_CHUNK_SIZE
    current = params.overall_max_length * params.chunk_size
    columns = st.columns(3)
    columns[0].metric(
        "Lesson's ceiling (quoted)",
        f"{lesson:,} characters",
        help=f"{LESSON_CHUNKS} chunks overall × {LESSON_CHUNK_SIZE} characters per chunk {CEILING.label}.",
    )
    columns[1].metric(
        "Current ceiling",
        f"{current:,} characters",
        delta=f"{current - lesson:+,} vs the lesson" if current != lesson else None,
        delta_color="off",
        help="Max chunks overall × chunk size, from the sidebar.",
    )
    columns[2].metric(f"Sent on {CASE_QUERY_ID} now", f"{result.rse_characters:,} characters")
    st.markdown(
        f"RSE can never send more than **max chunks overall × chunk size**: {LESSON_CHUNKS} × {LESSON_CHUNK_SIZE} = "
        f"{lesson:,} characters in the lesson, {params.overall_max_length} × {params.chunk_size} = {current:,} now. "
        f"On {CASE_QUERY_ID} it sent {result.rse_characters:,} characters "
        f"({result.rse_characters / current:.0%} of the current ceiling): a chunk is at most the chunk size, "
        "often shorter, so the ceiling is an upper bound."
    )
