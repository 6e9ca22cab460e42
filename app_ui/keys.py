"""Every ``st.session_state`` key and URL parameter name the app uses, named once.

Why one module: a key spelled in two places drifts apart silently (a page then reads a value no
widget writes), and a URL name is a public contract (shared links must keep opening the same
view). Pages and helpers import these names; no other module spells a key as a literal.

Conventions: ``sb_`` keys are sidebar widgets, a leading underscore marks state no widget owns,
and ``rse_`` keys name containers the browser must keep by identity across reruns. No Streamlit
here, so the link parser (``app_ui.query_params``) stays free of it.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Final

from rse_core import RSEParams

# --- URL parameters: byte-identical forever (shared links carry them) -------------------------
URL_DOCS: Final = "docs"
URL_QUERY: Final = "q"
URL_QUERY_2: Final = "q2"
URL_SCORER: Final = "scorer"
URL_PRESET: Final = "preset"
URL_MODEL: Final = "model"
URL_PARAMS: Final[dict[str, str]] = {
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
"""RSEParams field -> URL name, in the order a link lists them."""
URL_STREAMLIT_OWN: Final = frozenset({"embed", "embed_options"})  # Streamlit reads these itself

# --- the sidebar's widgets --------------------------------------------------------------------
SAMPLES: Final = "sb_samples"
UPLOADS: Final = "sb_uploads"
QUERY: Final = "sb_query"
QUERY_2: Final = "sb_query_2"
SCORER: Final = "sb_scorer"
PRESET: Final = "sb_preset"
COHERE_API_KEY: Final = "sb_cohere_api_key"
COHERE_MODEL: Final = "sb_cohere_model"
CROSS_ENCODER_MODEL: Final = "sb_cross_encoder_model"
PARAM_KEYS: Final[dict[str, str]] = {field.name: f"sb_{field.name}" for field in fields(RSEParams)}
"""RSEParams field -> its sidebar widget's key."""

# --- state no widget owns ---------------------------------------------------------------------
STATE_INITIALIZED: Final = "_state_initialized"
URL_NOTICES: Final = "_url_notices"  # what the opening link asked for and did not get (shown once)
UPLOADS_CHANGED: Final = "_uploads_changed"
RUN_STATE: Final = "_outcome"  # this run's RunState (app_ui.run_state), written by app.py
LAST_GOOD_RESULT: Final = "_last_good_result"  # shown, marked stale, while a new run fails
UPLOAD_CACHES: Final = "_upload_caches"  # this session's SessionCaches (app_ui.caching)
NAV_PAGES: Final = "_nav_pages"
CHART_WARMUP_SENT: Final = "_chart_warmup_sent"
JUDGE_CACHE: Final = "_judge_cache"
JUDGE_RESULTS: Final = "_judge_results"
ANSWERS: Final = "_answers"


def memo_key(name: str) -> str:
    """The key of a per-session memo (``app_ui.caching.session_memo``)."""
    return f"_memo_{name}"


def labels_key(key: str) -> str:
    """Where the labels a choice widget last showed are kept (``app_ui.state.keep_choice``)."""
    return f"_labels_{key}"


def page_images_key(kept: int) -> str:
    """The per-session store of page images of one size class (``app_ui.panels.page_view_panel``)."""
    return f"_pv_images_{kept}"


# --- keyed containers (kept by identity in the browser) and shared widgets ---------------------
PROGRESS_AREA: Final = "rse_scoring_progress"  # the scoring progress bar's container, drawn every run
MESSAGES_AREA: Final = "rse_page_messages"
CHART_WARMUP: Final = "rse_chart_warmup"
SWITCH_TO_OFFLINE: Final = "messages_switch_to_offline"

# --- panels -----------------------------------------------------------------------------------
ANSWERS_PROVIDER: Final = "ans_provider"
ANSWERS_BASE_URL: Final = "ans_base_url"
ANSWERS_MODEL: Final = "ans_model"
ANSWERS_API_KEY: Final = "ans_api_key"
PAGE_VIEW_TARGET: Final = "pv_target"
PAGE_VIEW_ZOOM: Final = "pv_zoom"
PAGE_VIEW_TOP_K: Final = "pv_show_top_k"
PAGE_VIEW_MODE: Final = "pv_mode"
PAGE_VIEW_ALL_PAGES: Final = "pv_all_pages"
EXPLAIN_APPLY_PENALTY: Final = "xp_apply_penalty"
EXPLAIN_STAGES: Final = "xp_stages"
