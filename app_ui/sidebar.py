"""The sidebar every page shares: documents, queries, scorer, preset and parameter sliders.

Not every control applies on every page (Worked example uses its own values and limits; the
Lesson page always runs its cases on the bundled samples). Each page's scope in
:mod:`app_ui.page_catalog` says which groups of controls it uses; the others are drawn disabled
under a line that says they do not apply there. Disabled rather than hidden: a widget that is not
drawn loses its value, and the user's settings must survive a visit to such a page.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from rse_core import Preset, ScorerName
from rse_core.param_specs import PARAM_SPECS, ParamGroup, ParamSpec

from . import keys, models, retrievers, state
from . import query_params as qp
from .page_catalog import Group, spec_at
from .page_state import sidebar_settings, uploads
from .samples import list_samples


def scope_of(url_path: str) -> frozenset[Group]:
    """The groups of controls the page at ``url_path`` uses (its :class:`~app_ui.page_catalog.PageSpec`)."""
    return spec_at(url_path).scope


def _not_here(applies: bool) -> None:
    if not applies:
        st.caption("Not used on this page.")


SIDEBAR_GROUP = {
    ParamGroup.VALUES: Group.VALUES,
    ParamGroup.CHUNKING: Group.VALUES,
    ParamGroup.SEARCH: Group.SEARCH,
    ParamGroup.BASELINE: Group.TOP_K,
    ParamGroup.OUTPUT: Group.TOP_K,
}
"""The sidebar group whose scope enables a parameter's control, by the part of the method it shapes."""


def render_uploads(disabled: bool) -> None:
    """The upload box. Not a fragment: a change must rerun the whole app anyway (which reads and
    embeds a new file while each page shows only that it is being read, see
    :mod:`app_ui.upload_flow`), and a fragment's run that only asked for that rerun cost a round trip."""
    st.file_uploader(
        "Upload PDFs or text files",
        type=["pdf", "txt", "md"],
        accept_multiple_files=True,
        key=keys.UPLOADS,
        on_change=uploads.keep_sidebar_files,
        help="Kept in this session's memory only and dropped when the session ends (see the README). "
        "Segments never cross documents.",
        disabled=disabled,
    )  # the page fragment starts the reading (page_frame.compute_this_run) when the box flagged a change


def render_sidebar(url_path: str = "") -> None:
    """Draw the sidebar's documents, query and scorer for the page at ``url_path`` (controls it
    does not use are disabled). The parameters below them are :func:`render_parameters`'s."""
    samples = list_samples()
    scope = scope_of(url_path)
    with st.sidebar:
        if note := spec_at(url_path).sidebar_note:
            st.info(note, icon=":material/info:")
        _documents_section(samples, scope)
        _query_section(scope)
        _scorer_section(scope)


def render_parameters(url_path: str = "", specs: Sequence[ParamSpec] = PARAM_SPECS) -> None:
    """The preset, chunk size, switches and sliders, in the sidebar's current position.

    Drawn by the page fragment (:mod:`app_ui.page_frame`), so moving one reruns only the
    fragment, which recomputes the result; the controls above stay as they are.
    """
    scope = scope_of(url_path)
    _values_section(scope, specs)
    _slider_section(scope, specs)


def _documents_section(samples: dict, scope: frozenset[Group]) -> None:
    st.subheader("Documents")
    _not_here(Group.DOCUMENTS in scope)
    st.multiselect(
        "Sample documents",
        options=list(samples),
        format_func=lambda slug: samples[slug].label,
        key=keys.SAMPLES,
        on_change=sidebar_settings.on_samples_change,
        help="Bundled documents written for this app; several can be active at once.",
        disabled=Group.DOCUMENTS not in scope,
    )
    render_uploads(disabled=Group.DOCUMENTS not in scope)


def _query_section(scope: frozenset[Group]) -> None:
    st.subheader("Query")
    _not_here(Group.QUERY in scope)
    st.text_area(
        "Query",
        key=keys.QUERY,
        height=80,
        max_chars=qp.QUERY_CHARS,
        help="What the user asks.",
        disabled=Group.QUERY not in scope,
    )
    st.text_input(
        "Second query (optional)",
        key=keys.QUERY_2,
        max_chars=qp.QUERY_CHARS,
        help="RSE over several queries: they take turns picking segments (round-robin).",
        disabled=Group.QUERY not in scope,
    )


