"""Worked example: the course's small examples, solved the way a teacher solves them on the board.

The user types a few chunk values (or picks a classroom example) and sets the limits; the page
shows the bars with the picked segments, every candidate segment with its sum and a note, the
greedy search one turn at a time (what bound each pick, why it stopped), and checks a student's
answer. Everything is computed by :mod:`rse_core.teaching`; this page only draws. Widget keys
start with ``we_``; nothing here touches the sidebar's parameters.
"""

from __future__ import annotations

import html
import re

import pandas as pd
import streamlit as st

from app_ui import components, hotkeys, presenter
from app_ui.page_state import worked_example as worked_example_state
from app_ui.safe_text import md
from rse_core import ParameterError
from rse_core.figures.teaching import Band, segment_bands, worked_example_chart
from rse_core.numerals import num
from rse_core.search import find_best_segments
from rse_core.teaching import (
    MAX_TEACHING_VALUES,
    MINIMUM_RULE,
    StepKind,
    candidate_segments,
    check_typed_answer,
    explain_search,
)
from rse_core.teaching.answers import EXAMPLE_SEGMENT, EXAMPLE_SEGMENTS, AnswerError
from rse_core.teaching.board import all_runs
from rse_core.teaching.classroom import EXAMPLES
from rse_core.teaching.course import COURSE_PARAMS, DEFAULT_PARAMS, limits_text
from rse_core.teaching.objective import explain_objective
from rse_core.teaching.wording import chunk_range
from views.worked_board import render_board, render_round_robin
from views.worked_exercises import render_exercises

K = worked_example_state.Keys
OWN_VALUES = worked_example_state.OWN_VALUES

MODES = {
    "segments": "Segments from values",
    "runs": "Table 1: every run",
    "board": "Board: scores → values",
    "round_robin": "Round-robin: two queries",
    "exercises": "Exercises",
}
MAX_ABS_VALUE = 1e6


# --------------------------------------------------------------------------- parsing


def parse_values(text: str) -> list[float]:
    """Chunk values typed by a person: numbers separated by commas, semicolons or spaces.

    Raises:
        ValueError: with a message for the page (empty, not a number, too many, too large).
    """
    cleaned = (text or "").replace("\u2212", "-").strip().strip("[]()")
    tokens = [token for token in re.split(r"[,;\s]+", cleaned) if token]
    if not tokens:
        raise ValueError("Type at least one chunk value, e.g. -0.2, -0.2, 0.4, 0.8, -0.1.")
    if len(tokens) > MAX_TEACHING_VALUES:
        raise ValueError(
            f"{len(tokens)} values: the worked example takes at most {MAX_TEACHING_VALUES} "
            "(it lists every segment, which is for the board). Use Explore for whole documents."
        )
    values = []
    for position, token in enumerate(tokens):
        try:
            value = float(token)
        except ValueError:
            raise ValueError(
                f"{token[:30]!r} (value {position + 1}) is not a number. Separate values with commas, e.g. 0.4, -0.1."
            ) from None
        if value != value or abs(value) > MAX_ABS_VALUE:
            raise ValueError(f"{token[:30]!r} (value {position + 1}) is not a usable chunk value.")
        values.append(value)
    return values


# --------------------------------------------------------------------------- page


