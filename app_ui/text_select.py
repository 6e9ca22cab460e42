"""Select a gold span with the mouse: a document's text in a box that reports the selection's
character offsets into ``Document.text``.

Why a component: Streamlit has no widget that reports a text selection, and marking whole chunks
made every gold span a chunk boundary's span. The frontend (``text_select_frontend/``) shows the
text as one text node, converts the browser's UTF-16 offsets to Python's code points and adds
the offset of the piece shown, so a span is exactly ``document.text[start:end]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit.components.v1 as st_components

from .page_state.component_values import drop_value_unless

FRONTEND = Path(__file__).with_name("text_select_frontend")
DEFAULT_HEIGHT = 360

_COMPONENT = st_components.declare_component("text_select", path=str(FRONTEND))


@dataclass(frozen=True)
class TextSpan:
    """A selection: characters ``start:end`` of the document's text."""

    start: int
    end: int


_SELECTION_FIELDS = frozenset({"start", "end", "at"})


def is_selection(value: object) -> bool:
    """``None`` or a selection as the frontend sends it: a small dict of numbers (whether it is a
    range of the text is :func:`span_from_value`'s to check)."""
    if value is None:
        return True
    return (
        isinstance(value, dict)
        and set(value) <= _SELECTION_FIELDS
        and all(isinstance(item, (int, float)) for item in value.values())
    )


def span_from_value(value: object, text_length: int) -> TextSpan | None:
    """The span a component value names, if it is a valid, non-empty range of the text.

    The value comes from the browser, so it is checked like any input: two whole numbers with
    ``0 <= start < end <= text_length``.
    """
    if not isinstance(value, dict):
        return None
    start, end = value.get("start"), value.get("end")
    if isinstance(start, bool) or isinstance(end, bool) or not isinstance(start, int) or not isinstance(end, int):
        return None
    if not 0 <= start < end <= text_length:
        return None
    return TextSpan(start, end)


def select_text(text: str, *, key: str, offset: int = 0, height: int = DEFAULT_HEIGHT) -> object:
    """Show ``text`` (characters ``offset:offset + len(text)`` of a document) for selecting.

    Returns the last selection's raw value (``{"start", "end", "at"}``, offsets into the whole
    document); read it with :func:`span_from_value`.
    """
    drop_value_unless(key, is_selection)  # anything but a selection the frame posted
    return _COMPONENT(text=text, offset=offset, height=height, key=key, default=None)
