"""The parameter specs: the table agrees with RSEParams, every widget and sweep axis lies inside the
values validation accepts, and validation refuses exactly what the bounds exclude."""

from __future__ import annotations

import math
import typing

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rse_core import ParameterError, RSEParams
from rse_core.param_specs import PARAM_SPECS, ParamSpec, spec_of
from rse_core.params import PRESET_INDEPENDENT_FIELDS, PRESETS

NUMBERS = [spec for spec in PARAM_SPECS if spec.bounds is not None]


def test_the_specs_name_every_field_of_rseparams_in_order_with_its_type():
    hints = typing.get_type_hints(RSEParams)
    assert [spec.name for spec in PARAM_SPECS] == list(hints)
    assert all(spec.kind is hints[spec.name] for spec in PARAM_SPECS)


def test_url_names_are_the_published_ones():
    assert {spec.name: spec.url for spec in PARAM_SPECS} == {
        "chunk_size": "chunk",
        "irrelevant_chunk_penalty": "penalty",
        "decay_rate": "decay",
        "beta_a": "a",
        "beta_b": "b",
        "max_length": "maxlen",
        "overall_max_length": "overall",
        "minimum_value": "minval",
        "top_k": "topk",
        "chunk_length_adjustment": "adjust",
        "window": "window",
        "context_order": "order",
        "chunk_headers": "headers",
        "per_document_calibration": "perdoc",
    }


@pytest.mark.parametrize("spec", NUMBERS, ids=lambda spec: spec.name)
def test_every_widget_value_lies_inside_the_validation_bound(spec: ParamSpec):
    assert spec.slider is not None or spec.options, f"{spec.name} has no widget"
    ends = (spec.slider.low, spec.slider.high) if spec.slider else spec.options
    for value in ends:
        assert spec.bounds.contains(value), f"{spec.name}'s widget offers {value}, which validation refuses"
        RSEParams(**{spec.name: spec.kind(value)})


@pytest.mark.parametrize("spec", [spec for spec in PARAM_SPECS if spec.sweep_axis], ids=lambda spec: spec.name)
def test_every_sweep_setting_is_valid_and_on_the_slider(spec: ParamSpec):
    """A clicked sweep cell or a tuned setting moves a slider there: it must not be clamped."""
    low, high = spec.widget_range
    for value in spec.sweep_axis:
        assert spec.bounds.contains(value) and low <= value <= high, (spec.name, value)


def test_defaults_and_presets_sit_on_the_widgets():
    for params in (RSEParams(), *PRESETS.values()):
        for spec in PARAM_SPECS:
            value = getattr(params, spec.name)
            assert spec.fit_to_widget(value) == value, (spec.name, value)


def test_the_preset_independent_fields_are_those_no_preset_sets():
    assert set(PRESET_INDEPENDENT_FIELDS) == {
        "chunk_size",
        "chunk_headers",
        "per_document_calibration",
        "top_k",
        "window",
        "context_order",
    }
    default = RSEParams()
    for params in PRESETS.values():
        assert all(getattr(params, name) == getattr(default, name) for name in PRESET_INDEPENDENT_FIELDS)


@given(
    spec=st.sampled_from(NUMBERS),
    value=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-(10**6), 10**6)),
)
def test_validation_accepts_exactly_the_numbers_inside_the_bound(spec: ParamSpec, value: float):
    whole = isinstance(value, int)
    inside = math.isfinite(value) and spec.bounds.contains(value) and (whole or spec.kind is float)
    try:
        params = RSEParams(**{spec.name: value})
    except ParameterError as error:
        assert not inside, f"{spec.name}={value!r} refused: {error}"
        assert f"{spec.name} must be " in str(error)
    else:
        assert inside, f"{spec.name}={value!r} accepted"
        assert type(getattr(params, spec.name)) is spec.kind


def test_a_spec_is_found_by_its_field_name():
    assert spec_of("decay_rate").url == "decay"
    with pytest.raises(KeyError):
        spec_of("decay")