@components.guarded
def render() -> None:
    st.title("Worked example")
    if not presenter.is_on():  # the page's instructions; the slide keeps the example's own notes
        st.caption(
            "RSE on a handful of chunk values, as on the board: which segments the greedy search picks, "
            "in what order, and why it stops. Chunks are numbered from 0; segments are inclusive "
            "(5-7 = chunks 5, 6 and 7). "
            "The search is greedy, as in dsRAG: it takes the best segment, then the best that still fits, and so on. "
            "That is fast but not always optimal (see 'Overall budget binds')."
        )
    worked_example_state.init()
    mode = st.radio(
        "Mode",
        list(MODES),
        format_func=MODES.__getitem__,
        horizontal=True,
        key=K.MODE,
        label_visibility="collapsed" if presenter.is_on() else "visible",
        help="Segments: the search on chunk values. Board: from raw scores to values, column by column. "
        "Round-robin: two queries taking turns.",
    )
    if mode == "board":
        render_board(parse_values)
        return
    if mode == "round_robin":
        render_round_robin(parse_values)
        return
    if mode == "exercises":
        render_exercises()
        return
    if mode == "runs":
        _render_runs()
        return

    if presenter.is_on():
        left, right = st.columns([3, 2], gap="medium")
        with left:
            _example_choice("collapsed")
        with right, st.expander("Values and limits"):
            _values_input()
            _limit_inputs()
        _presenter_notes()
    else:
        left, right = st.columns([3, 2], gap="large")
        with left:
            _example_inputs()
        with right:
            _limit_inputs()
    page = worked_example_state.read()
    try:
        values = parse_values(page.values_text)
    except ValueError as error:
        st.error(md(error), icon=":material/error:")
        return
    limits = page.limits
    try:
        search = find_best_segments(values, **limits)
        steps = explain_search(values, **limits)
        rows = candidate_segments(values, max_length=limits["max_length"])
    except ParameterError as error:
        st.error(md(error), icon=":material/error:")
        return
    _render_search(values, limits, search, steps, rows)


def _example_inputs() -> None:
    """The classroom example and its chunk values."""
    _example_choice("visible")
    _values_input()


def _example_choice(label_visibility: str) -> None:
    st.selectbox(
        "Classroom example",
        options=[*EXAMPLES, OWN_VALUES],
        key=K.EXAMPLE,
        on_change=worked_example_state.on_example_change,
        help="Each example sets the values and the limits that make its point.",
        label_visibility=label_visibility,
    )


def _values_input() -> None:
    st.text_input(
        "Chunk values (in document order)",
        key=K.VALUES,
        on_change=worked_example_state.on_values_change,
        args=(parse_values,),
        help=f"Numbers separated by commas, at most {MAX_TEACHING_VALUES}.",
    )


def _limit_inputs() -> None:
    """The search's three limits, and what the chosen example is for."""
    components.search_limit_inputs(
        (K.MAX_LENGTH, K.OVERALL, K.MINIMUM),
        worked_example_state.on_limits_change,
        most_chunks=MAX_TEACHING_VALUES,
        minimum_help=MINIMUM_RULE,
    )
    st.caption(
        f"The examples use the **course** preset's limits (minimum segment value {num(COURSE_PARAMS.minimum_value)}), "
        "under which the class's numbers hold; the other pages open on **default** "
        f"(minimum {num(DEFAULT_PARAMS.minimum_value)}). " + MINIMUM_RULE
    )
    page = worked_example_state.read()
    example = EXAMPLES.get(page.example)
    if example is not None and example.point and page.revealed:
        st.caption(f"**The point of this example:** {example.point}")  # it gives the answer: after the reveal
    if example is not None and example.source and page.revealed:
        st.caption(f"**Where it comes from:** {example.source}")


def _presenter_notes() -> None:
    """The example's notes on the slide (presenter mode): where its numbers come from always, its point
    once the last turn is on screen (the point gives the answer)."""
    page = worked_example_state.read()
    example = EXAMPLES.get(page.example)
    if example is None:
        return
    if example.source:
        presenter.note(f"Where it comes from: {example.source}")


