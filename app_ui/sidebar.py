"""The sidebar every page shares: documents, queries, scorer, preset and parameter sliders."""

from __future__ import annotations

import streamlit as st

from rse_core import Preset

from . import state
from .samples import list_samples


def _on_samples_change() -> None:
    """Switching the first sample switches to its showcase query, unless the user typed one."""
    samples = list_samples()
    showcase = {sample.showcase_query for sample in samples.values()}
    chosen = st.session_state[state.SAMPLES_KEY]
    if chosen and st.session_state[state.QUERY_KEY] in showcase | {""}:
        st.session_state[state.QUERY_KEY] = samples[chosen[0]].showcase_query


def _on_preset_change() -> None:
    state.apply_preset(st.session_state[state.PRESET_KEY])


def _on_param_change() -> None:
    st.session_state[state.PRESET_KEY] = state.matching_preset(state.read_params())


def render_sidebar() -> None:
    samples = list_samples()
    with st.sidebar:
        st.subheader("Documents")
        st.multiselect(
            "Sample documents",
            options=list(samples),
            format_func=lambda slug: samples[slug].label,
            key=state.SAMPLES_KEY,
            on_change=_on_samples_change,
            help="Bundled documents written for this app; several can be active at once.",
        )
        st.file_uploader(
            "Upload PDFs or text files",
            type=["pdf", "txt", "md"],
            accept_multiple_files=True,
            key=state.UPLOADS_KEY,
            help="Kept in memory for this session only. Segments never cross documents.",
        )

        st.subheader("Query")
        st.text_area("Query", key=state.QUERY_KEY, height=80, help="What the user asks.")
        st.text_input(
            "Second query (optional)",
            key=state.QUERY_2_KEY,
            help="RSE over several queries: they take turns picking segments (round-robin).",
        )

        st.subheader("Scorer")
        st.selectbox(
            "Scorer",
            options=state.SCORERS,
            key=state.SCORER_KEY,
            help="minilm: offline embeddings (default). hybrid: minilm and bm25 fused, offline. "
            "bm25: word overlap. cohere: Cohere's reranker (needs an API key). cross-encoder: a local "
            "sentence-transformers cross-encoder.",
        )
        scorer = st.session_state[state.SCORER_KEY]
        if scorer == "cohere":
            st.text_input(
                "Cohere API key",
                type="password",
                key=state.COHERE_KEY_KEY,
                help="Or set CO_API_KEY in the environment or in .streamlit/secrets.toml. Never put in the URL.",
            )
            st.text_input("Cohere model", key=state.COHERE_MODEL_KEY)
        elif scorer == "cross-encoder":
            st.text_input(
                "Cross-encoder model (name or local path)",
                key=state.CROSS_ENCODER_MODEL_KEY,
                help="A sentence-transformers CrossEncoder available on this machine.",
            )

        st.subheader("RSE parameters")
        st.selectbox(
            "Preset",
            options=[preset.value for preset in Preset] + [state.CUSTOM_PRESET],
            key=state.PRESET_KEY,
            on_change=_on_preset_change,
            help="Fills the sliders below. default: tuned for minilm; balanced, precision, find_all: "
            "dsRAG's numbers; course: the course's worked examples.",
        )
        st.select_slider(
            "Chunk size (characters)",
            options=state.CHUNK_SIZES,
            key=state.PARAM_KEYS["chunk_size"],
            help="Longer chunks -> fewer, coarser bars. Changing it rescores the documents.",
        )
        st.toggle(
            "Contextual chunk headers",
            key=state.PARAM_KEYS["chunk_headers"],
            help="Score each chunk with its document title and section heading in front (segments keep the "
            "exact text). Changing it rescores the documents.",
        )
        for spec in state.SLIDERS:
            st.slider(
                spec.label,
                spec.low,
                spec.high,
                step=spec.step,
                key=spec.key,
                help=spec.help,
                on_change=_on_param_change,
            )
        st.toggle(
            "Chunk-length adjustment",
            key=state.PARAM_KEYS["chunk_length_adjustment"],
            help="Scale values by max(length, 700) / 700: long chunks count more.",
            on_change=_on_param_change,
        )
