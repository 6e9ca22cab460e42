"""Worked example → Exercises in a real browser at 1280x720: the key shown for one exercise is
hidden again when the class moves to the next, and E08 shows the lookup values it needs.

Screenshot (tests/artifacts/): exercise_e08_lookups_1280.png.
"""

from __future__ import annotations

import pytest

from .conftest import screenshot, wait_for_app

pytestmark = pytest.mark.browser


def open_mode(page, app_url: str, mode: str) -> None:
    """The Worked example at a projector's 1280x720, in ``mode`` (a label of its mode radio)."""
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{app_url}/worked-example")
    wait_for_app(page)
    page.get_by_text(mode, exact=True).click()
    wait_for_app(page)


def test_the_key_hides_again_on_the_next_exercise_and_e08_has_its_lookups(app_url, page):
    open_mode(page, app_url, "Exercises")
    page.get_by_text("Show the key").click()
    wait_for_app(page)
    page.get_by_text("Answer:").first.wait_for()
    page.get_by_role("combobox", name="Exercise").click()
    page.get_by_role("option", name="E08 · scores to values on the board").click()
    wait_for_app(page)
    page.get_by_text("E08. Turn the scores into values").wait_for()
    main = page.locator("[data-testid='stMain']")
    assert "-0.08" not in main.inner_text()  # neither the key nor a hint gives E08's answer
    assert page.get_by_text("beta.cdf of each score").is_visible()
    assert page.get_by_text("Decay of each rank").is_visible()
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, "exercise_e08_lookups_1280")


def test_the_board_lookup_values_sit_beside_the_board(app_url, page):
    open_mode(page, app_url, "Board: scores → values")
    page.get_by_text("Decay of each rank").wait_for()
    frames = page.locator("[data-testid='stMain'] [data-testid='stDataFrame']")
    board, beta, decay = (frames.nth(n).bounding_box() for n in range(3))  # the board, then its two lookups
    assert beta["x"] >= board["x"] + board["width"] and decay["x"] >= beta["x"] + beta["width"]  # beside, not under
    assert beta["y"] < board["y"] + board["height"] and beta["y"] < 720  # level with the board, in the first screen
    assert page.locator("[data-testid='stException']").count() == 0
    screenshot(page, "board_lookup_values_1280")
