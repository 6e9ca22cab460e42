"""Worked example, board modes: scores -> values in a table to fill in, and round-robin by hand.

- :func:`render_board`: a class starts from raw reranker-like scores and fills in one column at
  a time (beta, rank, decay, value), with a beta lookup table to read the beta column from; the
  teacher reveals the columns one by one. Numbers from :func:`rse_core.teaching.score_steps.value_rows`
  (the pipeline's own :func:`~rse_core.values.chunk_values`).
- :func:`render_round_robin`: two short value lists over the same chunks take turns picking
  segments, one turn at a time (:func:`rse_core.teaching.explain_search` with two queries).

Widget keys start with ``we_board_`` and ``we_rr_``. Chunks and ranks count from 0.
"""

from __future__ import annotations

import html
from collections.abc import Callable

import pandas as pd
import streamlit as st

from app_ui import components, hotkeys, presenter
from app_ui.page_state import worked_board as worked_board_state
from app_ui.safe_text import md
from rse_core import ParameterError, RSEError
from rse_core.figures.teaching import Band, Stage, segment_bands, worked_example_chart
from rse_core.numerals import num
from rse_core.params import RSEParams
from rse_core.search import find_best_segments
from rse_core.teaching import StepKind, explain_search
from rse_core.teaching.board import board_lookups
from rse_core.teaching.classroom import SCORES_EXAMPLE
from rse_core.teaching.course import COURSE_PARAMS, limits_text
from rse_core.teaching.gaps import segment_gaps
from rse_core.teaching.score_steps import value_rows
from views.lookup_values import render_lookups

K = worked_board_state.Keys

COLUMNS = (
    ("beta", f"{Stage.TRANSFORM.label[0]} beta.cdf(score)"),
    ("rank", "rank (best = 0)"),
    ("decay", f"{Stage.DECAY.label[0]} × exp(−rank/decay)"),
    ("value", f"{Stage.PENALTY.label[0]} − penalty = value"),
)
"""The columns a class fills in, numbered as the stage charts number the value formula's stages
(① calibrate: the board's scores are already in [0, 1])."""
HIDDEN = "?"
ROW_HEIGHT_PRESENTING = 27
"""Table rows in presenter mode: the board, its chart and the round-robin's turns fit a 1280x720 screen."""


# --------------------------------------------------------------------------- scores -> values


def board_table(rows, revealed: int) -> pd.DataFrame:
    """The board: the score column always, the others up to ``revealed`` columns, the rest "?"."""
    table: dict[str, list[str]] = {
        "chunk": [str(row.chunk) for row in rows],
        f"{Stage.CALIBRATE.label[0]} score": [num(row.score) for row in rows],
    }
    cells = {
        "beta": [f"{row.transformed:.3f}" for row in rows],
        "rank": [str(row.rank) for row in rows],
        "decay": [f"{row.transformed:.3f} × {row.decay:.3f} = {row.decayed:.3f}" for row in rows],
        "value": [f"{row.decayed:.3f} − {num(row.penalty)} = {row.value:.3f}" for row in rows],
    }
    for number, (name, title) in enumerate(COLUMNS):
        table[title] = cells[name] if number < revealed else [HIDDEN] * len(rows)
    return pd.DataFrame(table)


def render_board(parse_values) -> None:
    """Scores -> values, column by column, with the beta lookup table beside it."""
    worked_board_state.init()
    if not presenter.is_on():  # instructions for the reader; the teacher says them in presenter mode
        st.caption(
            "Start from raw scores in [0, 1], as a reranker gives them, and fill in the columns left to right: the "
            "beta transform (read it off the lookup table), the rank (0 = the best score; ties: the earlier chunk), "
            "the decay exp(−rank / decay rate), and the penalty. Reveal the columns one at a time to check."
        )
    _inputs("Scores and parameters", _board_inputs)
    try:
        rows, params = _board_rows(parse_values)
    except (ValueError, RSEError) as error:
        st.error(md(error), icon=":material/error:")
        return
    present = presenter.is_on()
    table_column, lookup_column = st.columns([3, 1.5 if present else 1], gap="medium" if present else "large")
    with table_column:  # presenter mode: once every column is out, the chart takes the lookup's place
        _board_table(rows, chart_place=lookup_column if present else None)
    with lookup_column:
        if not (present and worked_board_state.read_board().revealed == len(COLUMNS)):
            _board_lookup(rows, params)


def _inputs(folded_label: str, draw: Callable[[], None]) -> None:
    """A mode's inputs, folded into an expander in presenter mode (the board and charts come first)."""
    if presenter.is_on():
        with st.expander(folded_label):
            draw()
    else:
        draw()


