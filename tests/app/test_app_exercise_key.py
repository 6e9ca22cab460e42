"""Worked example → Exercises and Board, as a class meets them: the key hidden again for every new
exercise, and the lookup values a hand computation reads beside the exercises and the board that
start from scores."""

from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from rse_core.teaching.board import board_lookups
from rse_core.teaching.classroom import SCORES_EXAMPLE
from tests.support.apptest_support import new_app, open_page


def tables(at: AppTest, column: str) -> list:
    """The dataframes with ``column`` (AppTest does not expose a dataframe's key)."""
    return [d.value for d in at.dataframe if column in d.value.columns]


def worked_mode(mode: str) -> AppTest:
    at = new_app().run()
    open_page(at, "worked-example")
    at.radio(key="we_mode").set_value(mode).run()
    assert not at.exception and not at.error
    return at


def test_switching_exercise_hides_the_key_again():
    at = worked_mode("exercises")
    at.selectbox(key="we_exercise").set_value("E06").run()
    at.toggle(key="we_exercise_key").set_value(True).run()
    assert any("**Answer:**" in info.value for info in at.info)
    at.selectbox(key="we_exercise").set_value("E08").run()
    assert at.toggle(key="we_exercise_key").value is False
    assert not any("**Answer:**" in info.value for info in at.info)  # E08's -0.08 stays hidden


def test_an_exercise_from_scores_shows_every_lookup_value_it_needs():
    at = worked_mode("exercises")
    at.selectbox(key="we_exercise").set_value("E08").run()
    assert not at.exception
    (beta,) = tables(at, "beta.cdf")
    (decay,) = tables(at, "decay")
    assert {float(s) for s in beta["score"]} == set(SCORES_EXAMPLE.scores)
    assert [int(r) for r in decay["rank"]] == list(range(len(SCORES_EXAMPLE.scores)))
    at.selectbox(key="we_exercise").set_value("E01").run()
    assert not tables(at, "beta.cdf")  # values given: no lookups


def test_the_board_has_lookup_values_for_all_its_scores_and_ranks():
    at = worked_mode("board")
    *_, beta = tables(at, "beta.cdf")  # the last one: the board's own generic table comes first
    (decay,) = tables(at, "decay")
    expected = board_lookups(SCORES_EXAMPLE.scores, SCORES_EXAMPLE.params)
    assert list(zip(beta["score"], beta["beta.cdf"], strict=True)) == expected.beta_cells()
    assert list(zip(decay["rank"], decay["decay"], strict=True)) == expected.decay_cells()
    at.number_input(key="we_board_decay").set_value(10.0).run()
    (decay,) = tables(at, "decay")
    assert decay["decay"][1] == "0.905"  # exp(-1/10), the board's own decay rate


def test_no_hint_on_the_worked_example_shows_an_exercises_answer():
    """The page's caption and its "check yourself" placeholder, against every exercise's answer."""
    from rse_core.teaching.exercises import exercise_bank
    from tests.teaching.test_exercise_hints import EXAMPLE, gives_away

    at = worked_mode("segments")
    shown = [at.text_input(key="we_answer").placeholder, *(caption.value for caption in at.caption)]
    examples = [m.group(1).strip() for text in shown for m in EXAMPLE.finditer(text)]
    examples += [m.group(1) for text in shown for m in re.finditer(r"\((\d+-\d+) = chunks", text)]
    assert examples
    for exercise in exercise_bank():
        for example in examples:
            assert not gives_away(example, exercise), (example, exercise.id)
