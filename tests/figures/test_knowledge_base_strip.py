"""The knowledge-base strip: bars are the values, bands are the segments, names are escaped."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from rse_core.figures.knowledge_base import document_strip, top_k_chunks_of
from rse_core.figures.style import PALETTE
from rse_core.kb import KBHit
from rse_core.segments import ExtractedSegment


def _segment(number: int, first: int, last: int) -> ExtractedSegment:
    return ExtractedSegment(number, 0, first, last + 1, "abc", "d.pdf", first, last, 0, 10, 1, 1, 1.0, "text")


def test_bars_bands_and_marks():
    values = np.array([-0.2, 0.5, 0.7, -0.1, 0.3])
    figure = document_strip("d.pdf", [values], [_segment(1, 1, 2), _segment(3, 4, 4)], [2])
    go.Figure(figure.to_dict())  # validates
    bars = figure.data[0]
    np.testing.assert_array_equal(bars.y, values)
    assert list(bars.marker.color) == [
        PALETTE.negative,
        PALETTE.positive,
        PALETTE.positive,
        PALETTE.negative,
        PALETTE.positive,
    ]
    bands = [shape for shape in figure.layout.shapes if shape.type == "rect"]
    assert [(band.x0, band.x1) for band in bands] == [(0.5, 2.5), (3.5, 4.5)]
    assert [annotation.text for annotation in figure.layout.annotations] == ["<b>S1</b>", "<b>S3</b>"]
    assert list(figure.data[-1].x) == [2] and figure.data[-1].name == "Top-k chunk"
    assert figure.layout.xaxis.dtick == 1  # a short document gets one tick per chunk


def test_a_second_query_is_drawn_and_the_name_is_escaped():
    figure = document_strip("<img src=x onerror=alert(1)>.pdf", [np.zeros(3), np.ones(3)], [])
    assert "<img" not in figure.layout.title.text and "&lt;img" in figure.layout.title.text
    assert figure.data[1].name == "Query 2"


def test_top_k_chunks_of_one_document():
    hits = [KBHit("a", "A", 3, 0, 1, 0.9), KBHit("b", "B", 1, 0, 1, 0.8), KBHit("a", "A", 1, 0, 1, 0.7)]
    assert top_k_chunks_of("A", hits) == [1, 3]
