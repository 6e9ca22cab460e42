"""Session state: widget keys, defaults, URL round trip, and the inputs of one run.

Widgets own their values through their keys; this module sets those keys once per session
(from the URL when it carries a shared view, else from the defaults) and reads them back into a
typed :class:`Inputs` for the rest of the run.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import streamlit as st

from rse_core import Preset, RSEParams, preset
from rse_core.params import PRESET_INDEPENDENT_FIELDS, PRESETS

from . import query_params as qp
from .samples import DEFAULT_SAMPLE, list_samples

SAMPLES_KEY = "sb_samples"
UPLOADS_KEY = "sb_uploads"
QUERY_KEY = "sb_query"
QUERY_2_KEY = "sb_query_2"
SCORER_KEY = "sb_scorer"
PRESET_KEY = "sb_preset"
COHERE_KEY_KEY = "sb_cohere_api_key"
COHERE_MODEL_KEY = "sb_cohere_model"
CROSS_ENCODER_MODEL_KEY = "sb_cross_encoder_model"
NOTICES_KEY = "_url_notices"
INITIALIZED_KEY = "_state_initialized"

# RSEParams field -> sidebar widget key
PARAM_KEYS: dict[str, str] = {field.name: f"sb_{field.name}" for field in fields(RSEParams)}

SCORERS = ("minilm", "hybrid", "bm25", "cohere", "cross-encoder")
CUSTOM_PRESET = "custom"
CHUNK_SIZES = (200, 300, 400, 500, 600, 800, 1000, 1200, 1600, 2000)


@dataclass(frozen=True)
class SliderSpec:
    """One parameter slider: its range, step and the one-line help that says what it does."""

    field: str
    label: str
    low: float
    high: float
    step: float
    help: str

    @property
    def key(self) -> str:
        return PARAM_KEYS[self.field]

    def clamp(self, value: float) -> float:
        return min(max(value, self.low), self.high)


SLIDERS = (
    SliderSpec(
        "irrelevant_chunk_penalty",
        "Irrelevant chunk penalty",
        0.0,
        1.0,
        0.01,
        "Subtracted from every chunk: higher penalty -> shorter segments.",
    ),
    SliderSpec(
        "decay_rate",
        "Decay rate",
        1.0,
        300.0,
        1.0,
        "Value x exp(-rank / decay): lower -> only the top-ranked chunks count.",
    ),
    SliderSpec("beta_a", "Beta a", 0.1, 3.0, 0.05, "Beta CDF shape: a = b = 0.4 spreads scores bunched near 0 and 1."),
    SliderSpec("beta_b", "Beta b", 0.1, 3.0, 0.05, "Beta CDF shape: b > a lifts low scores, a > b pushes them down."),
    SliderSpec(
        "max_length",
        "Max chunks per segment",
        1,
        60,
        1,
        "Caps one segment's length: lower -> whole sections get cut into pieces.",
    ),
    SliderSpec(
        "overall_max_length", "Max chunks overall", 1, 300, 1, "Total budget for all segments: lower -> fewer segments."
    ),
    SliderSpec(
        "minimum_value",
        "Minimum segment value",
        0.0,
        3.0,
        0.05,
        "Segments worth less are dropped: higher -> fewer, surer segments.",
    ),
    SliderSpec("top_k", "Top-k (baseline)", 1, 30, 1, "How many best-scored chunks the top-k baseline keeps."),
)
SLIDER_BY_FIELD = {spec.field: spec for spec in SLIDERS}


def fit_to_widgets(params: RSEParams) -> RSEParams:
    """Move values into the widgets' ranges (a shared link may carry any number)."""
    changes: dict[str, object] = {
        field: type(getattr(params, field))(spec.clamp(getattr(params, field)))
        for field, spec in SLIDER_BY_FIELD.items()
    }
    changes["chunk_size"] = min(CHUNK_SIZES, key=lambda size: abs(size - params.chunk_size))
    return params.with_changes(**changes)


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
    if st.session_state.get(INITIALIZED_KEY):
        return
    samples = list_samples()
    defaults = RSEParams()
    st.session_state[SAMPLES_KEY] = [DEFAULT_SAMPLE] if DEFAULT_SAMPLE in samples else list(samples)[:1]
    first = samples.get(st.session_state[SAMPLES_KEY][0]) if st.session_state[SAMPLES_KEY] else None
    st.session_state[QUERY_KEY] = first.showcase_query if first else ""
    st.session_state[QUERY_2_KEY] = ""
    st.session_state[SCORER_KEY] = "minilm"
    st.session_state[PRESET_KEY] = Preset.DEFAULT.value
    st.session_state[COHERE_MODEL_KEY] = "rerank-v3.5"
    st.session_state[CROSS_ENCODER_MODEL_KEY] = ""
    for field_name, key in PARAM_KEYS.items():
        st.session_state[key] = getattr(defaults, field_name)
    st.session_state[NOTICES_KEY] = apply_url(st.query_params, samples)
    st.session_state[INITIALIZED_KEY] = True


