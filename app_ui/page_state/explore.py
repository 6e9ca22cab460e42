"""State of the Explore page: its keys, its typed state, its initialiser and its callbacks."""

from __future__ import annotations

from typing import Final


class Keys:
    """The widget and state keys of views/explore.py (``SELECTED_CHUNK``: corpus index of the chunk clicked on
    Explore; Evaluate reads it)."""

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
