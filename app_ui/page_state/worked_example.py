"""State of the WorkedExample page: its keys, its typed state, its initialiser and its callbacks."""

from __future__ import annotations

from typing import Final


class Keys:
    """The widget and state keys of views/worked_example.py."""

    VALUES: Final = "we_values"
    EXAMPLE: Final = "we_example"
    MAX_LENGTH: Final = "we_max_length"
    OVERALL: Final = "we_overall_max_length"
    MINIMUM: Final = "we_minimum_value"
    STEP: Final = "we_step"
    OPTIMAL: Final = "we_optimal"
    MODE: Final = "we_mode"
    ANSWER: Final = "we_answer"
    TABLE: Final = "we_candidates"
    CHART: Final = "we_chart"
    ALL_RUNS: Final = "we_all_runs"
    OPTIMAL_CHART: Final = "we_optimal_chart"
    NEXT: Final = "we_next"
    STEP_CHART: Final = "we_step_chart"
    REVEAL: Final = "we_reveal"  # predict, then reveal: the answer stays hidden until the class has guessed
    HOTKEYS: Final = "we_hotkeys"
    EXERCISE: Final = "we_exercise"
    EXERCISE_ANSWER: Final = "we_exercise_answer"
    EXERCISE_KEY: Final = "we_exercise_key"
    HANDOUT: Final = "we_handout"
    HANDOUT_KEY: Final = "we_handout_key"
