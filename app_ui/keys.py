"""Every ``st.session_state`` key and URL parameter name the app uses, named once.

Why one module: a key spelled in two places drifts apart silently (a page then reads a value no
widget writes), and a URL name is a public contract (shared links must keep opening the same
view). Pages and helpers import these names instead of spelling keys. The one exception is a
panel drawn on several pages (answers, judge, report, exports): it derives its widgets' keys
from the page's ``PREFIX`` below (``f"{prefix}_ask"``), so two pages never share a widget.

Conventions: ``sb_`` keys are sidebar widgets, a leading underscore marks state no widget owns,
and ``rse_`` keys name containers the browser must keep by identity across reruns. No Streamlit
here, so the link parser (``app_ui.query_params``) stays free of it.
"""

from __future__ import annotations

from typing import Final

from rse_core.param_specs import PARAM_SPECS, url_names

# --- URL parameters: byte-identical forever (shared links carry them) -------------------------
URL_DOCS: Final = "docs"
URL_QUERY: Final = "q"
URL_QUERY_2: Final = "q2"
URL_SCORER: Final = "scorer"
URL_PRESET: Final = "preset"
URL_MODEL: Final = "model"
URL_UPLOADS: Final = "up"  # uploads the view used, by content hash and name (never their contents)
URL_PARAMS: Final[dict[str, str]] = url_names()
"""RSEParams field -> URL name, in the order a link lists them (named in :mod:`rse_core.param_specs`)."""
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
LINK_UPLOADS: Final = "_link_uploads"  # the uploads the opening link names (query_params.LinkUpload)
LINK_FILES: Final = "_link_files"  # files given in the link's upload box, kept when the box is gone
LINK_UPLOAD_BOX: Final = "link_upload_box"
UPLOAD_PHASE: Final = "_upload_phase"  # "reading" while a new upload is read (app_ui.upload_flow)
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
PAGE_GOLD_SPAN: Final = "_page_gold_span"  # the span last dragged on a page (panels.page_select_panel.PageSpan)
PAGE_GOLD_DRAG: Final = "_page_gold_drag"  # component key -> ``at`` of its last drag taken (each taken once)


def page_select(where: str, doc_id: str) -> str:
    """A page-selection component's value (its last drag), per place and document."""
    return f"page_select_{where}_{doc_id[:16]}"


def page_select_page(doc_id: str) -> str:
    """The first page Evaluate shows for selecting on the page, per document."""
    return f"ev_page_select_page_{doc_id[:16]}"


EXPLAIN_APPLY_PENALTY: Final = "xp_apply_penalty"
EXPLAIN_STAGES: Final = "xp_stages"


# --- the pages' own widgets and state (one class per page) ------------------------------------


class Explore:
    """views/explore.py (``SELECTED_CHUNK``: corpus index of the chunk clicked on Explore; Evaluate reads it)."""

    PREFIX: Final = "explore"  # what the page's panels derive their widget keys from
    SELECTED_CHUNK: Final = "explore_selected_chunk"
    CHART: Final = "explore_chart"
    CHART_AREA: Final = "explore_chart_area"
    EXPORT_CODE: Final = "explore_export_code"  # the parameters-as-code panel drawn on request
    BODY: Final = "explore_body"
    STAGES: Final = "explore_stages"
    OPTIMAL: Final = "explore_optimal"
    ZOOM_STRIP: Final = "explore_zoom_strip"
    QUERY_CHOICE: Final = "explore_query"
    LAST_CLICK: Final = "_explore_last_click"
    SELECTED_CORPUS: Final = "_explore_selected_corpus"  # the corpus the selected index belongs to


class Compare:
    """views/compare.py."""

    PREFIX: Final = "compare"  # what the page's panels derive their widget keys from
    VARIANT: Final = "compare_variant"
    CHART: Final = "compare_chart"
    CHART_AREA: Final = "compare_chart_area"


class Demo:
    """views/demo.py."""

    PREFIX: Final = "demo"  # what the page's panels derive their widget keys from
    STORY: Final = "demo_story"
    STEP: Final = "demo_step"
    BACK: Final = "demo_back"
    NEXT: Final = "demo_next"
    HOTKEYS: Final = "demo_hotkeys"

    @staticmethod
    def values_chart(story: str) -> str:
        return f"demo_values_{story}"

    @staticmethod
    def compare_chart(story: str) -> str:
        return f"demo_compare_{story}"

    @staticmethod
    def overview_chart(story: str, step: str) -> str:
        """The whole document under a step's zoomed chart."""
        return f"demo_overview_{story}_{step}"


