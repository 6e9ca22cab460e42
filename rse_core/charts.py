"""Plotly figures of RSE results (no Streamlit here: usable from a notebook too)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Palette:
    """Colours shared by every chart and page, chosen to stay distinct on a projector."""

    segment: str = "#2563eb"  # RSE segments: blue
    segment_band: str = "rgba(37, 99, 235, 0.12)"
    top_k: str = "#ea580c"  # top-k chunks: orange
    gap: str = "#ca8a04"  # low-scored chunks kept inside a segment: amber
    positive: str = "#0f766e"  # value >= 0: teal
    negative: str = "#94a3b8"  # value < 0: slate
    boundary: str = "#475569"


PALETTE = Palette()
