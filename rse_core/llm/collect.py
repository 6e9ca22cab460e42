"""One answer collected from a stream: the text so far, and the error that ended it, if any.

The app draws an answer while it arrives and keeps it afterwards. Copying the whole text for every
piece (``text += piece`` then queueing ``text``) holds quadratic memory on a long answer, and a
handler that refers to a variable bound inside ``try`` can itself crash after a ``MemoryError``.
Here pieces are appended to a list, joined once, handed on one at a time (``on_piece``), and every
failure becomes a message beside whatever text had arrived.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from rse_core.errors import LLMAnswerLimitError, RSEError
from rse_core.llm.answers import ChatClient, Usage


@dataclass(frozen=True)
class CollectedAnswer:
    """An answer as far as it got.

    Attributes:
        text: what arrived (at most the client's ``max_chars``).
        error: a message safe to show (key scrubbed), or ``None`` when the answer completed.
        usage: the server's token counts (empty after an error).
        seconds: from the first request to the end.
        cut: the answer hit a bound (``RSE_LLM_MAX_CHARS`` / ``RSE_LLM_MAX_SECONDS``).
    """

    text: str
    error: str | None
    usage: Usage
    seconds: float
    cut: bool = False


def collect_answer(
    client: ChatClient,
    messages: Sequence[Mapping[str, str]],
    on_piece: Callable[[str], None] | None = None,
) -> CollectedAnswer:
    """Stream one answer to the end (or its bound), calling ``on_piece`` with each new piece.

    Never raises for a failed call: the error is the answer's ``error``. ``on_piece`` gets only
    the new piece, so a consumer that draws the text keeps its own copy once.
    """
    started = time.monotonic()
    pieces: list[str] = []
    error: str | None = None
    cut = False
    try:
        for piece in client.stream(messages):
            pieces.append(piece)
            if on_piece is not None:
                on_piece(piece)
    except LLMAnswerLimitError as failure:
        error, cut = str(failure), True
    except RSEError as failure:  # every message from ChatClient is already scrubbed of the key
        error = str(failure)
    except MemoryError:
        pieces.clear()
        error = "The answer was too large to keep in memory; it was dropped."
    except Exception as failure:  # a bug must not leave the caller waiting
        error = f"The answer failed ({type(failure).__name__})."
    text = "".join(pieces)
    pieces.clear()
    usage = client.usage if error is None else Usage()
    return CollectedAnswer(text, error, usage, time.monotonic() - started, cut)
