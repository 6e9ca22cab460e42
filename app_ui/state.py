"""Session state: widget keys, defaults, URL round trip, and the inputs of one run.

Widgets own their values through their keys; this module sets those keys once per session
(from the URL when it carries a shared view, else from the defaults) and reads them back into a
typed :class:`Inputs` for the rest of the run.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

import streamlit as st

from rse_core import Preset, RSEParams, ScorerName, preset
from rse_core.param_specs import PARAM_SPECS, ParamSpec, spec_of
from rse_core.params import PRESET_INDEPENDENT_FIELDS, PRESETS

from . import keys, models, retrievers
from . import query_params as qp
from .samples import DEFAULT_SAMPLE, list_samples

MODEL_SCORERS = frozenset({ScorerName.COHERE, ScorerName.CROSS_ENCODER})  # scorers a link may name a model for
DEFAULT_COHERE_MODEL = "rerank-v3.5"
CUSTOM_PRESET = "custom"


@dataclass(frozen=True)
class SliderSpec:
    """One slider of a parameter object's field (the sidebar's RSE parameters, the Knowledge base
    page's query knobs): its range, step and the one-line help that says what it does."""

    field: str
    label: str
    low: float
    high: float
    step: float
    help: str


def sliders(specs: Iterable[ParamSpec] = PARAM_SPECS) -> tuple[SliderSpec, ...]:
    """The sidebar's sliders: every parameter whose spec has a slider range, in the specs' order."""
    return tuple(
        SliderSpec(spec.name, spec.display_label, spec.slider.low, spec.slider.high, spec.slider.step, spec.help)
        for spec in specs
        if spec.slider is not None
    )


def widget_bounds(specs: Iterable[ParamSpec] = PARAM_SPECS) -> dict[str, qp.NumberBounds]:
    """RSEParams field -> the range its widget offers (a link's number must fall in it)."""
    return {
        spec.name: qp.NumberBounds(*spec.widget_range, spec.options) for spec in specs if spec.widget_range is not None
    }


SLIDERS = sliders()
SLIDER_BY_FIELD = {spec.field: spec for spec in SLIDERS}


def keep_choice(
    key: str, options: Collection[object], fallback: object, label: Callable[[object], str] | None = None
) -> None:
    """Reset a choice widget's remembered value to ``fallback`` when its options no longer hold it
    (a document was removed, a set changed), before the widget is drawn.

    With ``label`` (the widget's ``format_func``): when the options' labels changed, the value is
    set again. The browser remembers a choice by its label, so after an upload "S1" kept showing
    the old S1's pages and characters.
    """
    if st.session_state.get(key) not in options:
        st.session_state[key] = fallback
    if label is not None:
        labels = tuple(label(option) for option in options)
        remembered = keys.labels_key(key)
        if st.session_state.get(remembered) not in (None, labels):
            st.session_state[key] = st.session_state[key]
        st.session_state[remembered] = labels


def fit_to_widgets(params: RSEParams) -> RSEParams:
    """Move values into the widgets' ranges (a shared link may carry any number)."""
    return params.with_changes(**{spec.name: spec.fit_to_widget(getattr(params, spec.name)) for spec in PARAM_SPECS})


@dataclass(frozen=True)
class Inputs:
    """Everything one run depends on, read from the widgets."""

    samples: tuple[str, ...]
    queries: tuple[str, ...]
    scorer: str
    scorer_options: tuple[tuple[str, str], ...]
    params: RSEParams


def init_state() -> None:
    """Set every widget's starting value once per session: URL parameters win over defaults."""
    if st.session_state.get(keys.STATE_INITIALIZED):
        return
    samples = list_samples()
    defaults = RSEParams()
    st.session_state[keys.SAMPLES] = [DEFAULT_SAMPLE] if DEFAULT_SAMPLE in samples else list(samples)[:1]
    first = samples.get(st.session_state[keys.SAMPLES][0]) if st.session_state[keys.SAMPLES] else None
    st.session_state[keys.QUERY] = first.showcase_query if first else ""
    st.session_state[keys.QUERY_2] = ""
    st.session_state[keys.SCORER] = ScorerName.MINILM.value
    st.session_state[keys.PRESET] = Preset.DEFAULT.value
    st.session_state[keys.COHERE_MODEL] = DEFAULT_COHERE_MODEL
    st.session_state[keys.CROSS_ENCODER_MODEL] = ""
    for field_name, key in keys.PARAM_KEYS.items():
        st.session_state[key] = _widget_value(getattr(defaults, field_name))
    st.session_state[keys.URL_NOTICES] = apply_url(url_parameters(), samples)
    st.session_state[keys.STATE_INITIALIZED] = True


def link_choices(samples) -> qp.LinkChoices:
    """What a link may name in this app: the samples, scorers, presets, offered models, slider ranges."""
    return qp.LinkChoices(
        samples=tuple(samples),
        scorers=retrievers.scorer_choices(),
        presets=tuple(preset.value for preset in Preset),
        cross_encoders=tuple(models.offered_cross_encoders()),
        bounds=widget_bounds(),
        texts={spec.name: spec.choices for spec in PARAM_SPECS if spec.choices},
    )


