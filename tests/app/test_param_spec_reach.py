"""One new parameter spec reaches every place that lists parameters, with no other edit.

A throwaway spec is added to the real ones and handed to the real deriving code: the sidebar draws
its slider, a link carries it there and back, both command lines take its flag, validation checks it
and a sweep can vary it.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from types import SimpleNamespace

from streamlit.testing.v1 import AppTest

from app_ui import keys, state
from app_ui import query_params as qp
from rse_core import RSEParams
from rse_core.cli import extract, kb
from rse_core.cli.param_options import param_changes
from rse_core.evaluation.sweep import SweepParam, default_axis, sweep_params
from rse_core.param_specs import PARAM_SPECS, Bounds, ParamGroup, ParamSpec, SliderRange, preset_independent, problems

THROWAWAY = ParamSpec(
    "throwaway_knob",
    float,
    "Throwaway knob",
    "A parameter that exists only in this test.",
    ParamGroup.SEARCH,
    url="knob",
    cli="--throwaway-knob",
    bounds=Bounds(0, 10),
    slider=SliderRange(0.0, 5.0, 0.5),
    sweep_axis=(1.0, 2.0, 3.0),
    knowledge_base=True,
)
SPECS = (*PARAM_SPECS, THROWAWAY)
CHOICES = qp.LinkChoices(
    samples=("tech_report",),
    scorers=("bm25",),
    presets=("default",),
    cross_encoders=(),
    bounds=state.widget_bounds(SPECS),
    params=SPECS,
)


def _sidebar_with_throwaway() -> None:
    from app_ui import sidebar
    from tests.app.test_param_spec_reach import SPECS

    sidebar.render_parameters("", specs=SPECS)


def test_the_sidebar_draws_a_slider_for_a_new_spec():
    assert "throwaway_knob" not in {slider.field for slider in state.SLIDERS}
    added = state.sliders(SPECS)[-1]
    assert (added.field, added.low, added.high, added.step) == ("throwaway_knob", 0.0, 5.0, 0.5)
    at = AppTest.from_function(_sidebar_with_throwaway, default_timeout=60).run()
    assert not at.exception
    slider = at.slider(key=keys.param_key("throwaway_knob"))
    assert slider.label == "Throwaway knob" and slider.min == 0.0 and slider.max == 5.0


def test_a_link_carries_a_new_spec_there_and_back():
    written = qp.link_values(("tech_report",), ("q",), "bm25", None, {"throwaway_knob": 2.5}, specs=SPECS)
    assert written["knob"] == "2.5"
    link = qp.parse_link(written, CHOICES)
    assert link.params == {"throwaway_knob": 2.5} and not link.notices
    refused = qp.parse_link({"knob": "7"}, CHOICES)  # valid for the spec, but off its slider
    assert refused.params == {} and "knob" in refused.notices[0]
    unknown = qp.parse_link({"knob": "2.5"}, replace(CHOICES, params=PARAM_SPECS))  # the real specs lack it
    assert unknown.params == {} and "knob" in unknown.notices[0]


def test_both_command_lines_take_a_new_specs_flag():
    single = extract.build_parser(SPECS).parse_args(["doc.txt", "-q", "x", "--throwaway-knob", "2.5"])
    assert param_changes(single, SPECS) == {"throwaway_knob": 2.5}
    over_base = kb.build_parser(SPECS).parse_args(["query", "kb", "-q", "x", "--throwaway-knob", "2.5"])
    assert param_changes(over_base, SPECS) == {"throwaway_knob": 2.5}
    assert param_changes(argparse.Namespace(throwaway_knob=None), SPECS) == {}


def test_validation_and_the_preset_independent_fields_cover_a_new_spec():
    values = SimpleNamespace(**RSEParams().to_dict(), throwaway_knob=11.0)
    assert list(problems(values, SPECS)) == ["throwaway_knob must be between 0 and 10 (got 11.0)"]
    assert "throwaway_knob" in preset_independent(SPECS)


def test_a_sweep_can_vary_a_new_spec():
    assert "throwaway_knob" not in {param.value for param in SweepParam}
    extended = sweep_params(SPECS)
    knob = extended("throwaway_knob")
    assert knob.label == "throwaway knob" and knob.axis == (1.0, 2.0, 3.0)
    assert default_axis(knob, 2.5) == (1.0, 2.0, 2.5, 3.0)
    assert {param.value for param in SweepParam} < {param.value for param in extended}
