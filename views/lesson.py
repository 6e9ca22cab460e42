"""Lesson: the course's case material beside our own numbers, computed live.

Three things a teacher quotes from the lesson, each next to what this app measures:

1. the gapped cluster of the lesson's Nike 10-K example (quoted), mirrored on the bundled annual
   report's golden query ar-10 (the consolidated statements) at the sidebar's scorer and
   parameters: where the statements are, what RSE keeps, its inner gaps and edge padding, what
   top-k and the fixed window drop;
2. the authors' reported KITE gain, quoted as their claim, beside our measured recall table on
   the three sample golden sets;
3. the context ceiling of the lesson's settings against the current ones.

Numbers from the lesson are constants below, labelled as quoted; every other number is computed
on this run. Widget keys start with ``ls_``.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from app_ui import components, compute, corpora, keys, state
from app_ui.gold import chunk_range
from app_ui.safe_text import md
from app_ui.samples import DEFAULT_SAMPLE, list_samples
from rse_core import ExtractionResult, RSEError
from rse_core.evaluation.golden import GoldenQuery
from rse_core.evaluation.metrics import METHOD_LABELS, summarize
from rse_core.figures.values import value_chart

CASE_QUERY_ID = "ar-10"
LESSON_TOP = 20  # the lesson looks at the 20 best-scored chunks

# Quoted from the lesson (not computed here).
NIKE_RELEVANT, NIKE_TOP = 7, 20
NIKE_STATEMENTS = (323, 333)
NIKE_FIRST_SEGMENT = (323, 336)
KITE_BEFORE, KITE_AFTER, KITE_K = 4.72, 6.73, 20
LESSON_CHUNKS, LESSON_CHUNK_SIZE = 30, 800


def _case() -> tuple[GoldenQuery, object] | None:
    sample = list_samples().get(DEFAULT_SAMPLE)
    if sample is None:
        return None
    query = next((q for q in sample.golden.queries if q.id == CASE_QUERY_ID), None)
    return (query, sample) if query else None


@components.guarded
def render() -> None:
    st.title("Lesson: the gapped cluster, claims and the context ceiling")
    st.caption(
        "What the lesson reports, next to what this app measures on its own sample documents. Quoted numbers are "
        "marked as quoted; every other number is computed now, at the sidebar's scorer and parameters. Chunks are "
        "numbered from 0, ranks count from 0 (best = rank 0)."
    )
    case = _case()
    if case is None:
        st.error("The bundled annual report or its golden query ar-10 is missing.", icon=":material/error:")
        return
    query, sample = case
    inputs = state.read_inputs()
    try:
        document = corpora.sample_document(sample.slug)
        result = compute.result_for([document], [query.query], inputs)
    except RSEError as error:
        st.error(md(error), icon=":material/error:")
        return
    render_cluster(result, query)
    st.divider()
    render_claims(inputs)
    st.divider()
    render_ceiling(result)


# --------------------------------------------------------------------------- 1. the gapped cluster


def render_cluster(result: ExtractionResult, query: GoldenQuery) -> None:
    st.header("1. The gapped cluster")
    left, right = st.columns(2, gap="large")
    with left:
        st.subheader("In the lesson (quoted)")
        st.markdown(
            f"- Nike's 10-K, query about the consolidated financial statements.\n"
            f"- Of the {NIKE_TOP} best-scored chunks, **{NIKE_RELEVANT}** are marked relevant: a *gapped cluster*, "
            "because the number tables between the statement headings score low on their own.\n"
            f"- The statements sit in chunks **{NIKE_STATEMENTS[0]}-{NIKE_STATEMENTS[1]}**.\n"
            f"- RSE's first segment is chunks **{NIKE_FIRST_SEGMENT[0]}-{NIKE_FIRST_SEGMENT[1]}**: the statements "
            f"plus {NIKE_FIRST_SEGMENT[1] - NIKE_STATEMENTS[1]} chunks after them ("
            f"{NIKE_STATEMENTS[1] + 1}-{NIKE_FIRST_SEGMENT[1]}, the lesson's 'bonus chunks').\n"
        )
        st.caption("These numbers are the lesson's, on a document this app does not ship; they are not computed here.")
    with right:
        st.subheader("On the bundled annual report (computed now)")
        facts = cluster_facts(result, query)
        st.markdown("\n".join(f"- {line}" for line in cluster_lines(result, facts)))
    gold = chunk_range(result.corpus, result.corpus.documents[0].doc_id, query.span)
    st.plotly_chart(
        value_chart(result, 0, gold_spans=[(gold[0], gold[1], f"gold {query.id}: the statements")] if gold else ()),
        key=keys.Lesson.CHART,
        config=components.chart_config("lesson-gapped-cluster"),
        theme=None,
        width="stretch",
    )
    st.caption(
        f"Query {html.escape(query.id)}: “{html.escape(query.query)}”. Purple under the bars: the gold span (the "
        "statements); blue bands: RSE's segments; orange triangles: top-k."
    )


@dataclass(frozen=True)
class ClusterFacts:
    """The case's numbers on our document (chunk numbers within the annual report).

    Attributes:
        gold: chunks ``start:end`` of the statements (the gold span of ar-10), or ``None``.
        top: how many best-scored chunks were looked at (the lesson's 20, or fewer).
        top_in_gold: how many of them lie in the statements.
        low_in_gold: statement chunks whose value is below zero (the cluster's gaps).
        rse_missed: statement chunks RSE does not send.
        kept_outside_gold: chunks RSE sends that are not statements.
        top_k_missed: statement chunks top-k does not send.
        window_missed: statement chunks the fixed window (top-k hits ± w) does not send.
        window_outside: chunks the fixed window sends that are not statements.
    """

    gold: tuple[int, int] | None
    top: int
    top_in_gold: int
    low_in_gold: tuple[int, ...]
    rse_missed: tuple[int, ...]
    kept_outside_gold: tuple[int, ...]
    top_k_missed: tuple[int, ...]
    window_missed: tuple[int, ...] = ()
    window_outside: tuple[int, ...] = ()


def cluster_facts(result: ExtractionResult, query: GoldenQuery) -> ClusterFacts:
    corpus = result.corpus
    gold = chunk_range(corpus, corpus.documents[0].doc_id, query.span)
    gold_set = set(range(*gold)) if gold else set()
    top = list(result.ranking[:LESSON_TOP])
    kept = set(result.rse_chunks)
    window = {index for segment in result.window for index in range(segment.start, segment.end)}
    values = result.values[0].value
    return ClusterFacts(
        gold=gold,
        top=len(top),
        top_in_gold=sum(1 for index in top if index in gold_set),
        low_in_gold=tuple(sorted(i for i in gold_set if values[i] < 0)),
        rse_missed=tuple(sorted(gold_set - kept)),
        kept_outside_gold=tuple(sorted(kept - gold_set)),
        top_k_missed=tuple(sorted(gold_set - set(result.top_k))),
        window_missed=tuple(sorted(gold_set - window)),
        window_outside=tuple(sorted(window - gold_set)),
    )


def cluster_lines(result: ExtractionResult, facts: ClusterFacts) -> list[str]:
    """The facts as Markdown bullet lines (numbers only: nothing from the document's text)."""
    k = result.params.top_k
    n = len(result.corpus.chunks)
    lines = []
    if facts.gold:
        first, last = facts.gold[0], facts.gold[1] - 1
        lines.append(f"The statements (gold span of ar-10) sit in chunks **{first}-{last}** of {n}.")
    lines.append(f"Of the {facts.top} best-scored chunks, **{facts.top_in_gold}** lie in the statements.")
    if facts.low_in_gold:
        lines.append(
            f"Inside the statements, {components.plural(len(facts.low_in_gold), 'chunk')} have a value below zero "
            f"(chunks {_list(facts.low_in_gold)}): the gaps of the cluster."
        )
    if result.segments:
        first = result.segments[0]
        lines.append(
            f"RSE's first segment is chunks **{first.first_chunk}-{first.last_chunk}** (worth {first.score:.2f}); "
            f"{components.plural(len(result.segments), 'segment')} in all."
        )
    else:
        lines.append(f"RSE returns nothing here: {result.empty_reason()}")
    lines.append(
        f"RSE leaves out {components.plural(len(facts.rse_missed), 'statement chunk')}"
        + (f" ({_list(facts.rse_missed)})" if facts.rse_missed else "")
        + f" and keeps {components.plural(len(facts.kept_outside_gold), 'chunk')} outside them"
        + (f" ({_list(facts.kept_outside_gold)})." if facts.kept_outside_gold else ".")
    )
    size = facts.gold[1] - facts.gold[0] if facts.gold else 0
    lines.append(f"Top-k (k = {k}) drops {len(facts.top_k_missed)} of the {size} statement chunks.")
    w = result.params.window
    lines.append(
        f"The fixed window (the same {k} hits, ±{w} neighbours) drops {len(facts.window_missed)} of them and sends "
        f"{components.plural(len(facts.window_outside), 'chunk')} outside them: one width for every hit, so it "
        "pads a short answer and cuts a long section."
    )
    return lines


def _list(indices: tuple[int, ...] | list[int]) -> str:
    runs: list[list[int]] = []
    for index in indices:
        if runs and index == runs[-1][1] + 1:
            runs[-1][1] = index
        else:
            runs.append([index, index])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


# --------------------------------------------------------------------------- 2. claims vs measurements


def render_claims(inputs: state.Inputs) -> None:
    st.header("2. A reported gain, and what we measured")
    left, right = st.columns([2, 3], gap="large")
    with left:
        st.subheader("Reported by the RSE authors (quoted)")
        st.markdown(
            f"> On the KITE benchmark the authors report an average score of **{KITE_BEFORE}** with top-k and "
            f"**{KITE_AFTER}** with RSE, at k = {KITE_K} and equal context length."
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
        st.dataframe(
            table,
            key=keys.Lesson.MEASURED,
            hide_index=True,
            height=38 + 35 * len(table),
            column_config={
                "recall": st.column_config.NumberColumn(format="%.2f"),
                "full coverage": st.column_config.NumberColumn(format="%.2f"),
                "characters": st.column_config.NumberColumn(format="%d"),
            },
        )
        sentence = window_sentence(table)
        if sentence:
            st.markdown(sentence)
        st.caption(
            f"Scorer {inputs.scorer}, the sidebar's parameters (preset {st.session_state.get(keys.PRESET)}), "
            f"k = {inputs.params.top_k}. Recall: share of the gold span sent; full coverage: share of queries whose "
            "whole gold span was sent. A different measure, corpus and scorer than KITE: the two are not comparable."
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
    st.header("3. The context ceiling")
    params = result.params
    lesson = LESSON_CHUNKS * LESSON_CHUNK_SIZE
    current = params.overall_max_length * params.chunk_size
    columns = st.columns(3)
    columns[0].metric(
        "Lesson's ceiling (quoted)",
        f"{lesson:,} characters",
        help=f"{LESSON_CHUNKS} chunks overall × {LESSON_CHUNK_SIZE} characters per chunk.",
    )
    columns[1].metric(
        "Current ceiling",
        f"{current:,} characters",
        delta=f"{current - lesson:+,} vs the lesson" if current != lesson else None,
        delta_color="off",
        help="Max chunks overall × chunk size, from the sidebar.",
    )
    columns[2].metric("Sent on ar-10 now", f"{result.rse_characters:,} characters")
    st.markdown(
        f"RSE can never send more than **max chunks overall × chunk size**: {LESSON_CHUNKS} × {LESSON_CHUNK_SIZE} = "
        f"{lesson:,} characters in the lesson, {params.overall_max_length} × {params.chunk_size} = {current:,} now. "
        f"On ar-10 it sent {result.rse_characters:,} characters ({result.rse_characters / current:.0%} of the "
        "current ceiling): a chunk is at most the chunk size, often shorter, so the ceiling is an upper bound."
    )
