"""The keyboard stepping component's value is the browser's to choose: anything but a key press
is dropped before the component is drawn, and a key press still steps (AppTest, Worked example)."""

from __future__ import annotations

import functools
from pathlib import Path

from app_ui.hotkeys import is_key_press
from app_ui.page_state.worked_example import Keys
from tests.support.apptest_support import new_app, no_problems, open_page


def _nested(depth: int) -> list:
    return functools.reduce(lambda inner, _: [inner], range(depth), [])


def test_a_deeply_nested_or_oversized_value_is_dropped_and_a_key_press_still_steps():
    at = open_page(new_app().run(), "worked-example")
    no_problems(at)
    junk = (
        {"action": _nested(900), "at": _nested(900)},
        {"action": "next", "at": _nested(900)},
        {"action": "next", "at": "9" * 5_000_000},
        {"action": "next", "at": 1, "extra": list(range(1_000_000))},
    )
    for value in junk:
        at.session_state[Keys.HOTKEYS] = value
        at.run()
        no_problems(at)
        assert at.session_state[Keys.STEP] == 0
        assert at.session_state[Keys.HOTKEYS] is None  # dropped, as if nothing had been posted
    at.session_state[Keys.HOTKEYS] = {"action": "next", "at": 2}
    at.run()
    no_problems(at)
    assert at.session_state[Keys.STEP] == 1


def test_only_a_key_press_as_the_frontend_sends_it_is_a_value():
    assert is_key_press(None) and is_key_press({"action": "prev", "at": 1_733_000_000_000})
    for value in (
        {"action": "jump", "at": 1},
        {"action": "next"},
        {"action": "next", "at": True},
        {"action": "next", "at": "1"},
        {"action": "next", "at": 1, "x": 0},
        ["next", 1],
        "next",
    ):
        assert not is_key_press(value), value


def test_every_custom_component_checks_its_value_before_it_is_drawn():
    """A new component without the guard would let a frame's value break its page again."""
    root = Path(__file__).resolve().parents[2]
    declaring = [path for path in (root / "app_ui").rglob("*.py") if "declare_component(" in path.read_text()]
    assert len(declaring) >= 4
    for path in declaring:
        assert "drop_value_unless(" in path.read_text(), path.name
