"""The Demo's zoom: the window of chunks a story is about, the zoomed chart and the overview strip."""

from __future__ import annotations

from functools import cache

import plotly.graph_objects as go
import pytest

from app_ui.samples import list_samples
from rse_core import RSEParams, extract, load_document
from rse_core.figures.compare import compare_chart
from rse_core.figures.focus import ChunkWindow, focus_window, overview_strip, story_window, zoom_to
from rse_core.figures.values import value_chart


@cache
def _result():
    """A handbook factoid (hb-02, bm25; the Demo's factoid story before it moved to hb-05): one segment near
    the start, top-k spread far."""
    sample = list_samples()["employee_handbook"]
    golden = next(query for query in sample.golden.queries if query.id == "hb-02")
    return extract(load_document(sample.path), golden.query, RSEParams(), scorer="bm25")


def test_the_window_holds_the_core_with_a_margin():
    assert focus_window([(40, 49)], 200, margin=2, min_chunks=5) == ChunkWindow(38, 51, 200)


def test_a_narrow_core_is_widened_to_the_minimum_around_its_centre():
    window = focus_window([(100, 101)], 200, margin=0, min_chunks=15)
    assert window.end - window.start == 15 and window.start <= 100 < window.end
    assert abs((window.start + window.end) / 2 - 100.5) <= 1


@pytest.mark.parametrize(
    ("core", "expected"), [((0, 2), ChunkWindow(0, 15, 200)), ((198, 200), ChunkWindow(185, 200, 200))]
)
def test_the_window_stays_inside_the_document(core, expected):
    assert focus_window([core], 200, margin=2, min_chunks=15) == expected


def test_top_k_chunks_near_the_core_join_it_and_far_ones_do_not():
    window = focus_window([(40, 49)], 200, nearby=[36, 55, 120], reach=6, margin=0, min_chunks=1)
    assert window == ChunkWindow(36, 49, 200)  # 36 is 4 chunks away; 55 is 6 past the end, 120 far off


def test_with_no_segment_the_top_k_chunks_are_the_story():
    assert focus_window([], 200, nearby=[60, 64], margin=1, min_chunks=1) == ChunkWindow(59, 66, 200)


def test_with_nothing_to_show_the_window_is_the_whole_document():
    window = focus_window([], 80)
    assert window == ChunkWindow(0, 80, 80) and window.is_whole


def test_a_small_document_is_shown_whole():
    assert focus_window([(3, 5)], 10, min_chunks=15) == ChunkWindow(0, 10, 10)


def test_the_story_window_covers_segments_and_gold_but_not_the_whole_document():
    result = _result()
    n = len(result.corpus.chunks)
    (segment,) = result.segments
    far = [index for index in result.top_k if index > segment.end + 20]
    assert far  # the case has top-k chunks far from the story
    window = story_window(result, gold=(segment.end + 1, segment.end + 3))
    assert window.start <= segment.start and segment.end + 3 <= window.end
    assert window.end - window.start < n / 3
    assert not any(index in window for index in far)


def test_zoom_sets_the_range_and_counts_the_top_k_chunks_it_leaves_out():
    result = _result()
    window = ChunkWindow(10, 30, len(result.corpus.chunks))
    figure = zoom_to(value_chart(result, range_slider=True), window, top_k=[5, 12, 40, 41])
    go.Figure(figure.to_dict())  # a valid figure
    assert tuple(figure.layout.xaxis.range) == (9.5, 29.5)
    assert not figure.layout.xaxis.rangeslider.visible
    notes = [a.text for a in figure.layout.annotations if "top-k" in (a.text or "")]
    assert notes == ["\u2190 1 more top-k chunk", "2 more top-k chunks \u2192"]


def test_the_comparison_chart_zooms_too():
    result = _result()
    figure = zoom_to(compare_chart(result), ChunkWindow(20, 40, len(result.corpus.chunks)))
    assert tuple(figure.layout.xaxis.range) == (19.5, 39.5)


def test_the_overview_draws_every_chunk_and_outlines_the_window():
    result = _result()
    n = len(result.corpus.chunks)
    window = ChunkWindow(20, 40, n)
    figure = overview_strip(result, window)
    go.Figure(figure.to_dict())  # a valid figure
    bars = figure.data[0]
    assert len(bars.x) == n and tuple(figure.layout.xaxis.range) == (-0.5, n - 0.5)
    assert figure.layout.xaxis.fixedrange and figure.layout.yaxis.fixedrange
    outlines = [s for s in figure.layout.shapes if s.layer == "above"]
    assert [(s.x0, s.x1) for s in outlines] == [(19.5, 39.5)]
    veils = [(s.x0, s.x1) for s in figure.layout.shapes if s.fillcolor and "100, 116, 139" in s.fillcolor]
    assert veils == [(-0.5, 19.5), (39.5, n - 0.5)]
    assert "chunks 20\u201339" in figure.layout.annotations[0].text