def url_parameters() -> dict[str, list[str]]:
    """``st.query_params`` with every value of a repeated name (``get`` would give only the last)."""
    return {key: st.query_params.get_all(key) for key in st.query_params}


def apply_url(params, samples) -> list[str]:
    """Copy what the link validly asks for into the widget keys; return notices for the rest.

    Every value goes through :func:`app_ui.query_params.parse_link`, which never raises; the
    notices are plain text (pages escape them where they show them).
    """
    link = qp.parse_link(params, link_choices(samples))
    notices = list(link.notices)
    if link.samples is not None:
        st.session_state[keys.SAMPLES] = list(link.samples)
    if link.query is not None:
        st.session_state[keys.QUERY] = link.query
    if link.query_2 is not None:
        st.session_state[keys.QUERY_2] = link.query_2
    if link.scorer is not None:
        st.session_state[keys.SCORER] = link.scorer
    if link.model and link.scorer == ScorerName.CROSS_ENCODER:
        st.session_state[keys.CROSS_ENCODER_MODEL] = link.model
    elif link.model and link.scorer == ScorerName.COHERE:
        st.session_state[keys.COHERE_MODEL] = link.model
    if link.preset is not None:
        apply_preset(link.preset)
    st.session_state[keys.LINK_UPLOADS] = link.uploads
    if link.params:
        try:
            valid = fit_to_widgets(read_params().with_changes(**link.params))
        except (ValueError, TypeError):  # the parser keeps values in range; this is a last guard
            notices.append("Ignored the link's parameters: they do not make a valid setting.")
        else:
            for field_name, key in keys.PARAM_KEYS.items():
                st.session_state[key] = _widget_value(getattr(valid, field_name))
            st.session_state[keys.PRESET] = matching_preset(valid)
    return notices


def _widget_value(value: object) -> object:
    """What a widget holds for a parameter value: an option name for an Enum (the context order)."""
    return value.value if isinstance(value, Enum) else value


def apply_preset(name: str) -> None:
    """Fill the parameter widgets from a preset (keeps chunk size, headers, top-k, window and context order)."""
    if name == CUSTOM_PRESET:
        return
    values = preset(name)
    for field_name, key in keys.PARAM_KEYS.items():
        if field_name not in PRESET_INDEPENDENT_FIELDS:
            st.session_state[key] = getattr(values, field_name)
    st.session_state[keys.PRESET] = name


def matching_preset(params: RSEParams) -> str:
    """The preset whose values the parameters equal (ignoring the fields no preset sets), or custom."""
    kept = {field_name: getattr(params, field_name) for field_name in PRESET_INDEPENDENT_FIELDS}
    for name, values in PRESETS.items():
        if values.with_changes(**kept) == params:
            return name.value
    return CUSTOM_PRESET


def set_param_values(values: Mapping[str, object]) -> None:
    """For a callback: put parameter values (by field) into their sidebar widgets, each moved into its
    widget's range, and mark the preset they match (or custom)."""
    for name, value in values.items():
        st.session_state[keys.param_key(name)] = spec_of(name).fit_to_widget(value)
    st.session_state[keys.PRESET] = matching_preset(read_params())


def read_params() -> RSEParams:
    """The parameters the widgets hold (always valid: widget ranges keep them so)."""
    return RSEParams(**{field_name: st.session_state[key] for field_name, key in keys.PARAM_KEYS.items()})


def read_inputs() -> Inputs:
    queries = tuple(q for q in (st.session_state[keys.QUERY], st.session_state[keys.QUERY_2]) if q and q.strip())
    scorer = st.session_state[keys.SCORER]
    options: tuple[tuple[str, str], ...] = ()
    if scorer == ScorerName.COHERE:
        options = (("model", st.session_state[keys.COHERE_MODEL] or DEFAULT_COHERE_MODEL),)
    elif scorer == ScorerName.CROSS_ENCODER:
        options = (("model", str(st.session_state.get(keys.CROSS_ENCODER_MODEL) or "").strip()),)
    return Inputs(
        samples=tuple(st.session_state[keys.SAMPLES]),
        queries=queries or (st.session_state[keys.QUERY],),
        scorer=scorer,
        scorer_options=options,
        params=read_params(),
    )


def sync_url(inputs: Inputs, uploads: Sequence[qp.LinkUpload] = ()) -> None:
    """Write the shareable part of the state to the URL (never an API key or an upload's contents).

    ``uploads`` are named by content hash and name, so a new session can ask for them. Bounded
    like the parser reads it back: a long query is written only as far as it is scored.
    """
    model = dict(inputs.scorer_options).get("model") if inputs.scorer in MODEL_SCORERS else None
    numbers = inputs.params.to_dict()
    wanted = qp.link_values(inputs.samples, inputs.queries, inputs.scorer, model, numbers, uploads)
    if st.session_state.get(keys.PRESENT):  # presenter mode is a view setting, kept in the link too
        wanted[keys.URL_PRESENT] = "1"
    current = {key: qp.first(st.query_params, key) for key in st.query_params}
    if current != wanted:
        st.query_params.from_dict(wanted)
