"""Evaluate: RSE vs top-k on a golden set, per query and per query kind, at the sidebar's settings.

The page picks a golden set (a sample's, an uploaded one, or one built here), evaluates it from
the app's cached scores (``compute.evaluation_for``: the numbers equal the CLI's), and draws a
table per query and a grouped bar chart per kind. A row opens Explore on that query. Below, the
user marks a gold span (by selecting text, by dragging across the PDF's page, or by picking chunks),
types the queries it answers and collects them into a golden set to download.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd
import streamlit as st

from app_ui import (
    components,
    compute,
    corpora,
    keys,
    messages,
    run_state,
    state,
    widgets,
)
from app_ui.page_state import evaluate as evaluate_state
from app_ui.page_state import explore as explore_state
from app_ui.page_state.evaluate import SPAN_CHUNKS, SPAN_PAGE, SPAN_SELECTED
from app_ui.panels.judge_panel import render_judge_panel
from app_ui.panels.page_select_panel import render_page_selection
from app_ui.safe_text import md
from app_ui.samples import SAMPLE_DIR, list_samples
from app_ui.text_select import select_text, span_from_value
from rse_core import Document
from rse_core.evaluation.golden import QUERY_KINDS, GoldenSet, GoldenSetError, parse_golden_json
from rse_core.evaluation.metrics import METHOD_LABELS, METHODS
from rse_core.evaluation.runs import Evaluation
from rse_core.evaluation.sets import corpus_missing_message
from rse_core.figures.evaluation import summary_figure
from views.chunk_size import render_study
from views.evaluate_budget import render_budget
from views.evaluate_kb import render_kb_evaluation

K = evaluate_state.Keys

# Column widths (px) of the per-query table: it fits beside the sidebar in a 1,440 px window.
ID_WIDTH, KIND_WIDTH, QUERY_WIDTH = 50, 60, 240
HEADER_CHAR_PX, HEADER_PADDING_PX = 8, 28  # a header's width: its characters and the sort icon
RECALL, CHARACTERS = "recall", "chars"
TABLE_METRICS = {  # what the method columns show: (label, number format, help)
    RECALL: ("Recall", "%.2f", "share of the gold span sent"),
    CHARACTERS: ("Characters sent", "%d", "characters of document text sent"),
}

SOURCES = {
    "sample": "Sample golden set",
    "external": "External set",
    "upload": "Upload a golden set",
    evaluate_state.BUILT_SOURCE: "My golden set",
}
FORMAT_FILE = SAMPLE_DIR / "FORMAT.md"
SPAN_SOURCES = {SPAN_SELECTED: "Selected text", SPAN_PAGE: "On the page", SPAN_CHUNKS: "Whole chunks"}
LOGGER = logging.getLogger(__name__)


@components.guarded
def render() -> None:
    st.title("Evaluate")
    st.caption(
        "How much of each gold answer RSE and top-k send, and how much of what they send is gold, "
        "on a golden set of queries with known answers. Scorer and parameters come from the sidebar."
    )
    outcome = run_state.current_outcome()
    widgets.show_messages(outcome)
    if evaluate_state.read().arrived_to_mark:
        st.info(
            "The span you selected on the page view is in **Make a golden set** below: type the queries it answers.",
            icon=":material/arrow_downward:",
        )
    inputs = state.read_inputs()
    documents = corpora.documents_of(inputs)
    chosen = _choose_golden_set(inputs, documents)
    if chosen is not None:
        golden, document, slug = chosen
        try:
            with st.spinner(f"Scoring {len(golden.queries)} queries with {inputs.scorer}..."):
                evaluation = compute.evaluation_for(golden, document, inputs)
        except Exception as error:  # RSEError, or anything a scorer raises: one line, never a traceback
            st.error(md(messages.failure_message(error, inputs.scorer)), icon=":material/error:")
        else:
            _render_results(evaluation, inputs, slug)
            st.divider()
            render_budget(golden, document, inputs)
            render_study(golden, inputs)
            render_judge_panel(evaluation)
    st.divider()
    render_kb_evaluation()
    st.divider()
    _render_marking(inputs, documents, outcome)


# ------------------------------------------------------------------------------- golden set


def _choose_golden_set(
    inputs: state.Inputs, documents: list[Document]
) -> tuple[GoldenSet, Document, str | None] | None:
    """The source picker; returns (golden set, its document, sample slug, "" or None) or None.

    The slug is None for the external set: its documents are not the sidebar's, so Explore
    cannot show them.
    """
    samples = list_samples()
    active_samples = [slug for slug in inputs.samples if slug in samples]
    built = evaluate_state.read().built
    external = corpus_missing_message() is None
    options = [
        *(["sample"] if active_samples else []),
        *(["external"] if external else []),
        "upload",
        *([evaluate_state.BUILT_SOURCE] if built else []),
    ]
    state.keep_choice(K.SOURCE, options, options[0])
    source = st.radio("Golden set", options, format_func=SOURCES.__getitem__, key=K.SOURCE, horizontal=True)
    _render_format_help()
    if source == "sample":
        golden = _choose_sample_set(active_samples)
    elif source == "external":
        return _choose_external()
    elif source == "upload":
        golden = _uploaded_set(active_samples)
        if golden is None:
            return None
    else:
        golden = built
    return _with_document(golden, documents, active_samples)


def _choose_sample_set(active_samples: list[str]) -> GoldenSet:
    """The golden set of one of the sidebar's active samples."""
    samples = list_samples()
    state.keep_choice(K.SAMPLE, active_samples, active_samples[0])
    slug = st.selectbox(
        "Sample document",
        active_samples,
        format_func=lambda s: f"{samples[s].label} ({len(samples[s].golden.queries)} queries)",
        key=K.SAMPLE,
        help="The golden sets of the sample documents active in the sidebar.",
    )
    return samples[slug].golden


