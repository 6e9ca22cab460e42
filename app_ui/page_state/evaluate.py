"""State of the Evaluate page: its keys, what the view reads (the golden set built here, the
marking form's message), and the callbacks that open a query, pick chunks and build the set.

The golden set a user builds by marking spans is kept in this session (``Keys.BUILT``); the
form's callbacks change it before the next run draws it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Final

import streamlit as st

from rse_core.evaluation.golden import GoldenSet, GoldenSetError, query_for_span

from .. import keys
from . import sidebar_settings


class Keys:
    """The widget and state keys of views/evaluate.py."""

    PREFIX: Final = "ev"
    SOURCE: Final = "ev_source"
    SAMPLE: Final = "ev_sample"
    EXTERNAL: Final = "ev_external"
    UPLOAD: Final = "ev_upload"
    TABLE: Final = "ev_table"
    TABLE_METRIC: Final = "ev_table_metric"
    OPEN: Final = "ev_open_query"
    BUILT: Final = "ev_built_set"  # GoldenSet | None: the set built on this page
    MARK_DOC: Final = "ev_mark_doc"
    MARK_CHUNKS: Final = "ev_mark_chunks"
    MARK_KIND: Final = "ev_mark_kind"
    MARK_ID: Final = "ev_mark_id"
    MARK_NOTE: Final = "ev_mark_note"
    MARK_MESSAGE: Final = "_ev_mark_message"  # (level, text) left by a callback for the next run
    SELECT_TEXT: Final = "ev_select_text"  # the text selection component's value: {start, end, at}
    SELECT_WHERE: Final = "ev_select_where"
    GOTO_MARKING: Final = "_ev_goto_marking"  # set by the page view's "make golden queries of it"
    SPAN_SOURCE: Final = "ev_span_source"
    SPAN_FORM: Final = "ev_span_form"
    FORM_QUERIES: Final = "ev_form_queries"
    CHART: Final = "ev_chart"
    DOWNLOAD_CSV: Final = "ev_download_csv"
    DOWNLOAD_JSON: Final = "ev_download_json"
    OPEN_EXPLORE: Final = "ev_open_explore"
    ADD_CLICKED: Final = "ev_add_clicked"
    BUILT_TABLE: Final = "ev_built_table"
    DOWNLOAD_GOLDEN: Final = "ev_download_golden"
    EVALUATE_BUILT: Final = "ev_evaluate_built"
    CLEAR_BUILT: Final = "ev_clear_built"

    @staticmethod
    def select_page(doc_id: str) -> str:
        """The first page the page shows for selecting on the page, per document."""
        return f"ev_page_select_page_{doc_id[:16]}"


SPAN_SELECTED: Final = "selected"
SPAN_PAGE: Final = "page"
SPAN_CHUNKS: Final = "chunks"
"""Where the marking form's gold span comes from: selected text, a drag on the page, whole chunks."""
BUILT_SOURCE: Final = "built"
"""The golden-set choice that evaluates the set built on the page."""


@dataclass(frozen=True)
class EvaluateState:
    """What the page reads besides its widgets' values."""

    built: GoldenSet | None
    """The golden set built on this page, if any."""
    arrived_to_mark: bool
    """The page view's "make golden queries of it" sent the user here with a span."""


def read() -> EvaluateState:
    return EvaluateState(
        built=st.session_state.get(Keys.BUILT),
        arrived_to_mark=bool(st.session_state.get(Keys.GOTO_MARKING)),
    )


def take_mark_message() -> tuple[str, str] | None:
    """The (level, text) a marking callback left for this run, shown once."""
    return st.session_state.pop(Keys.MARK_MESSAGE, None)


def init_form(query: str) -> None:
    """The form's queries start as the sidebar's query (before the form is drawn)."""
    st.session_state.setdefault(Keys.FORM_QUERIES, query)


def keep_picked_chunks(chunk_count: int) -> list[int]:
    """Drop picked chunks the document no longer has (before the picker is drawn); the rest."""
    picked = [n for n in st.session_state.get(Keys.MARK_CHUNKS, []) if isinstance(n, int) and n < chunk_count]
    st.session_state[Keys.MARK_CHUNKS] = picked
    return picked


def add_chunk(chunk: int) -> None:
    """Callback of "Add chunk N (clicked on Explore)"."""
    st.session_state[Keys.MARK_CHUNKS] = sorted({*st.session_state.get(Keys.MARK_CHUNKS, []), chunk})


