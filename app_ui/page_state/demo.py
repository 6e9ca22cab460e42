"""State of the Demo page: its keys, the story and step the view reads, their defaults and the
callbacks that move between them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import streamlit as st

from rse_core.teaching.demo_stories import STEPS, STORIES, STORY_BY_KEY, Story


class Keys:
    """The widget and state keys of views/demo.py."""

    PREFIX: Final = "demo"
    STORY: Final = "demo_story"
    STEP: Final = "demo_step"
    BACK: Final = "demo_back"
    NEXT: Final = "demo_next"
    HOTKEYS: Final = "demo_hotkeys"

    @staticmethod
    def values_chart(story: str) -> str:
        return f"demo_values_{story}"

    @staticmethod
    def compare_chart(story: str) -> str:
        return f"demo_compare_{story}"

    @staticmethod
    def overview_chart(story: str, step: str) -> str:
        """The whole document under a step's zoomed chart."""
        return f"demo_overview_{story}_{step}"


@dataclass(frozen=True)
class DemoState:
    """The story shown and its step (an index into ``STEPS``, kept in range)."""

    story: Story
    step: int


def init() -> None:
    """The first story at its first step, once per session (before the page draws its controls)."""
    st.session_state.setdefault(Keys.STORY, STORIES[0].key)
    st.session_state.setdefault(Keys.STEP, 0)


def read() -> DemoState:
    story = STORY_BY_KEY.get(st.session_state.get(Keys.STORY) or STORIES[0].key, STORIES[0])
    step = min(max(int(st.session_state.get(Keys.STEP, 0)), 0), len(STEPS) - 1)
    return DemoState(story=story, step=step)


def on_story_change() -> None:
    """Callback of the story choice: a new story starts at its first step."""
    st.session_state[Keys.STEP] = 0