def _render_search(values: list[float], limits: dict, search, steps, rows) -> None:
    """Predict, then reveal: the bars first, the answer on request; then the four tabs."""
    if presenter.is_on():
        _step_through(values, steps, limits)
        return
    st.toggle(
        "Reveal the answer",
        key=K.REVEAL,
        help="Let the class predict first: the picks, the candidate table and the comparison stay hidden until then.",
    )
    revealed = worked_example_state.read().revealed
    if revealed:
        st.markdown(f"#### {_answer_sentence(search, steps)}")
        st.toggle(
            "Compare with the optimal search",
            key=K.OPTIMAL,
            help="The exact solver (dynamic programming) under the same limits: the best total any set of segments "
            "can reach. It maximises a different objective than RSE's greedy turns.",
        )
    else:
        st.markdown("#### Predict: which segments does the search pick, in what order?")
    if revealed and worked_example_state.read().optimal:
        _greedy_vs_optimal(values, limits)
    else:
        st.plotly_chart(
            worked_example_chart(values, segment_bands(list(search)) if revealed else []),
            key=K.CHART,
            theme=None,
            config={"displaylogo": False, "displayModeBar": False},
        )

    step_tab, table_tab, runs_tab, check_tab = st.tabs(
        ["Step through the search", "Candidate segments", "All runs (Table 1)", "Check yourself"]
    )
    with step_tab:
        _step_through(values, steps, limits)
    with table_tab:
        if revealed:
            _candidate_table(rows)
        else:
            st.info("The candidate table shows the answer: reveal it first.", icon=":material/visibility_off:")
    with runs_tab:
        _all_runs_table(values, limits, stage=RUNS_ANSWERED if revealed else RUNS_SUMMED)
    with check_tab:
        _check_yourself(values, limits)


RUNS_LISTED, RUNS_SUMMED, RUNS_ANSWERED = 0, 1, 2
"""Table 1's stages: the runs only (the class sums them), their sums and which are allowed, the best and why."""
RUNS_STAGES = {
    RUNS_LISTED: "Runs",
    RUNS_SUMMED: "+ sums",
    RUNS_ANSWERED: "+ best run",
}


def runs_frame(runs, stage: int) -> pd.DataFrame:
    """Table 1 at ``stage``: what is not revealed yet is "?" (the best run is never given away early)."""
    hidden = ["?"] * len(runs)
    summed, answered = stage >= RUNS_SUMMED, stage >= RUNS_ANSWERED
    return pd.DataFrame(
        {
            "Run": [f"{row.first} to {row.last}" for row in runs],
            "Sum": [num(round(row.value, 10)) for row in runs] if summed else hidden,
            "Allowed": [("yes" if row.allowed else "no") for row in runs] if summed else hidden,
            "Best": [("best" if row.best else "") for row in runs] if answered else hidden,
            "Note": [row.note for row in runs] if answered else hidden,
        }
    )


def _all_runs_table(values: list[float], limits, *, stage: int = RUNS_ANSWERED, row_height: int = 35) -> None:
    """The lesson's Table 1: every run i..j, in board order, revealed up to ``stage``."""
    if not presenter.is_on():
        st.caption(
            "Every run of chunks, from each start to each end (the lesson's Table 1), with its sum and why it is or "
            "is not the best. Allowed: starts and ends on a chunk >= 0, within the max chunks per segment."
            + ("" if stage >= RUNS_ANSWERED else " Which run is best, and why, shows after the reveal.")
        )
    try:
        runs = all_runs(values, max_length=limits["max_length"])
    except ParameterError as error:
        st.error(md(error), icon=":material/error:")
        return
    st.dataframe(
        runs_frame(runs, stage),
        key=K.ALL_RUNS,
        hide_index=True,
        width="stretch",
        height=min(38 + row_height * len(runs), 600),
        row_height=row_height,
        column_config={
            "Run": st.column_config.TextColumn(width="small"),
            "Sum": st.column_config.TextColumn(width="small"),
            "Allowed": st.column_config.TextColumn(width="small"),
            "Best": st.column_config.TextColumn(width="small"),
            "Note": st.column_config.TextColumn(width="large"),
        },
    )


def _render_runs() -> None:
    """Table 1 as a block of its own: the example's values and limits in view, the table revealed in three
    stages (arrow keys, space, PageDown step them)."""
    worked_example_state.init()
    page = worked_example_state.read()
    left, right = st.columns([3, 2], gap="medium", vertical_alignment="bottom")
    with left:
        _example_choice("collapsed")
    try:
        values = parse_values(page.values_text)
    except ValueError as error:
        st.error(md(error), icon=":material/error:")
        return
    stage = hotkeys.step_keys(K.RUNS_HOTKEYS, K.RUNS_REVEAL, RUNS_LISTED, RUNS_ANSWERED, default=RUNS_LISTED)
    with right:
        st.segmented_control(
            "Table 1 shows",
            list(RUNS_STAGES),
            format_func=RUNS_STAGES.__getitem__,
            key=K.RUNS_REVEAL,
            label_visibility="collapsed",
        )
    stage = int(st.session_state.get(K.RUNS_REVEAL) or stage or RUNS_LISTED)
    text = f"Values {', '.join(num(v) for v in values)}; limits {limits_text(page.limits)}."
    if presenter.is_on():
        presenter.line(html.escape(text))
    else:
        st.markdown(f"**{html.escape(text)}**")
    _all_runs_table(values, page.limits, stage=stage, row_height=27 if presenter.is_on() else 35)


