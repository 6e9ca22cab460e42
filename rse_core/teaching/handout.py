"""A printable handout of the exercise bank, and a separate answer key, as self-contained HTML.

Both pages come from the same :func:`~rse_core.teaching.exercises.exercise_bank` the app checks
answers against, so the printed key is the app's. No script, no external file: one HTML file
each, every text escaped, print-friendly (one exercise never splits across pages).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from rse_core.teaching.exercises import Exercise

STYLE = """
body { font-family: Georgia, 'Times New Roman', serif; max-width: 46rem; margin: 2rem auto; color: #111;
       line-height: 1.45; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
.sub { color: #444; margin-top: 0; }
.ex { border-top: 1px solid #999; padding: 0.6rem 0 0.8rem 0; break-inside: avoid; page-break-inside: avoid; }
.ex h2 { font-size: 1.1rem; margin: 0.2rem 0; }
.topic { color: #555; font-weight: normal; font-size: 0.95rem; }
dl { margin: 0.3rem 0; } dt { font-weight: bold; } dd { margin: 0 0 0.2rem 1rem; font-family: monospace; }
.blank { border-bottom: 1px solid #333; height: 1.8rem; margin-top: 0.4rem; }
.answer { font-family: monospace; font-size: 1.05rem; font-weight: bold; }
.where { color: #555; font-size: 0.9rem; }
@media print { body { margin: 0.5cm auto; } }
"""


def _page(title: str, subtitle: str, body: str) -> str:
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"
        f'<h1>{html.escape(title)}</h1><p class="sub">{html.escape(subtitle)}</p>{body}</body></html>\n'
    )


def _head(exercise: Exercise) -> str:
    return (
        f"<h2>{html.escape(exercise.id)}. {html.escape(exercise.prompt)} "
        f'<span class="topic">({html.escape(exercise.topic)})</span></h2>'
    )


def _inputs(exercise: Exercise) -> str:
    rows = "".join(f"<dt>{html.escape(label)}</dt><dd>{html.escape(text)}</dd>" for label, text in exercise.inputs)
    return f"<dl>{rows}</dl>"


def handout_html(exercises: Sequence[Exercise]) -> str:
    """The exercises with room to write, no answers."""
    body = "".join(
        f'<section class="ex">{_head(e)}{_inputs(e)}'
        f'<div>Answer ({html.escape(e.kind.hint)}):</div><div class="blank"></div></section>'
        for e in exercises
    )
    return _page(
        "RSE exercises",
        "Chunks are numbered from 0; a segment 2-3 is chunks 2 and 3. Check each answer in rse-explorer.",
        body,
    )


def answer_key_html(exercises: Sequence[Exercise]) -> str:
    """Each exercise's answer and why, computed by the core."""
    body = "".join(
        f'<section class="ex">{_head(e)}<div>Answer: <span class="answer">{html.escape(e.answer_text)}</span></div>'
        f'<p>{html.escape(e.explanation)}</p><div class="where">Check it in the app: {html.escape(e.where)}</div>'
        "</section>"
        for e in exercises
    )
    return _page("RSE exercises: answer key", "For the teacher. Every answer is computed by rse_core.", body)
