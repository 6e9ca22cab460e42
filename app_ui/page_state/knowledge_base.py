"""State of the Knowledge base page: its keys, its widgets' starting values, its preset, and the
:class:`RSEParams` and :class:`KBQueryParams` they make.

The page has its own query and sliders (a base fixes the chunk size, and the sidebar's documents
do not apply), starting from the sidebar's parameters. Streamlit forgets a widget's value when
its page is left, so the values are copied aside after each run and put back on return.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Final

import streamlit as st

from rse_core import Preset, RSEParams, ScorerName, preset
from rse_core.kb import FirstStage, KBQueryParams
from rse_core.param_specs import PARAM_SPECS, ParamGroup

from .. import keys, state
from ..samples import DEFAULT_SAMPLE, list_samples
from . import sidebar_settings

NO_RERANK: Final = "none"
"""The Rerank choice's value for no second stage (the first stage's values)."""


class Keys:
    """The widget and state keys of views/knowledge_base.py (its own query and sliders: the sidebar's do not
    apply there)."""

    SOURCE: Final = "kb_source"
    UPLOADS: Final = "kb_uploads"
    BUILD: Final = "kb_build"
    DISCARD: Final = "kb_discard"
    QUERY: Final = "kb_query"
    QUERY_2: Final = "kb_query_2"
    FIRST_STAGE: Final = "kb_first_stage"
    RANK_ACROSS: Final = "kb_rank_across_documents"
    RERANK: Final = "kb_rerank"
    WITHIN: Final = "kb_within"  # the hashes of the only documents searched; empty: the whole base
    NAMED: Final = "kb_named_documents"  # search only the documents the question names (KBQueryParams)
    PRESET: Final = "kb_preset"
    BODY: Final = "kb_body"
    SESSION_BASE: Final = "_kb_session_base"  # this session's base built from uploads (app_ui.knowledge_bases)
    FIRST_STAGE_CACHE: Final = "_kb_first_stage_cache"
    SAVED: Final = "_kb_saved_settings"  # the widgets' values as the page last left them
    PARAM_FIELDS: Final = tuple(spec.name for spec in PARAM_SPECS if spec.knowledge_base)
    """The RSE parameters the page has sliders for (the others come from its preset)."""

    @staticmethod
    def param(field: str) -> str:
        """The key of the page's slider for an RSEParams field."""
        return f"kb_{field}"

    @staticmethod
    def open_explore(doc_id: str) -> str:
        return f"kb_open_explore_{doc_id}"

    @staticmethod
    def strip(doc_id: str) -> str:
        return f"kb_strip_{doc_id}"


BUNDLED: Final = "bundled"
"""The source choice of the bundled samples' base."""


CUSTOM = state.CUSTOM_PRESET
PRESETS = (*(name.value for name in Preset), CUSTOM)
SCORER_OF_STAGE = {
    FirstStage.DENSE: ScorerName.MINILM,
    FirstStage.BM25: ScorerName.BM25,
    FirstStage.HYBRID: ScorerName.HYBRID,
}
"""The Explore scorer closest to a first stage (used when a document is opened there)."""


KB_SLIDERS = (  # the KBQueryParams fields the page has sliders for
    state.SliderSpec("top_n", "First-stage hits (N)", 10, 1000, 10, "Best chunks of the whole base per query (top_n)."),
    state.SliderSpec(
        "documents_selected",
        "Documents selected",
        1,
        30,
        1,
        "RSE runs over the documents of each query's best this-many hits (documents_selected).",
    ),
    state.SliderSpec(
        "selected_top_n",
        "Hits within selected documents",
        0,
        1000,
        10,
        "A second search inside the selected documents scores up to this many more chunks (selected_top_n; 0: off).",
    ),
    state.SliderSpec(
        "fusion_weight", "Fusion weight (dense)", 0.0, 1.0, 0.05, "Hybrid only: dense weight; BM25 gets 1 - weight."
    ),
)


WIDGET_KEYS = (
    Keys.SOURCE,
    Keys.QUERY,
    Keys.QUERY_2,
    Keys.FIRST_STAGE,
    Keys.RANK_ACROSS,
    Keys.RERANK,
    Keys.WITHIN,
    Keys.NAMED,
    Keys.PRESET,
    *(Keys.param(name) for name in Keys.PARAM_FIELDS),
    *(Keys.param(spec.field) for spec in KB_SLIDERS),
)


def _defaults() -> dict[str, object]:
    sidebar = state.read_params()
    samples = list_samples()
    query = samples[DEFAULT_SAMPLE].showcase_query if DEFAULT_SAMPLE in samples else ""
    kb_defaults = KBQueryParams()
    values: dict[str, object] = {
        Keys.SOURCE: BUNDLED,
        Keys.QUERY: query,
        Keys.QUERY_2: "",
        Keys.FIRST_STAGE: kb_defaults.first_stage.value,
        Keys.RANK_ACROSS: kb_defaults.rank_across_documents,
        Keys.RERANK: NO_RERANK,
        Keys.WITHIN: [],
        Keys.NAMED: kb_defaults.named_documents,
        Keys.PRESET: state.matching_preset(sidebar),
    }
    values.update({Keys.param(name): getattr(sidebar, name) for name in Keys.PARAM_FIELDS})
    values.update({Keys.param(spec.field): getattr(kb_defaults, spec.field) for spec in KB_SLIDERS})
    return values