def _greedy_vs_optimal(values: list[float], limits) -> None:
    """Both answers side by side, their totals, and what each maximises (not a verdict on RSE)."""
    objective = explain_objective(values, **limits)
    a, b, c = st.columns(3)
    a.metric("Greedy total (RSE)", num(objective.greedy_total))
    b.metric("Maximum total", num(objective.optimal_total))
    c.metric("Difference", num(objective.optimal_total - objective.greedy_total))
    st.info("\n".join(f"- {line}" for line in objective.lines), icon=":material/school:")
    left, right = st.columns(2, gap="large")
    with left:
        st.markdown("**Greedy (dsRAG's search), in pick order**")
        st.plotly_chart(
            worked_example_chart(values, segment_bands(list(objective.greedy)), height=320),
            key=K.CHART,
            theme=None,
            config={"displaylogo": False, "displayModeBar": False},
        )
    with right:
        st.markdown("**Maximum total (exact search), in document order**")
        bands = [
            Band(segment.start, segment.end, f"O{number}", float(segment.score))
            for number, segment in enumerate(objective.optimal, 1)
        ]
        st.plotly_chart(
            worked_example_chart(values, bands, height=320),
            key=K.OPTIMAL_CHART,
            theme=None,
            config={"displaylogo": False, "displayModeBar": False},
        )
    st.caption(
        "Same limits for both: max chunks per segment, chunks overall, minimum segment value (>=), segments start "
        "and end on a chunk >= 0. The maximum total is never below the greedy's; the greedy is what dsRAG and this "
        "app's other pages use, and it keeps a gapped cluster in one piece."
    )


def _answer_sentence(search, steps) -> str:
    picks = list(search)
    if not picks:
        return "The search returns nothing."
    parts = [
        f"S{number} = {chunk_range(segment.start, segment.end)} ({num(segment.score)})"
        for number, segment in enumerate(picks, 1)
    ]
    return "The search picks " + ", then ".join(parts) + "."


def _step_through(values: list[float], steps, limits) -> None:
    """Turn 0 is the prediction (no picks shown); each turn adds one pick; the last is the stop.
    Arrow keys, space and PageDown step (the presenter's clicker)."""
    total = len(steps)
    hotkeys.step_keys(K.HOTKEYS, K.STEP, 0, total, default=0)
    current = _turn_stepper(total, steps, limits)
    entry = steps[current - 1] if current else None
    picks = [step for step in steps[:current] if step.kind is StepKind.PICK]
    bands = segment_bands(
        [step.segment for step in picks],
        current=len(picks) - 1 if entry is not None and entry.kind is StepKind.PICK else None,
    )
    if entry is not None and entry.kind is not StepKind.PICK and entry.segment is not None:
        bands.append(Band(entry.segment.start, entry.segment.end, "refused", float(entry.segment.score), refused=True))
    chart, text = st.columns([3, 2], gap="large")
    with chart:
        st.plotly_chart(
            worked_example_chart(values, bands, height=400 if presenter.is_on() else 340),
            key=K.STEP_CHART,
            theme=None,
            config={"displaylogo": False, "displayModeBar": False},
        )
    with text:
        if entry is None:
            st.markdown("**Turn 0: predict.** Which segment does the search pick first? Press → to see.")
            st.markdown(f"**Values:** {', '.join(num(v) for v in values)}  \n**Limits:** {limits_text(limits)}")
        elif entry.kind is StepKind.PICK:
            st.markdown(f"**Turn {entry.number}: picks {entry.label}**")
            a, b, c = st.columns(3)
            a.metric("Best segment", chunk_range(entry.segment.start, entry.segment.end).replace("chunks ", ""))
            b.metric("Value", num(entry.segment.score))
            c.metric("Chunks used", f"{entry.chunks_used} of {limits['overall_max_length']}")
            st.markdown(f"**What bound it:** {entry.constraint_note}.")
        elif entry.kind is StepKind.RETIRE:
            st.markdown(f"**Turn {entry.number}: no pick**")
            st.markdown(entry.message)
        else:
            st.markdown("**The search stops**")
            st.success(entry.message, icon=":material/flag:")
            example = EXAMPLES.get(worked_example_state.read().example)
            if presenter.is_on() and example is not None and example.point:  # the answer: only at the stop
                presenter.note(f"The point of this example: {example.point}")