def _uploaded_set(active_samples: list[str]) -> GoldenSet | None:
    """A golden set from an uploaded JSON file; ``None`` (with the reason shown) if there is none."""
    if not active_samples:
        st.caption("No sample document is active; pick one in the sidebar to use its golden set.")
    upload = st.file_uploader(
        "Golden-set JSON",
        type=["json"],
        key=K.UPLOAD,
        help="Its 'document' must be the file name of an active document (a sample or an upload).",
    )
    if upload is None:
        return None
    try:
        golden = parse_golden_json(upload.getvalue(), corpora.shown_name(upload))
    except GoldenSetError as error:
        st.error(md(error), icon=":material/error:")
        return None
    except Exception as error:  # whatever a hostile file makes the parser raise: one line
        LOGGER.exception("reading a golden-set upload failed")
        st.error(
            f"Could not read {md(corpora.shown_name(upload))} as a golden set "
            f"({type(error).__name__}: {md(error, 200)}). "
            "Check it against the format below.",
            icon=":material/error:",
        )
        return None
    return golden


def _with_document(
    golden: GoldenSet, documents: list[Document], active_samples: list[str]
) -> tuple[GoldenSet, Document, str] | None:
    """``golden`` with its active document and sample slug ("" for an upload); ``None`` (with an
    error shown) when its document is not active."""
    samples = list_samples()
    by_name = {Path(document.name).name: document for document in documents}
    document = by_name.get(golden.document_name)
    if document is None:
        active = ", ".join(sorted(by_name)) or "none"
        st.error(
            md(
                f"This golden set is for {golden.document_name}, which is not an active document "
                f"(active: {active}). Pick that sample or upload that file in the sidebar."
            ),
            icon=":material/error:",
        )
        return None
    slug = next((s for s in active_samples if samples[s].path.name == golden.document_name), "")
    return golden, document, slug


def _choose_external() -> tuple[GoldenSet, Document, None] | None:
    """A golden set of the external set and its third-party document (loaded from ../shared/corpus)."""
    try:
        sets = corpora.external_golden_sets()
        names = list(sets)
        state.keep_choice(K.EXTERNAL, names, names[0])
        name = st.selectbox(
            "Third-party document",
            names,
            format_func=lambda n: f"{n} ({len(sets[n].queries)} queries)",
            key=K.EXTERNAL,
            help="Golden sets written for documents nobody here wrote (eval_sets/external/); the first "
            "evaluation of a document embeds it.",
        )
        with st.spinner(f"Loading {name}..."):
            document = corpora.external_document(name)
    except Exception as error:  # RSEError, or anything reading a third-party file raises: one line
        st.error(md(messages.failure_message(error, "loader")), icon=":material/error:")
        return None
    return sets[name], document, None