def _board_inputs() -> None:
    """The scores and the four numbers that turn them into values."""
    st.text_input("Scores (in document order)", key=K.SCORES, help="Numbers in [0, 1], separated by commas.")
    a, b, decay, penalty = st.columns(4)
    a.number_input("Beta a", min_value=0.05, max_value=5.0, step=0.05, key=K.BETA_A)
    b.number_input("Beta b", min_value=0.05, max_value=5.0, step=0.05, key=K.BETA_B)
    decay.number_input("Decay rate", min_value=1.0, max_value=1000.0, step=1.0, key=K.DECAY)
    penalty.number_input("Penalty", min_value=0.0, max_value=1.0, step=0.01, format="%.2f", key=K.PENALTY)


def _board_rows(parse_values) -> tuple[list, RSEParams]:
    """The board's rows and the parameters they were valued with; raises ValueError or RSEError."""
    scores = parse_values(st.session_state[K.SCORES])
    params = COURSE_PARAMS.with_changes(
        beta_a=float(st.session_state[K.BETA_A]),
        beta_b=float(st.session_state[K.BETA_B]),
        decay_rate=float(st.session_state[K.DECAY]),
        irrelevant_chunk_penalty=float(st.session_state[K.PENALTY]),
    )
    return value_rows(scores, params), params


def _board_table(rows: list, *, chart_place=None) -> None:
    """The board with the revealed columns, and with all of them the values searched."""
    hotkeys.step_keys(K.HOTKEYS, K.REVEAL, 0, len(COLUMNS), default=0)
    st.slider(
        "Columns revealed",
        0,
        len(COLUMNS),
        key=K.REVEAL,
        help="0: only the scores (the class fills in the rest); 4: every column. Arrow keys, space and PageDown "
        "reveal the next column.",
    )
    board = worked_board_state.read_board()
    present = presenter.is_on()
    st.dataframe(
        board_table(rows, board.revealed),
        key=K.BOARD_TABLE,
        hide_index=True,
        width="stretch",
        row_height=ROW_HEIGHT_PRESENTING if present else None,
    )
    if board.revealed == len(COLUMNS):
        values = [row.value for row in rows]
        search = find_best_segments(values, **SCORES_EXAMPLE.limits)
        picks = ", then ".join(f"chunks {s.start}-{s.end - 1} ({num(s.score)})" for s in search) or "nothing"
        gaps = segment_gaps(values, list(search))
        gap_text = (
            " Gaps: " + "; ".join(f"chunk {g.index} ({num(g.value)}), paid for by its neighbours" for g in gaps) + "."
            if gaps
            else ""
        )
        st.markdown(
            f"**Values:** {', '.join(num(v) for v in values)}  \n"
            f"**Searched with the course's limits** ({limits_text(SCORES_EXAMPLE.limits)}): {picks}.{gap_text}"
        )
        with chart_place or st.container():
            st.plotly_chart(
                worked_example_chart(values, segment_bands(list(search)), height=300),
                key=K.BOARD_TABLE + "_chart",
                theme=None,
                config={"displaylogo": False, "displayModeBar": False},
            )
        with st.expander("Each row written out"):
            st.code("\n".join(f"chunk {row.chunk}: {row.working(board.decay_rate)}" for row in rows), language=None)


def _board_lookup(rows: list, params: RSEParams) -> None:
    """What the class reads the board's columns off: the beta CDF of each of its scores and the decay
    of each of its ranks (a generic table of round scores missed most of a board's)."""
    st.markdown("**Beta lookup and decay**, for this board's scores and ranks")
    render_lookups(board_lookups([row.score for row in rows], params), key=K.BOARD_LOOKUP)
    st.caption("With a = b = 0.4 scores near 0 move up and scores near 1 move down: the ends are spread out.")


# --------------------------------------------------------------------------- round-robin