def init() -> None:
    """Give every widget of the page its value, in this run: what it holds, else what it had when
    it was last drawn, else the default.

    Assigned on every run, not only when missing: a value put back in an earlier run (while the
    widget was not drawn, e.g. no base yet) is not sent to the browser, which then showed and sent
    back the slider's minimum."""
    saved = st.session_state.get(Keys.SAVED) or {}
    defaults: dict[str, object] | None = None
    for key in WIDGET_KEYS:
        if key in st.session_state:
            value = st.session_state[key]
        elif key in saved:
            value = saved[key]
        else:
            defaults = defaults or _defaults()
            value = defaults[key]
        st.session_state[key] = value


def save() -> None:
    """Copy the widgets' values aside (call at the end of the page's run)."""
    st.session_state[Keys.SAVED] = {key: st.session_state[key] for key in WIDGET_KEYS if key in st.session_state}


def apply_preset() -> None:
    """Callback of the page's preset box: its values into the page's RSE sliders."""
    name = st.session_state[Keys.PRESET]
    if name == CUSTOM:
        return
    values = preset(name)
    for field_name in Keys.PARAM_FIELDS:
        st.session_state[Keys.param(field_name)] = getattr(values, field_name)


def _matching_preset(values: Mapping[str, object]) -> str:
    """The preset whose values the page's RSE sliders hold in ``values``, or custom."""
    for name in Preset:
        if all(getattr(preset(name), field) == values[Keys.param(field)] for field in Keys.PARAM_FIELDS):
            return name.value
    return CUSTOM


def on_slider_change() -> None:
    """Callback of an RSE slider: the preset box says which preset (if any) the sliders match."""
    st.session_state[Keys.PRESET] = _matching_preset(st.session_state)


def read_params(values: Mapping[str, object] | None = None) -> RSEParams:
    """The page's RSE parameters: its preset (the default when custom) with its sliders."""
    values = st.session_state if values is None else values
    name = values.get(Keys.PRESET, CUSTOM)
    base = preset(name) if name != CUSTOM else RSEParams()
    slider_kinds = {name: type(getattr(base, name)) for name in Keys.PARAM_FIELDS}
    return base.with_changes(**{name: kind(values[Keys.param(name)]) for name, kind in slider_kinds.items()})


def read_kb_params(values: Mapping[str, object] | None = None) -> KBQueryParams:
    values = st.session_state if values is None else values
    return KBQueryParams(
        first_stage=FirstStage.parse(values[Keys.FIRST_STAGE]),
        top_n=int(values[Keys.param("top_n")]),
        documents_selected=int(values[Keys.param("documents_selected")]),
        selected_top_n=int(values[Keys.param("selected_top_n")]),
        fusion_weight=float(values[Keys.param("fusion_weight")]),
        rank_across_documents=bool(values[Keys.RANK_ACROSS]),
        named_documents=bool(values[Keys.NAMED]),
    )


def saved_settings() -> tuple[RSEParams, KBQueryParams]:
    """The page's settings as it last left them (its defaults if it was never opened), for another
    page to use: the Evaluate page's knowledge-base evaluation runs at them."""
    values = {**_defaults(), **(st.session_state.get(Keys.SAVED) or {})}
    return read_params(values), read_kb_params(values)


def apply_tuned(params: RSEParams, documents_selected: int) -> None:
    """Callback (on another page): a tuned setting into the page's saved sliders, so the page
    opens with it; the preset box names the preset it matches, if any."""
    values = {**_defaults(), **(st.session_state.get(Keys.SAVED) or {})}
    for name in Keys.PARAM_FIELDS:
        values[Keys.param(name)] = getattr(params, name)
    values[Keys.param("documents_selected")] = documents_selected
    values[Keys.PRESET] = _matching_preset(values)
    st.session_state[Keys.SAVED] = values
    for key in values:  # a value the page's widgets still hold would win over the saved one
        if key in WIDGET_KEYS:
            st.session_state.pop(key, None)


def keep_within(documents: Collection[str]) -> None:
    """Keep in the list of documents to search within only those the chosen base holds (another
    base was chosen since, or one was removed): call before the list is drawn."""
    chosen = st.session_state.get(Keys.WITHIN) or ()
    st.session_state[Keys.WITHIN] = [doc_id for doc_id in chosen if doc_id in documents]


def read_within() -> tuple[str, ...]:
    """The documents to search within, as the page's list holds them (after :func:`keep_within`)."""
    return tuple(st.session_state.get(Keys.WITHIN) or ())


def read_queries() -> tuple[str, ...]:
    texts = (st.session_state[Keys.QUERY], st.session_state[Keys.QUERY_2])
    return tuple(text for text in texts if text and text.strip())


def open_in_explore(slug: str, queries: tuple[str, ...], params: RSEParams, stage: str) -> None:
    """Callback of "Open in Explore": the sample, the queries, the scorer closest to the first
    stage and the page's parameters into the sidebar, then Explore (a full rerun)."""
    st.session_state[keys.SCORER] = SCORER_OF_STAGE[FirstStage.parse(stage)].value
    kept_by_explore = (ParamGroup.BASELINE, ParamGroup.OUTPUT)  # the sidebar's baselines and context order stay
    sidebar_settings.set_sidebar_params(
        **{spec.name: getattr(params, spec.name) for spec in PARAM_SPECS if spec.group not in kept_by_explore}
    )
    sidebar_settings.open_in_explore([slug], queries)
