"""Numbers as a teacher writes them on the board, for every text and figure that shows a value.

Shared by :mod:`rse_core.teaching` (explanations, exercises) and :mod:`rse_core.figures` (labels),
which may not import each other, so that a value reads the same in a sentence and on a chart.
"""

from __future__ import annotations


def num(x: float) -> str:
    """Two decimals, one trailing zero dropped ("1.2", "0.35", "2.0", "-0.15"); tiny values keep two digits."""
    if x != 0 and abs(x) < 0.005:
        return f"{x:.2g}"
    text = f"{x:.2f}"
    if text.endswith("0"):
        text = text[:-1]
    return "0.0" if text in ("-0.0", "0.0") else text
