"""The context string an LLM would receive, for RSE segments or top-k chunks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from rse_core.errors import ParameterError
from rse_core.validation import parse_choice


class ContextOrder(StrEnum):
    """The order in which the pieces of a context reach the LLM.

    ``document`` (the default, the lesson's): as they stand in the documents, so a reader meets
    the text in its own order. ``score``: most relevant first (RSE's pick order, top-k's rank).
    """

    DOCUMENT = "document"
    SCORE = "score"

    @classmethod
    def parse(cls, name: str | ContextOrder) -> ContextOrder:
        return parse_choice(cls, name, "context order", ParameterError)


@dataclass(frozen=True)
class ContextPiece:
    """One block of context: a header naming its source, then the exact text."""

    label: str
    source: str
    text: str


SEPARATOR = "\n\n"


def format_context(pieces: Sequence[ContextPiece]) -> str:
    """Join pieces as ``[label] source`` header lines followed by their text.

    The header lets an LLM cite where a passage comes from; the text is kept verbatim so the
    reader (and the character counts) see exactly what would be sent.
    """
    return SEPARATOR.join(f"[{piece.label}] {piece.source}\n{piece.text.strip()}" for piece in pieces)