def _render_format_help() -> None:
    with st.expander("Golden-set format (rse-golden/1)", icon=":material/description:"):
        try:
            text = FORMAT_FILE.read_text(encoding="utf-8")
            st.markdown(text[text.index("## Golden sets") :].replace("## Golden sets", "", 1))
        except (OSError, ValueError):
            st.write("A JSON object with 'schema', 'document' and a list of 'queries'.")
        st.caption("From sample_docs/FORMAT.md. The sample golden sets in sample_docs/ follow it.")


# ---------------------------------------------------------------------------------- results


def query_table(evaluation: Evaluation) -> pd.DataFrame:
    """One row per query: id, kind, query, then recall / precision / covered / characters per method."""
    rows = []
    for query in evaluation.queries:
        row: dict[str, object] = {"id": query.id, "kind": query.kind, "query": query.query}
        for method in METHODS:
            score, label = query.scores[method], METHOD_LABELS[method]
            row[f"{label} recall"] = score.recall
            row[f"{label} precision"] = score.precision
            row[f"{label} covered"] = score.covered
            row[f"{label} chars"] = score.characters
        rows.append(row)
    return pd.DataFrame(rows)


def _render_results(evaluation: Evaluation, inputs: state.Inputs, slug: str | None) -> None:
    params = inputs.params
    st.caption(
        f"{len(evaluation.queries)} queries on {md(evaluation.golden.document_name)} - scorer "
        f"{md(evaluation.scorer)}, preset {md(st.session_state.get(keys.PRESET, ''))}, "
        f"chunk size {params.chunk_size}, top-k {params.top_k}. Recall: share of the gold span sent; "
        "precision: share of what is sent that is gold; covered: the whole gold span was sent."
    )
    st.subheader("Per query kind")
    st.plotly_chart(summary_figure(evaluation), key=K.CHART, config={"displayModeBar": False})

    st.subheader("Per query")
    table = query_table(evaluation)
    ids = [query.id for query in evaluation.queries]
    metric = st.segmented_control(
        "Per method, show",
        tuple(TABLE_METRICS),
        format_func=lambda name: TABLE_METRICS[name][0],
        key=K.TABLE_METRIC,
        default=RECALL,
    )
    columns = per_query_columns(metric or RECALL)
    st.dataframe(
        table,
        hide_index=True,
        column_config=columns,
        column_order=list(columns),
        key=K.TABLE,
        on_select=lambda: evaluate_state.on_row_selected(ids),
        selection_mode="single-row",
        height=min(38 + 35 * len(ids), 600),  # every row visible up to ~16 queries
    )
    csv_column, json_column, _ = st.columns([1, 1, 2])
    stem = Path(evaluation.golden.document_name).stem
    _download(csv_column, "Download results (CSV)", evaluation.to_csv(), f"{stem}.evaluation.csv", K.DOWNLOAD_CSV)
    _download(json_column, "Download results (JSON)", evaluation.to_json(), f"{stem}.evaluation.json", K.DOWNLOAD_JSON)
    _render_open_query(evaluation, ids, slug)


def _download(column, label: str, data: str, file_name: str, key: str) -> None:
    """A download button for a CSV or JSON file."""
    mime = "text/csv" if file_name.endswith(".csv") else "application/json"
    column.download_button(label, data, file_name=file_name, mime=mime, key=key, icon=":material/download:")


def header_width(label: str) -> int:
    """Pixels a column needs to show its whole header (headers are never cut: "budget re")."""
    return HEADER_CHAR_PX * len(label) + HEADER_PADDING_PX


def per_query_columns(metric: str) -> dict[str, object]:
    """The per-query table's columns: id, kind, query, then one column per method for ``metric``.

    One metric at a time keeps every header whole and the table within a 1,440 px window beside
    the sidebar; precision and full coverage are in the CSV and the JSON, and per kind in the chart.
    """
    name, number_format, help_text = TABLE_METRICS[metric]
    columns: dict[str, object] = {
        "id": st.column_config.TextColumn("id", width=ID_WIDTH, pinned=True),
        "kind": st.column_config.TextColumn("kind", width=max(KIND_WIDTH, header_width("kind"))),
        "query": st.column_config.TextColumn("query", width=QUERY_WIDTH),
    }
    for method in METHODS:
        label = METHOD_LABELS[method]
        columns[f"{label} {metric}"] = st.column_config.NumberColumn(
            label, format=number_format, width=header_width(label), help=f"{label}: {name.lower()}, {help_text}"
        )
    return columns


