"""State of the Demo page: its keys, its typed state, its initialiser and its callbacks."""

from __future__ import annotations

from typing import Final


class Keys:
    """The widget and state keys of views/demo.py."""

    PREFIX: Final = "demo"  # what the page's panels derive their widget keys from
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