def render_round_robin(parse_values) -> None:
    """Two queries' values over the same chunks, taking turns: one turn per step."""
    worked_board_state.init()
    if not presenter.is_on():
        st.caption(
            "Two queries, the same chunks: the search takes turns, query 1's best segment, then query 2's, and so on; "
            "a query whose best remaining segment is worth less than the minimum retires. Picks share one chunk budget "
            "and never overlap, whichever query picked them."
        )
    _inputs("Both queries' values and the limits", _rr_inputs)
    try:
        first, second, steps = _rr_search(parse_values)
    except (ValueError, ParameterError) as error:
        st.error(md(error), icon=":material/error:")
        return
    hotkeys.step_keys(K.HOTKEYS + "_rr", K.RR_STEP, 0, len(steps), default=0)
    current = components.stepper(len(steps), K.RR_STEP, noun="turn", button_key=K.RR_NEXT, first=0)
    entry = steps[current - 1] if current else None  # turn 0: the class predicts, no pick drawn
    picks = [step for step in steps[:current] if step.kind is StepKind.PICK]
    if entry is None:
        predict = (
            "Turn 0: predict query 1's first pick, then query 2's once query 1 has taken its chunks (limits "
            f"{limits_text(_rr_limits())}). Press → to see."
        )
        if presenter.is_on():
            presenter.line(html.escape(predict))
        else:
            st.info(predict, icon=":material/psychology:")
    elif entry.kind is StepKind.STOP:
        st.success(entry.message, icon=":material/flag:")
    elif entry.kind is StepKind.PICK:
        st.info(entry.message, icon=":material/check_circle:")
    else:
        st.warning(entry.message, icon=":material/do_not_disturb_on:")
    if presenter.is_on():  # charts and turns side by side: the turns table stays in the first screen
        *charts, table = st.columns([2, 2, 1.7], gap="small")
        _rr_charts(first, second, picks, entry, columns=charts, height=250)
        with table:
            _rr_table(steps[:current])
        return
    _rr_charts(first, second, picks, entry)
    _rr_table(steps[:current])


def _rr_inputs() -> None:
    """Both queries' values and the three limits."""
    left, right = st.columns(2)
    left.text_input("Query 1's values", key=K.RR_FIRST, on_change=worked_board_state.on_round_robin_change)
    right.text_input("Query 2's values", key=K.RR_SECOND, on_change=worked_board_state.on_round_robin_change)
    components.search_limit_inputs(
        (K.RR_MAX_LENGTH, K.RR_OVERALL, K.RR_MINIMUM), worked_board_state.on_round_robin_change, most_chunks=100
    )


def _rr_search(parse_values) -> tuple[list[float], list[float], list]:
    """Both queries' values and the round-robin search's steps; raises ValueError or ParameterError."""
    first = parse_values(st.session_state[K.RR_FIRST])
    second = parse_values(st.session_state[K.RR_SECOND])
    if len(first) != len(second):
        raise ValueError(
            f"Both queries score the same chunks: give both the same number of values ({len(first)} and "
            f"{len(second)} now)."
        )
    steps = explain_search([first, second], **_rr_limits())
    return first, second, steps


def _rr_limits() -> dict[str, float]:
    """The round-robin's three limits, as the search takes them."""
    return {
        "max_length": int(st.session_state[K.RR_MAX_LENGTH]),
        "overall_max_length": int(st.session_state[K.RR_OVERALL]),
        "minimum_value": float(st.session_state[K.RR_MINIMUM]),
    }


def _rr_charts(first: list[float], second: list[float], picks: list, entry, *, columns=None, height: int = 320) -> None:
    """Each query's values with the segments it picked so far (the current pick highlighted)."""
    charts = columns or st.columns(2)
    for query, (column, values) in enumerate(zip(charts, (first, second), strict=True)):
        bands = [
            Band(step.segment.start, step.segment.end, step.label, float(step.segment.score), current=step is entry)
            for step in picks
            if step.query == query
        ]
        taken = [f"{s.segment.start}-{s.segment.end - 1}" for s in picks if s.query != query]
        with column:
            note = f" (chunks {', '.join(taken)} taken by the other query)" if taken else ""
            st.markdown(f"**Query {query + 1}'s values and picks**{note}")
            st.plotly_chart(
                worked_example_chart(values, bands, height=height),
                key=K.rr_chart(query),
                theme=None,
                config={"displaylogo": False, "displayModeBar": False},
            )


RR_COLUMNS = ("turn", "query", "what", "segment", "value")


def _rr_table(steps: list) -> None:
    """The turns so far, one row each (none at turn 0)."""
    st.dataframe(
        pd.DataFrame(
            columns=RR_COLUMNS,
            data=[
                {
                    "turn": step.number,
                    "query": "" if step.query is None else step.query + 1,
                    "what": step.kind.value,
                    "segment": "" if step.segment is None else f"{step.segment.start}-{step.segment.end - 1}",
                    "value": "" if step.segment is None else num(float(step.segment.score)),
                }
                for step in steps
            ],
        ),
        key=K.RR_TABLE,
        hide_index=True,
        row_height=ROW_HEIGHT_PRESENTING if presenter.is_on() else None,
    )
