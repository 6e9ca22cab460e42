"""HTML the app builds itself, handed to ``st.html`` without Streamlit's text cleaning.

Why: ``st.html`` passes a plain string through ``textwrap.dedent``, whose two regular expressions
cost about 10 ms on the page view's 450 KB thumbnail strip, on every slider move (a fifth of the
rerun). An object with ``_repr_html_`` is taken as it is. The app's HTML starts its first line at
column 0, so dedenting it changes nothing: the element is the same, only cheaper to make.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st
from streamlit.delta_generator import DeltaGenerator


@dataclass(frozen=True)
class BuiltHtml:
    """A finished HTML string (escaped where it holds text from a document or a user)."""

    body: str

    def _repr_html_(self) -> str:
        return self.body


def html(body: str, container: DeltaGenerator | None = None) -> DeltaGenerator:
    """``st.html(body)`` (or ``container.html``), skipping the dedent; surrounding whitespace is
    stripped, as Streamlit's cleaning would."""
    return (container or st).html(BuiltHtml(body.strip()))