def on_row_selected(ids: Sequence[str]) -> None:
    """Callback of the per-query table: the clicked row's query is the one shown below it."""
    rows = st.session_state[Keys.TABLE].selection.rows
    if rows and rows[0] < len(ids):
        st.session_state[Keys.OPEN] = ids[rows[0]]


def open_in_explore(query: str, slug: str) -> None:
    """Callback: the query and its document (a sample, or none for an upload) in the sidebar, then Explore."""
    sidebar_settings.open_in_explore([slug] if slug else [], (query,))


def evaluate_built() -> None:
    """Callback of "Evaluate it above": the built set becomes the evaluated one."""
    st.session_state[Keys.SOURCE] = BUILT_SOURCE


def mark_on_page(document_name: str) -> None:
    """Before opening Evaluate from the page view: its form takes the span dragged on ``document_name``'s pages."""
    st.session_state[Keys.SPAN_SOURCE] = SPAN_PAGE
    st.session_state[Keys.MARK_DOC] = document_name
    st.session_state[Keys.GOTO_MARKING] = True


def take_arrival() -> bool:
    """Whether the page view just sent the user here with a span (true once)."""
    return bool(st.session_state.pop(Keys.GOTO_MARKING, False))


def show_page_for_selecting(doc_id: str, arrived_page: int | None, opening: Callable[[], int]) -> None:
    """The page to select on, before its number box is drawn: ``arrived_page`` (the span the page
    view sent), else the one kept for the document, else ``opening()``."""
    key = Keys.select_page(doc_id)
    if arrived_page is not None:
        st.session_state[key] = arrived_page
    elif key not in st.session_state:
        st.session_state[key] = opening()


def judge_cache() -> dict:
    """This session's LLM grades, by answer (a grade is paid for once)."""
    return st.session_state.setdefault(keys.JUDGE_CACHE, {})


def keep_judge_results(evaluation: Hashable, model: str, results: list) -> None:
    """The grades of one evaluation's answers by ``model``."""
    st.session_state[keys.JUDGE_RESULTS] = (evaluation, model, results)


def judge_results_for(evaluation: Hashable, model: str) -> list | None:
    """The last grades, if they are of this evaluation by this model."""
    stored = st.session_state.get(keys.JUDGE_RESULTS)
    return stored[2] if stored and stored[0] == evaluation and stored[1] == model else None


def next_id(built: GoldenSet | None) -> str:
    """The first free id of the form ``q-01``."""
    taken = {query.id for query in built.queries} if built else set()
    number = len(taken) + 1
    while f"q-{number:02d}" in taken:
        number += 1
    return f"q-{number:02d}"


def clear_built_set() -> None:
    """Callback: start a new golden set."""
    st.session_state[Keys.BUILT] = None
    st.session_state[Keys.MARK_ID] = next_id(None)


def queries_of(text: str) -> list[str]:
    """The queries a form's text area holds: one a line, blank lines and repeats dropped."""
    seen: dict[str, None] = {}
    for line in text.splitlines():
        if line.strip():
            seen.setdefault(" ".join(line.split()), None)
    return list(seen)


def add_queries(document_name: str, text: str, start: int, end: int) -> None:
    """Callback of the span form: every query typed there becomes a golden query of this span.

    The queries, kind and note are the form's widgets (read here, at submit); the span is the
    selection (or the picked chunks) the form was drawn with. All are added or none.
    """
    queries = queries_of(st.session_state.get(Keys.FORM_QUERIES) or "")
    if not queries:
        st.session_state[Keys.MARK_MESSAGE] = ("error", "Type at least one query the span answers.")
        return
    kind = st.session_state.get(Keys.MARK_KIND) or ""
    note = st.session_state.get(Keys.MARK_NOTE) or ""
    built: GoldenSet | None = st.session_state.get(Keys.BUILT)
    try:
        if built is not None and built.document != document_name:
            raise GoldenSetError(
                f"My golden set is for {built.document}; download it and clear it before marking spans in "
                f"{document_name}."
            )
        built = built or GoldenSet(document=document_name, queries=())
        added = []
        for query in queries:
            golden_query = query_for_span(text, start, end, query_id=next_id(built), query=query, kind=kind, note=note)
            built = built.with_query(golden_query)
            added.append(golden_query.id)
    except GoldenSetError as error:
        st.session_state[Keys.MARK_MESSAGE] = ("error", str(error))
        return
    st.session_state[Keys.BUILT] = built
    st.session_state[Keys.MARK_ID] = next_id(built)
    st.session_state[Keys.MARK_MESSAGE] = ("success", f"Added {', '.join(added)} to my golden set.")