def _render_open_query(evaluation: Evaluation, ids: list[str], slug: str | None) -> None:
    """Pick a query (or click its row): what each method sent, and a button to Explore it."""
    st.subheader("One query")
    by_id = {query.id: query for query in evaluation.queries}
    state.keep_choice(K.OPEN, by_id, ids[0])
    query_id = st.selectbox(
        "Query (or click a row of the table)",
        ids,
        format_func=lambda i: f"{i} ({by_id[i].kind}): {by_id[i].query}",
        key=K.OPEN,
    )
    query = by_id[query_id]
    gold_chunks = evaluation.gold_chunks(query)
    gold = f"characters {query.gold[0]}-{query.gold[1]}"
    if gold_chunks:
        gold += (
            f", chunk {gold_chunks[0]}"
            if gold_chunks[0] == gold_chunks[1]
            else f", chunks {gold_chunks[0]}-{gold_chunks[1]}"
        )
    segments = (
        ", ".join(
            f"{segment.label} chunks {segment.first_chunk}-{segment.last_chunk} "
            f"({segment.end_char - segment.start_char} characters)"
            for segment in query.segments
        )
        or "no segment"
    )
    lines = [
        f"- **Gold span:** {gold}",
        f"- **RSE:** {segments}",
        f"- **top-k:** chunks {', '.join(map(str, evaluation.chunk_numbers(query.top_k))) or 'none'}",
        f"- **top-k at RSE's budget:** chunks "
        f"{', '.join(map(str, evaluation.chunk_numbers(query.top_k_equal_budget))) or 'none'}",
    ]
    st.markdown("\n".join(lines))
    if slug is None:
        st.caption("This document is not one of the sidebar's, so it cannot be opened in Explore.")
        return
    where = "this sample alone" if slug else f"{md(evaluation.golden.document_name)} with no sample documents"
    st.button(
        "Open in Explore",
        key=K.OPEN_EXPLORE,
        icon=":material/bar_chart:",
        on_click=evaluate_state.open_in_explore,
        args=(query.query, slug),
        help=f"Sets the sidebar query to this one and the documents to {where}, "
        "so Explore shows what this row measured.",
    )


# ------------------------------------------------------------------------------ gold marking


def _render_marking(inputs: state.Inputs, documents: list[Document], outcome: run_state.RunOutcome) -> None:
    """Make a golden set: select the answer's text (or pick chunks), type the queries it answers."""
    st.subheader("Make a golden set: select the answer, type its queries")
    message = evaluate_state.take_mark_message()
    if message:
        level, text = message
        (st.success if level == "success" else st.error)(md(text))
    if not documents:
        st.info("Pick a sample document or upload one in the sidebar to mark spans in it.")
        _render_built_set()
        return
    names = [document.name for document in documents]
    built = evaluate_state.read().built
    state.keep_choice(K.MARK_DOC, names, built.document if built and built.document in names else names[0])
    name = st.selectbox("Document", names, key=K.MARK_DOC)
    document = documents[names.index(name)]
    corpus = corpora.corpus_of((document,), inputs.params.chunk_size, inputs.params.chunk_headers)
    source = st.segmented_control(
        "The gold span",
        tuple(SPAN_SOURCES),
        format_func=SPAN_SOURCES.__getitem__,
        key=K.SPAN_SOURCE,
        default=SPAN_SELECTED,
    )
    if source == SPAN_CHUNKS:
        span = _picked_chunks_span(corpus.chunks, document, outcome)
    elif source == SPAN_PAGE:
        span = render_page_selection(document, outcome.result)
    else:
        span = _selected_span(document, outcome.result)
    _render_span_form(document, span, inputs.queries[0])
    _render_built_set()