def _turn_stepper(total: int, steps, limits) -> int:
    """Back / Next buttons and a slider over turns 0..``total`` (0 = predict); in presenter mode the
    turn's one line of narration takes the slider's place."""
    current = worked_example_state.clamp_step(total)
    widths = [1.3, 1.6, 8] if presenter.is_on() else [1, 1, 5]
    back, forward, slider = st.columns(widths, vertical_alignment="bottom")
    components.back_next_buttons(
        (back, forward),
        K.STEP,
        current,
        total,
        button_keys=(K.NEXT + "_back", K.NEXT),
        next_label="Next turn",
        icons=(":material/skip_previous:", ":material/skip_next:"),
    )
    if presenter.is_on():
        with slider:
            presenter.line(html.escape(_step_line(steps[current - 1] if current else None, limits)))
        return current
    slider.slider("Turn (0 = predict)", 0, total, key=K.STEP, help="Or arrow keys, space, PageDown.")
    return worked_example_state.read().step


def _step_line(entry, limits) -> str:
    if entry is None:
        return f"Turn 0: predict the first pick ({limits_text(limits)}). Press → to reveal it."
    if entry.kind is StepKind.PICK:
        return (
            f"Turn {entry.number}: picks {chunk_range(entry.segment.start, entry.segment.end)} "
            f"({num(entry.segment.score)}) as {entry.label}; bound by: {entry.constraint_note}."
        )
    if entry.kind is StepKind.RETIRE:
        return f"Turn {entry.number}: no pick. {entry.message}"
    return f"Stop: {entry.message}"


def _candidate_table(rows) -> None:
    st.caption(
        "Every segment that starts and ends on a non-negative chunk, best first, and the tempting "
        "wrong ones (widened onto a negative chunk, or too long). Click a column header to sort."
    )
    frame = pd.DataFrame(
        {
            "Chunks": [f"{row.first}-{row.last}" if row.length > 1 else str(row.first) for row in rows],
            "Length": [row.length for row in rows],
            "Sum": [round(row.value, 10) for row in rows],
            "Allowed": [row.allowed for row in rows],
            "Note": [row.note for row in rows],
        }
    )
    st.dataframe(
        frame,
        key=K.TABLE,
        hide_index=True,
        width="stretch",
        column_config={
            "Chunks": st.column_config.TextColumn(width="small"),
            "Length": st.column_config.NumberColumn(width="small"),
            "Sum": st.column_config.NumberColumn(format="%.2f", width="small"),
            "Allowed": st.column_config.CheckboxColumn(width="small"),
            "Note": st.column_config.TextColumn(width="large"),
        },
    )


def _check_yourself(values: list[float], limits) -> None:
    st.text_input(
        "Which segment does the search pick?",
        key=K.ANSWER,
        placeholder=f"e.g. {EXAMPLE_SEGMENT}, or {EXAMPLE_SEGMENTS} for all picks, or none",
        help="One range checks the first pick; several ranges check every pick. Chunks from 0, ranges inclusive.",
    )
    text = worked_example_state.read().answer
    if not text.strip():
        return
    try:
        verdict = check_typed_answer(values, text, **limits)
    except AnswerError as error:
        st.error(md(error), icon=":material/error:")
        return
    if verdict.correct:
        st.success(verdict.message, icon=":material/check_circle:")
    else:
        st.warning(verdict.message, icon=":material/close:")
