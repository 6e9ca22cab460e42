"""State of the Evaluate page: its keys, its typed state, its initialiser and its callbacks."""

from __future__ import annotations

from typing import Final


class Keys:
    """The widget and state keys of views/evaluate.py."""

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
