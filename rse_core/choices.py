"""String choices that carry their words for people, written once next to their values.

A member is declared ``NAME = "value", "label"``: the value is what code, URLs and files use, the
label what a page or a message shows. Keeping the two on one line means adding a choice cannot
forget its label (a separate ``{member: label}`` table could).
"""

from __future__ import annotations

from enum import StrEnum


class LabelledChoice(StrEnum):
    """A :class:`~enum.StrEnum` whose members are declared as ``("value", "label")``."""

    label: str

    def __new__(cls, value: str, label: str) -> LabelledChoice:
        member = str.__new__(cls, value)
        member._value_ = value
        member.label = label
        return member