class Evaluate:
    """views/evaluate.py."""

    PREFIX: Final = "ev"  # what the page's panels derive their widget keys from
    SOURCE: Final = "ev_source"
    SAMPLE: Final = "ev_sample"
    EXTERNAL: Final = "ev_external"
    UPLOAD: Final = "ev_upload"
    TABLE: Final = "ev_table"
    TABLE_METRIC: Final = "ev_table_metric"
    OPEN: Final = "ev_open_query"
    BUILT: Final = "ev_built_set"  # GoldenSet | None: the set built on this page
    MARK_DOC: Final = "ev_mark_doc"
    MARK_CHUNKS: Final = "ev_mark_chunks"
    MARK_KIND: Final = "ev_mark_kind"
    MARK_ID: Final = "ev_mark_id"
    MARK_NOTE: Final = "ev_mark_note"
    MARK_MESSAGE: Final = "_ev_mark_message"  # (level, text) left by a callback for the next run
    SELECT_TEXT: Final = "ev_select_text"  # the text selection component's value: {start, end, at}
    SELECT_WHERE: Final = "ev_select_where"
    GOTO_MARKING: Final = "_ev_goto_marking"  # set by the page view's "make golden queries of it"
    SPAN_SOURCE: Final = "ev_span_source"
    SPAN_FORM: Final = "ev_span_form"
    FORM_QUERIES: Final = "ev_form_queries"
    ADD_QUERIES: Final = "ev_add_queries"
    CHART: Final = "ev_chart"
    DOWNLOAD_CSV: Final = "ev_download_csv"
    DOWNLOAD_JSON: Final = "ev_download_json"
    OPEN_EXPLORE: Final = "ev_open_explore"
    ADD_CLICKED: Final = "ev_add_clicked"
    ADD_SPAN: Final = "ev_add_span"
    BUILT_TABLE: Final = "ev_built_table"
    DOWNLOAD_GOLDEN: Final = "ev_download_golden"
    EVALUATE_BUILT: Final = "ev_evaluate_built"
    CLEAR_BUILT: Final = "ev_clear_built"


class EvaluateBudget:
    """views/evaluate_budget.py."""

    KIND: Final = "ev_budget_kind"
    BUDGET: Final = "ev_tune_budget"
    TUNE: Final = "ev_tune_run"
    APPLY: Final = "ev_tune_apply"
    CHART: Final = "ev_budget_chart"
    RESULT: Final = "_ev_tune_result"  # (settings key, TuneResult) of the last auto-tune on this page
    BUDGET_TABLE: Final = "ev_budget_table"


class EvaluateKB:
    """views/evaluate_kb.py."""

    SET: Final = "ev_kb_set"
    RUN: Final = "ev_kb_run"
    KIND: Final = "ev_kb_kind"
    CHART: Final = "ev_kb_chart"
    TABLE: Final = "ev_kb_table"
    BUDGET: Final = "ev_kb_budget"
    TUNE: Final = "ev_kb_tune"
    APPLY: Final = "ev_kb_apply"
    RESULT: Final = "_ev_kb_result"  # (run key, KBEvaluation) of the last run on this page
    TUNED: Final = "_ev_kb_tuned"  # (run key, budget, KBTuneResult) of the last auto-tune


class Lesson:
    """views/lesson.py."""

    CHART: Final = "ls_chart"
    MEASURED: Final = "ls_measured"
    SECTION: Final = "ls_section"
    OBJECTIVE_CHART: Final = "ls_objective_chart"
    STEP: Final = "ls_step"
    STEP_NEXT: Final = "ls_step_next"
    STEP_CHART: Final = "ls_step_chart"
    HOTKEYS: Final = "ls_hotkeys"
    HEADERS_TABLE: Final = "ls_headers_table"
    EXPLAIN_CHUNK: Final = "ls_explain_chunk"