def _selected_span(document: Document, result) -> tuple[int, int] | None:
    """The text box to select in (the whole document, or one of the result's segments) and its selection."""
    pieces = {"document": (0, len(document.text), "the whole document")}
    for segment in result.segments if result is not None else ():
        if segment.doc_id == document.doc_id:
            pieces[segment.label] = (segment.start_char, segment.end_char, f"segment {segment.label} of the result")
    state.keep_choice(K.SELECT_WHERE, list(pieces), "document")
    where = st.selectbox("Select in", list(pieces), format_func=lambda key: pieces[key][2], key=K.SELECT_WHERE)
    start, end, _ = pieces[where]
    st.caption("Select the answer's text with the mouse (or Shift + arrows); the selection is the gold span.")
    value = select_text(document.text[start:end], key=K.SELECT_TEXT, offset=start)
    span = span_from_value(value, len(document.text))
    return None if span is None else (span.start, span.end)


def _picked_chunks_span(chunks, document: Document, outcome: run_state.RunOutcome) -> tuple[int, int] | None:
    """Whole chunks as the span: from the first picked chunk to the last."""
    evaluate_state.keep_picked_chunks(len(chunks))
    clicked = explore_state.clicked_chunk_in(outcome.result, document)
    if clicked is not None:
        st.button(
            f"Add chunk {clicked} (clicked on Explore)",
            key=K.ADD_CLICKED,
            on_click=evaluate_state.add_chunk,
            args=(clicked,),
        )
    selected = st.multiselect(
        "Chunks that hold the answer",
        list(range(len(chunks))),
        format_func=lambda n: f"{n} (p. {chunks[n].first_page}): {' '.join(chunks[n].text.split()[:8])}...",
        key=K.MARK_CHUNKS,
        help="The gold span runs from the first picked chunk to the last, including the chunks between.",
    )
    if not selected:
        return None
    return chunks[min(selected)].start, chunks[max(selected)].end


def _render_span_form(document: Document, span: tuple[int, int] | None, query: str) -> None:
    """The span, then one form for the queries it answers (one a line), their kind and a note."""
    if span is None:
        st.caption("Select the answer's text (or pick chunks): it becomes the gold span of the queries below.")
        return
    start, end = span
    text = document.text[start:end]
    first_page, last_page = document.pages_of_span(start, end)
    pages = f"p. {first_page}" if first_page == last_page else f"pp. {first_page}-{last_page}"
    with st.expander(f"Gold span: characters {start:,}-{end:,} ({pages}), {len(text.strip()):,} characters"):
        st.text(text.strip())
    evaluate_state.init_form(query)
    with st.form(K.SPAN_FORM, border=True):
        st.text_area(
            "Queries this span answers (one a line; each becomes a golden query)",
            key=K.FORM_QUERIES,
            height=110,
        )
        kind_column, note_column = st.columns([1, 3])
        kind_column.selectbox("Kind", QUERY_KINDS, key=K.MARK_KIND)
        note_column.text_input("Note (optional)", key=K.MARK_NOTE)
        st.form_submit_button(
            "Add to my golden set",
            type="primary",
            icon=":material/add:",
            on_click=evaluate_state.add_queries,
            args=(document.name, document.text, start, end),
        )


def _render_built_set() -> None:
    built = evaluate_state.read().built
    if not built:
        return
    st.markdown(f"**My golden set:** {len(built.queries)} queries for {md(built.document)}")
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "id": q.id,
                    "kind": q.kind,
                    "query": q.query,
                    "start_char": q.start_char,
                    "end_char": q.end_char,
                    "first_phrase": q.first_phrase,
                    "last_phrase": q.last_phrase,
                }
                for q in built.queries
            ]
        ),
        hide_index=True,
        key=K.BUILT_TABLE,
    )
    download_column, evaluate_column, clear_column = st.columns(3)
    golden_file = f"{Path(built.document).stem}.golden.json"
    _download(download_column, "Download golden set (JSON)", built.to_json(), golden_file, K.DOWNLOAD_GOLDEN)
    evaluate_column.button(
        "Evaluate it above",
        key=K.EVALUATE_BUILT,
        on_click=evaluate_state.evaluate_built,
    )
    clear_column.button("Clear my golden set", key=K.CLEAR_BUILT, on_click=evaluate_state.clear_built_set)