def apply_url(params, samples) -> list[str]:
    """Copy valid URL parameters into the widget keys; return notices for ignored ones."""
    notices = []
    docs = qp.first(params, qp.DOCS)
    if docs is not None:
        chosen = [slug for slug in docs.split(",") if slug in samples]
        if chosen:
            st.session_state[SAMPLES_KEY] = chosen
        unknown = [slug for slug in docs.split(",") if slug and slug not in samples]
        if unknown:
            notices.append(f"Unknown sample document(s) in the link: {', '.join(unknown)}.")
    for name, key in ((qp.QUERY, QUERY_KEY), (qp.QUERY_2, QUERY_2_KEY)):
        value = qp.first(params, name)
        if value is not None:
            st.session_state[key] = value[:2000]
    scorer = qp.first(params, qp.SCORER)
    if scorer in SCORERS:
        st.session_state[SCORER_KEY] = scorer
    elif scorer is not None:
        notices.append(f"Unknown scorer {scorer!r} in the link; using minilm.")
    model = qp.first(params, qp.MODEL)
    if model and st.session_state[SCORER_KEY] == "cross-encoder":
        st.session_state[CROSS_ENCODER_MODEL_KEY] = model
    elif model and st.session_state[SCORER_KEY] == "cohere":
        st.session_state[COHERE_MODEL_KEY] = model
    preset_name = qp.first(params, qp.PRESET)
    if preset_name is not None:
        try:
            apply_preset(Preset.parse(preset_name).value)
        except ValueError:
            notices.append(f"Unknown preset {preset_name!r} in the link.")
    changes = {}
    for url_name, (field_name, kind) in qp.PARAM_FIELDS.items():
        raw = qp.first(params, url_name)
        if raw is None:
            continue
        try:
            changes[field_name] = qp.parse_value(raw, kind)
        except ValueError:
            notices.append(f"Ignored {url_name}={raw!r} in the link: not a valid number.")
    if changes:
        try:
            valid = fit_to_widgets(read_params().with_changes(**changes))
        except ValueError as error:
            notices.append(f"Ignored the link's parameters: {error}")
        else:
            for field_name, key in PARAM_KEYS.items():
                st.session_state[key] = getattr(valid, field_name)
            st.session_state[PRESET_KEY] = matching_preset(valid)
    return notices


def apply_preset(name: str) -> None:
    """Fill the parameter widgets from a preset (keeps chunk size, headers, top-k, window and context order)."""
    if name == CUSTOM_PRESET:
        return
    values = preset(name)
    for field_name, key in PARAM_KEYS.items():
        if field_name not in PRESET_INDEPENDENT_FIELDS:
            st.session_state[key] = getattr(values, field_name)
    st.session_state[PRESET_KEY] = name


def matching_preset(params: RSEParams) -> str:
    """The preset whose values the parameters equal (ignoring the fields no preset sets), or custom."""
    kept = {field_name: getattr(params, field_name) for field_name in PRESET_INDEPENDENT_FIELDS}
    for name, values in PRESETS.items():
        if values.with_changes(**kept) == params:
            return name.value
    return CUSTOM_PRESET


def read_params() -> RSEParams:
    """The parameters the widgets hold (always valid: widget ranges keep them so)."""
    return RSEParams(**{field_name: st.session_state[key] for field_name, key in PARAM_KEYS.items()})


def read_inputs() -> Inputs:
    queries = tuple(q for q in (st.session_state[QUERY_KEY], st.session_state[QUERY_2_KEY]) if q and q.strip())
    scorer = st.session_state[SCORER_KEY]
    options: tuple[tuple[str, str], ...] = ()
    if scorer == "cohere":
        options = (("model", st.session_state[COHERE_MODEL_KEY] or "rerank-v3.5"),)
    elif scorer == "cross-encoder":
        options = (("model", st.session_state[CROSS_ENCODER_MODEL_KEY].strip()),)
    return Inputs(
        samples=tuple(st.session_state[SAMPLES_KEY]),
        queries=queries or (st.session_state[QUERY_KEY],),
        scorer=scorer,
        scorer_options=options,
        params=read_params(),
    )


def sync_url(inputs: Inputs) -> None:
    """Write the shareable part of the state to the URL (never an API key or an upload)."""
    wanted: dict[str, str] = {qp.DOCS: ",".join(inputs.samples), qp.QUERY: inputs.queries[0], qp.SCORER: inputs.scorer}
    if len(inputs.queries) > 1:
        wanted[qp.QUERY_2] = inputs.queries[1]
    if inputs.scorer in ("cross-encoder", "cohere"):
        model = dict(inputs.scorer_options).get("model")
        if model:
            wanted[qp.MODEL] = model
    for url_name, (field_name, _) in qp.PARAM_FIELDS.items():
        wanted[url_name] = qp.format_value(getattr(inputs.params, field_name))
    current = {key: qp.first(st.query_params, key) for key in st.query_params}
    if current != wanted:
        st.query_params.from_dict(wanted)
