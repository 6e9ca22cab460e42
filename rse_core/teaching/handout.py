"""A printable handout of the exercise bank, and a separate answer key, as self-contained HTML.

Both pages come from the same :func:`~rse_core.teaching.exercises.exercise_bank` the app checks
answers against, so the printed key is the app's. No script, no external file: one HTML file
each, every text escaped, print-friendly (one exercise never splits across pages).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from rse_core.teaching.answers import EXAMPLE_SEGMENT, parse_segments
from rse_core.teaching.board import BoardLookups
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
.who { display: flex; gap: 2rem; margin: 0.6rem 0 1rem 0; }
.who span { flex: 1; border-bottom: 1px solid #333; padding-bottom: 0.2rem; }
.lookups { display: flex; gap: 2rem; flex-wrap: wrap; margin: 0.3rem 0; }
.lookups table { border-collapse: collapse; font-family: monospace; font-size: 0.95rem; }
.lookups th, .lookups td { border: 1px solid #999; padding: 0.1rem 0.5rem; text-align: right; }
.lookups caption { font-weight: bold; text-align: left; font-family: Georgia, serif; white-space: nowrap; }
@media print { body { margin: 0.5cm auto; } }
"""


((_FIRST, _LAST),) = parse_segments(EXAMPLE_SEGMENT)

NAME_LINE = '<div class="who"><span>Name:</span><span>Date:</span></div>'
"""Where a student writes their name and the date, so a collected handout says whose it is."""


def _page(title: str, subtitle: str, body: str, *, name_line: bool = False) -> str:
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>{NAME_LINE if name_line else ''}"
        f'<p class="sub">{html.escape(subtitle)}</p>{body}</body></html>\n'
    )


def _table(caption: str, head: tuple[str, str], cells: list[tuple[str, str]]) -> str:
    rows = "".join(f"<tr><td>{html.escape(left)}</td><td>{html.escape(right)}</td></tr>" for left, right in cells)
    return (
        f"<table><caption>{html.escape(caption)}</caption>"
        f"<tr><th>{html.escape(head[0])}</th><th>{html.escape(head[1])}</th></tr>{rows}</table>"
    )


def lookups_html(lookups: BoardLookups | None) -> str:
    """The beta and decay lookup values an exercise from scores needs, as two small tables ("" if none)."""
    if lookups is None:
        return ""
    beta = _table(f"Beta lookup ({lookups.shape_text})", ("score", "beta.cdf"), lookups.beta_cells())
    decay = _table(f"Decay lookup ({lookups.decay_text})", ("rank", "decay"), lookups.decay_cells())
    return f'<div class="lookups">{beta}{decay}</div>'


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
        f'<section class="ex">{_head(e)}{_inputs(e)}{lookups_html(e.lookups)}'
        f'<div>Answer ({html.escape(e.kind.hint)}):</div><div class="blank"></div></section>'
        for e in exercises
    )
    return _page(
        "RSE exercises",
        f"Chunks are numbered from 0; a segment {EXAMPLE_SEGMENT} is chunks {_FIRST} to {_LAST}, both included. Every "
        "exercise can be done by hand: the ones that start from scores print the lookup values they need. Check "
        "each answer in rse-explorer.",
        body,
        name_line=True,
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
