"""State of the KnowledgeBase page: its keys, its typed state, its initialiser and its callbacks."""

from __future__ import annotations

from typing import Final


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
    PARAM_FIELDS: Final = (
        "irrelevant_chunk_penalty",
        "decay_rate",
        "minimum_value",
        "max_length",
        "overall_max_length",
    )
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
