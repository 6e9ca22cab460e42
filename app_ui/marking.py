"""The golden set a user builds on the Evaluate page by marking spans, kept in this session.

Callbacks of the page's buttons: they change session state before the next run draws it.
"""

from __future__ import annotations

import streamlit as st

from rse_core.evaluation.golden import GoldenSet, GoldenSetError, query_for_span

from .page_state import evaluate as evaluate_state


def next_id(built: GoldenSet | None) -> str:
    """The first free id of the form ``q-01``."""
    taken = {query.id for query in built.queries} if built else set()
    number = len(taken) + 1
    while f"q-{number:02d}" in taken:
        number += 1
    return f"q-{number:02d}"


def add_span(
    document_name: str, text: str, start: int, end: int, query_id: str, query: str, kind: str, note: str
) -> None:
    """Callback: add the span to the golden set in session state (or leave an error message)."""
    built: GoldenSet | None = st.session_state.get(evaluate_state.Keys.BUILT)
    try:
        if built is not None and built.document != document_name:
            raise GoldenSetError(
                f"My golden set is for {built.document}; download it and clear it before marking spans in "
                f"{document_name}."
            )
        golden_query = query_for_span(text, start, end, query_id=query_id, query=query, kind=kind, note=note)
        built = (built or GoldenSet(document=document_name, queries=())).with_query(golden_query)
    except GoldenSetError as error:
        st.session_state[evaluate_state.Keys.MARK_MESSAGE] = ("error", str(error))
        return
    st.session_state[evaluate_state.Keys.BUILT] = built
    st.session_state[evaluate_state.Keys.MARK_ID] = next_id(built)
    st.session_state[evaluate_state.Keys.MARK_NOTE] = ""
    st.session_state[evaluate_state.Keys.MARK_CHUNKS] = []
    st.session_state[evaluate_state.Keys.MARK_MESSAGE] = ("success", f"Added {golden_query.id} to my golden set.")


def clear_built_set() -> None:
    """Callback: start a new golden set."""
    st.session_state[evaluate_state.Keys.BUILT] = None
    st.session_state[evaluate_state.Keys.MARK_ID] = next_id(None)


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
    queries = queries_of(st.session_state.get(evaluate_state.Keys.FORM_QUERIES) or "")
    if not queries:
        st.session_state[evaluate_state.Keys.MARK_MESSAGE] = ("error", "Type at least one query the span answers.")
        return
    kind = st.session_state.get(evaluate_state.Keys.MARK_KIND) or ""
    note = st.session_state.get(evaluate_state.Keys.MARK_NOTE) or ""
    built: GoldenSet | None = st.session_state.get(evaluate_state.Keys.BUILT)
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
        st.session_state[evaluate_state.Keys.MARK_MESSAGE] = ("error", str(error))
        return
    st.session_state[evaluate_state.Keys.BUILT] = built
    st.session_state[evaluate_state.Keys.MARK_ID] = next_id(built)
    st.session_state[evaluate_state.Keys.MARK_MESSAGE] = ("success", f"Added {', '.join(added)} to my golden set.")
