"""The gold span last dragged on a PDF's pages: the page view (Explore) and Evaluate's golden-set
form both show it."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from .. import keys


@dataclass(frozen=True)
class PageSpan:
    """Characters ``start:end`` of the document ``doc_id``, selected on its pages."""

    doc_id: str
    start: int
    end: int


def keep_page_span(span: PageSpan) -> None:
    """Keep ``span`` as the gold span (a new drag replaces the last, whichever page it was on)."""
    st.session_state[keys.PAGE_GOLD_SPAN] = span


def read() -> PageSpan | None:
    """The span last dragged on a page, if any."""
    return st.session_state.get(keys.PAGE_GOLD_SPAN)
