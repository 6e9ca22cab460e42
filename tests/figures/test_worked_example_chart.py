"""The worked example's bars carry their values written past their ends, read from the back of a room;
a projector's side-by-side charts are low, and a label must still clear the axis's tick labels."""

from __future__ import annotations

import pytest

from rse_core.figures.teaching import BIG_FONT, worked_example_chart

ROUND_ROBIN_QUERY_2 = [-0.3, 0.2, -0.1, 0.7, 0.6, -0.2, -0.5, 0.2]


@pytest.mark.parametrize("height", [250, 300, 400])
def test_the_lowest_and_highest_labels_have_room_inside_the_plot(height):
    figure = worked_example_chart(ROUND_ROBIN_QUERY_2, height=height)
    low, high = figure.layout.yaxis.range
    margin = figure.layout.margin
    plot_pixels = height - margin.t - margin.b
    pixels_per_unit = plot_pixels / (high - low)
    label = BIG_FONT + 8  # the text's height and its gap to the bar
    assert (min(ROUND_ROBIN_QUERY_2) - low) * pixels_per_unit >= label - 1e-9
    assert (high - max(ROUND_ROBIN_QUERY_2)) * pixels_per_unit >= label - 1e-9
