"""The app-wide ``st.session_state`` keys and URL parameter names, named once.

Why one module: a key spelled in two places drifts apart silently (a page then reads a value no
widget writes), and a URL name is a public contract (shared links must keep opening the same
view). Helpers import these names instead of spelling keys. A page's own keys live with its state
in :mod:`app_ui.page_state` (``page_state.explore.Keys``). A panel drawn on several pages
(answers, judge, report, exports) derives its widgets' keys from the page's ``PREFIX``
(``f"{prefix}_ask"``), so two pages never share a widget.

Conventions: ``sb_`` keys are sidebar widgets, a leading underscore marks state no widget owns,
and ``rse_`` keys name containers the browser must keep by identity across reruns. No Streamlit
here, so the link parser (``app_ui.query_params``) stays free of it.
"""

from __future__ import annotations

from typing import Final

from rse_core.param_specs import PARAM_SPECS

# --- URL parameters: byte-identical forever (shared links carry them) -------------------------
URL_DOCS: Final = "docs"
URL_QUERY: Final = "q"
URL_QUERY_2: Final = "q2"
URL_SCORER: Final = "scorer"
URL_PRESET: Final = "preset"
URL_MODEL: Final = "model"
URL_UPLOADS: Final = "up"  # uploads the view used, by content hash and name (never their contents)
URL_PRESENT: Final = "present"  # presenter mode (app_ui.presenter): a view setting, not part of the state
URL_STREAMLIT_OWN: Final = frozenset({"embed", "embed_options", URL_PRESENT})  # not RSE state: never a notice

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


def param_key(field: str) -> str:
    """The key of the sidebar widget of an RSEParams field."""
    return f"sb_{field}"


PARAM_KEYS: Final[dict[str, str]] = {spec.name: param_key(spec.name) for spec in PARAM_SPECS}
"""RSEParams field -> its sidebar widget's key."""
SIDEBAR_VALUES: Final = (SAMPLES, QUERY, QUERY_2, SCORER, PRESET, COHERE_API_KEY, COHERE_MODEL, CROSS_ENCODER_MODEL)
"""The sidebar widgets whose values a page switch must keep (with ``PARAM_KEYS`` and ``PRESENT``;
not the upload box, whose files Streamlit does not let code set)."""

# --- state no widget owns ---------------------------------------------------------------------
STATE_INITIALIZED: Final = "_state_initialized"
URL_NOTICES: Final = "_url_notices"  # what the opening link asked for and did not get (shown once)
UPLOADS_CHANGED: Final = "_uploads_changed"
SIDEBAR_FILES: Final = "_sidebar_files"  # the sidebar box's files at its last change (app_ui.page_state.uploads)
LINK_UPLOADS: Final = "_link_uploads"  # the uploads the opening link names (query_params.LinkUpload)
LINK_FILES: Final = "_link_files"  # files given in the link's upload box, kept when the box is gone
LINK_UPLOAD_BOX: Final = "link_upload_box"
UPLOAD_PHASE: Final = "_upload_phase"  # "reading" while a new upload is read (app_ui.page_state.uploads)
RUN_STATE: Final = "_outcome"  # this run's RunState (app_ui.run_state), written by app.py
LAST_GOOD_RESULT: Final = "_last_good_result"  # shown, marked stale, while a new run fails
UPLOAD_CACHES: Final = "_upload_caches"  # this session's SessionCaches (app_ui.caching)
NAV_PAGES: Final = "_nav_pages"
CHART_WARMUP_SENT: Final = "_chart_warmup_sent"
JUDGE_CACHE: Final = "_judge_cache"
JUDGE_RESULTS: Final = "_judge_results"
ANSWERS: Final = "_answers"
# The LLM settings for answers, kept for the whole session (app_ui.llm_settings): Streamlit drops a
# widget's value on every page that does not draw it, so the widgets below are seeded from these.
LLM_PROVIDER: Final = "_llm_provider"
LLM_BASE_URL: Final = "_llm_base_url"
LLM_MODEL: Final = "_llm_model"
LLM_API_KEY: Final = "_llm_api_key"  # this session's only copy; never in the URL or an export
PRESENT: Final = "present_mode"  # the presenter toggle (app.py's sidebar)
PRESENT_FROM_URL: Final = "_present_from_url"  # the ?present= value last applied
PRESENT_EXIT: Final = "present_exit"
FULL_SCREEN_EXIT: Final = "full_screen_exit"  # a full-screen page's exit (app_ui.presenter)


def memo_key(name: str) -> str:
    """The key of a per-session memo (``app_ui.caching.session_memo``)."""
    return f"_memo_{name}"


def labels_key(key: str) -> str:
    """Where the labels a choice widget last showed are kept (``app_ui.state.keep_choice``)."""
    return f"_labels_{key}"


def page_images_key(kept: int) -> str:
    """The store of page images of one size class: per session, or per process for the samples
    (``app_ui.panels.page_images``)."""
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
PAGE_VIEW_SELECT: Final = "pv_select"  # the page view's "select a gold span" toggle
PAGE_VIEW_TO_GOLDEN: Final = "pv_to_golden"  # "make golden queries of it": to Evaluate's form
GOTO_PAGE: Final = "_goto_page"  # a page asked for (app_ui.navigation.request); app.py opens it
PAGE_GOLD_SPAN: Final = "_page_gold_span"  # the span last dragged on a page (page_state.page_gold.PageSpan)


def page_gold_drag(component_key: str) -> str:
    """The ``at`` of the last drag taken from a page-selection component (each is taken once)."""
    return f"_page_gold_drag_{component_key}"


def page_select(where: str, doc_id: str) -> str:
    """A page-selection component's value (its last drag), per place and document."""
    return f"page_select_{where}_{doc_id[:16]}"


EXPLAIN_APPLY_PENALTY: Final = "xp_apply_penalty"
EXPLAIN_STAGES: Final = "xp_stages"
