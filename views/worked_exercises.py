"""Worked example, exercises mode: the exercise bank, each answer checked, and the printable handout.

The questions, their inputs and their answers come from :mod:`rse_core.teaching.exercises`; the
handout and the key from :mod:`rse_core.teaching.handout` (the same files the command line
``python -m rse_core.cli.handout`` writes). Widget keys start with ``we_exercise`` / ``we_handout``.
"""

from __future__ import annotations

import streamlit as st

from app_ui.page_state import worked_example as worked_example_state
from app_ui.safe_text import md
from rse_core.teaching.answers import AnswerError
from rse_core.teaching.exercises import exercise_bank
from rse_core.teaching.handout import answer_key_html, handout_html
from views.lookup_values import render_lookups

K = worked_example_state.Keys


def render_exercises() -> None:
    """Pick an exercise, answer it, check; the key on request; the handout and key as downloads."""
    exercises = exercise_bank()
    by_id = {exercise.id: exercise for exercise in exercises}
    st.caption(
        f"{len(exercises)} exercises, each with an answer the app computes. Answer, then check; the key shows the "
        "answer and why. Print the handout for the class and keep the key apart."
    )
    choice = st.selectbox(
        "Exercise",
        list(by_id),
        format_func=lambda key: f"{key} · {by_id[key].topic}",
        key=K.EXERCISE,
        on_change=worked_example_state.on_exercise_change,
    )
    exercise = by_id[choice]
    st.markdown(f"#### {exercise.id}. {md(exercise.prompt)}")
    # Inside a code span Markdown is literal: no escaping, only no backtick of its own.
    st.markdown("\n".join(f"- **{md(label)}:** `{_code(text)}`" for label, text in exercise.inputs))
    if exercise.lookups is not None:
        render_lookups(exercise.lookups, key=f"{K.EXERCISE}_lookups_{exercise.id}")
    st.text_input(
        "Your answer",
        key=f"{K.EXERCISE_ANSWER}_{exercise.id}",
        placeholder=exercise.kind.hint,
        help=f"Write {exercise.kind.hint}.",
    )
    text = st.session_state.get(f"{K.EXERCISE_ANSWER}_{exercise.id}", "")
    if text.strip():
        try:
            verdict = exercise.check(text)
        except AnswerError as error:
            st.error(md(error), icon=":material/error:")
        else:
            if verdict.correct:
                st.success(md(verdict.message), icon=":material/check_circle:")
            else:
                st.warning(md(verdict.message), icon=":material/close:")
    if st.toggle("Show the key", key=K.EXERCISE_KEY):
        st.info(f"**Answer:** `{_code(exercise.answer_text)}`. {md(exercise.explanation)}", icon=":material/key:")
    st.caption(f"Where to see it in the app: {md(exercise.where)}.")
    downloads = (
        ("handout", handout_html, "rse-exercises.html", K.HANDOUT, "print"),
        ("answer key", answer_key_html, "rse-answer-key.html", K.HANDOUT_KEY, "key"),
    )
    for column, (name, write, file_name, key, icon) in zip(st.columns(2), downloads, strict=True):
        column.download_button(
            f"Download the {name} (HTML)",
            data=write(exercises),
            file_name=file_name,
            mime="text/html",
            key=key,
            icon=f":material/{icon}:",
            on_click="ignore",
            width="stretch",
        )


def _code(text: str) -> str:
    return text.replace("`", "'").replace("\n", " ")