class Sweep:
    """views/sweep.py."""

    Y: Final = "sw_y_param"
    METRIC: Final = "sw_metric"
    GOLD: Final = "sw_gold"
    NONCE: Final = "_sw_chart_nonce"
    LAST: Final = "_sw_last_sweep"
    GOLD_QUERIES: Final = "_sw_gold_queries"  # the golden queries the picker offers (a sample's and mine)

    @staticmethod
    def heatmap(nonce: int) -> str:
        """A new key after a click, so the chart forgets its selection."""
        return f"sw_heatmap_{nonce}"


class TransformLab:
    """views/transform_lab.py."""

    QUERY: Final = "tl_query"
    STAGE: Final = "tl_stage"
    BETA: Final = "tl_beta"
    DECAY: Final = "tl_decay"
    HISTOGRAMS: Final = "tl_histograms"
    STAGE_CHART: Final = "tl_stage_chart"

    @staticmethod
    def apply_penalty(number: int) -> str:
        return f"tl_apply_penalty_{number}"


class WorkedExample:
    """views/worked_example.py."""

    VALUES: Final = "we_values"
    EXAMPLE: Final = "we_example"
    MAX_LENGTH: Final = "we_max_length"
    OVERALL: Final = "we_overall_max_length"
    MINIMUM: Final = "we_minimum_value"
    STEP: Final = "we_step"
    OPTIMAL: Final = "we_optimal"
    MODE: Final = "we_mode"
    ANSWER: Final = "we_answer"
    TABLE: Final = "we_candidates"
    CHART: Final = "we_chart"
    ALL_RUNS: Final = "we_all_runs"
    OPTIMAL_CHART: Final = "we_optimal_chart"
    NEXT: Final = "we_next"
    STEP_CHART: Final = "we_step_chart"
    REVEAL: Final = "we_reveal"  # predict, then reveal: the answer stays hidden until the class has guessed
    HOTKEYS: Final = "we_hotkeys"
    EXERCISE: Final = "we_exercise"
    EXERCISE_ANSWER: Final = "we_exercise_answer"
    EXERCISE_KEY: Final = "we_exercise_key"
    HANDOUT: Final = "we_handout"
    HANDOUT_KEY: Final = "we_handout_key"


class WorkedBoard:
    """views/worked_board.py."""

    SCORES: Final = "we_board_scores"
    REVEAL: Final = "we_board_reveal"
    RR_STEP: Final = "we_rr_step"
    BOARD_TABLE: Final = "we_board_table"
    BOARD_LOOKUP: Final = "we_board_lookup"
    RR_NEXT: Final = "we_rr_next"
    RR_TABLE: Final = "we_rr_table"
    BETA_A: Final = "we_board_a"
    BETA_B: Final = "we_board_b"
    DECAY: Final = "we_board_decay"
    PENALTY: Final = "we_board_penalty"
    RR_FIRST: Final = "we_rr_first"
    RR_SECOND: Final = "we_rr_second"
    RR_MAX_LENGTH: Final = "we_rr_max_length"
    RR_OVERALL: Final = "we_rr_overall"
    RR_MINIMUM: Final = "we_rr_minimum"
    HOTKEYS: Final = "we_board_hotkeys"

    @staticmethod
    def rr_chart(query: int) -> str:
        return f"we_rr_chart_{query}"


class ChunkSize:
    """views/chunk_size.py."""

    RUN: Final = "cs_run"
    CHART: Final = "cs_chart"
    TABLE: Final = "cs_table"


class KnowledgeBase:
    """views/knowledge_base.py (its own query and sliders: the sidebar's do not apply there)."""

    SOURCE: Final = "kb_source"
    UPLOADS: Final = "kb_uploads"
    BUILD: Final = "kb_build"
    DISCARD: Final = "kb_discard"
    QUERY: Final = "kb_query"
    QUERY_2: Final = "kb_query_2"
    FIRST_STAGE: Final = "kb_first_stage"
    TOP_N: Final = "kb_top_n"
    DOCUMENTS_SELECTED: Final = "kb_documents_selected"
    SELECTED_TOP_N: Final = "kb_selected_top_n"
    FUSION_WEIGHT: Final = "kb_fusion_weight"
    RANK_ACROSS: Final = "kb_rank_across_documents"
    PRESET: Final = "kb_preset"
    BODY: Final = "kb_body"
    INITIALIZED: Final = "_kb_initialized"
    SESSION_BASE: Final = "_kb_session_base"  # this session's base built from uploads (app_ui.knowledge_bases)
    FIRST_STAGE_CACHE: Final = "_kb_first_stage_cache"
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