def _scorer_section(scope: frozenset[Group]) -> None:
    st.subheader("Scorer")
    _not_here(Group.SCORER in scope)
    scorer_off = Group.SCORER not in scope
    choices = retrievers.scorer_choices()
    state.keep_choice(keys.SCORER, choices, ScorerName.MINILM.value)
    st.selectbox(
        "Scorer",
        options=choices,
        key=keys.SCORER,
        help="minilm: offline embeddings (default). hybrid: minilm and bm25 fused, offline. "
        "bm25: word overlap. mpnet, openai:MODEL, cohere:MODEL: the embedders this server's operator "
        "offers, scored like minilm. cohere: Cohere's reranker (needs an API key). cross-encoder: a local "
        "sentence-transformers cross-encoder. Changing it keeps the documents, the query and the sliders.",
        disabled=scorer_off,
    )
    scorer = st.session_state[keys.SCORER]
    if scorer == ScorerName.COHERE:
        st.text_input(
            "Cohere API key",
            type="password",
            key=keys.COHERE_API_KEY,
            help="Or set CO_API_KEY in the environment or in .streamlit/secrets.toml. Never put in the URL.",
            disabled=scorer_off,
        )
        st.text_input("Cohere model", key=keys.COHERE_MODEL, disabled=scorer_off)
    elif scorer == ScorerName.CROSS_ENCODER:
        _cross_encoder_picker(disabled=scorer_off)


def _values_section(scope: frozenset[Group], specs: Sequence[ParamSpec]) -> None:
    """Preset, chunk size and the switches that rescore or recalibrate."""
    st.subheader("RSE parameters")
    if not scope & {Group.VALUES, Group.SEARCH, Group.TOP_K}:
        _not_here(False)
    elif Group.TOP_K not in scope:
        st.caption("The baselines (top-k, window) and the context order are not used here.")
    st.selectbox(
        "Preset",
        options=[preset.value for preset in Preset] + [state.CUSTOM_PRESET],
        key=keys.PRESET,
        on_change=sidebar_settings.on_preset_change,
        help="Fills the sliders below. default: tuned for minilm; balanced, precision, find_all: "
        "dsRAG's numbers; course: the course's Nike example (minimum 0.7), under which the class numbers "
        "hold. The app opens on default (minimum 0.5).",
        disabled=Group.VALUES not in scope,
    )
    if st.session_state.get(keys.PRESET) != "course" and Group.VALUES in scope:
        st.caption(
            "The course's numbers are computed under the **course** preset (minimum segment value 0.7); "
            "the app opens on **default** (minimum 0.5, tuned for minilm)."
        )
    for spec in specs:
        if spec.group is ParamGroup.CHUNKING:
            _param_control(spec, scope)


def _slider_section(scope: frozenset[Group], specs: Sequence[ParamSpec]) -> None:
    """The sliders, switches and choices of every parameter that does not shape chunking, in the specs' order."""
    for spec in specs:
        if spec.group is not ParamGroup.CHUNKING:
            _param_control(spec, scope)


def _param_control(spec: ParamSpec, scope: frozenset[Group]) -> None:
    """One parameter's widget, chosen by its spec: a slider, offered sizes, a switch or a choice."""
    common = {
        "key": keys.param_key(spec.name),
        "help": spec.help,
        "on_change": sidebar_settings.on_param_change,
        "disabled": SIDEBAR_GROUP[spec.group] not in scope,
    }
    if spec.slider is not None:
        st.slider(spec.display_label, spec.slider.low, spec.slider.high, step=spec.slider.step, **common)
    elif spec.options:
        st.select_slider(spec.display_label, options=spec.options, **common)
    elif spec.kind is bool:
        st.toggle(spec.display_label, **common)
    else:
        labels = dict(zip(spec.choices, spec.option_labels or spec.choices, strict=True))
        st.radio(spec.display_label, options=spec.choices, format_func=labels.__getitem__, horizontal=True, **common)


def _cross_encoder_picker(disabled: bool = False) -> None:
    """Only the operator's local model folders can be picked (never a path or a Hub name)."""
    offered = list(models.offered_cross_encoders())
    if not offered:
        st.caption(
            "No cross-encoder model is offered on this server "
            f"(the operator lists local model folders in `{models.MODELS_ENV}`)."
        )
        return
    state.keep_choice(keys.CROSS_ENCODER_MODEL, offered, offered[0])
    st.selectbox(
        "Cross-encoder model",
        offered,
        key=keys.CROSS_ENCODER_MODEL,
        help="The local models the operator of this server offers.",
        disabled=disabled,
    )
