"""The "Download report" button: one self-contained HTML file of the current view."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from datetime import UTC, datetime

import streamlit as st

from rse_core import ExtractionResult
from rse_core.figures.html_report import ReportAnswer, build_report

from .. import components, worker_pool
from . import answers_panel
from .page_images import current_requester


def render_report_download(result: ExtractionResult, prefix: str, top_k: Sequence[int] | None = None) -> None:
    """A download button; the file is built only when it is clicked (it holds plotly.js and page images)."""
    link = components.share_url()
    stored, model = answers_panel.stored_answers(result)
    labels = {context.key: context.label for context in answers_panel.answer_contexts(result)}
    answers = {key: ReportAnswer(labels.get(key, key), answer.text, answer.error) for key, answer in stored.items()}
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M")
    draw_pages = functools.partial(worker_pool.render_pages, requester=current_requester())  # drawn on click
    st.download_button(
        "Download report (HTML, opens offline)",
        data=lambda: build_report(result, link=link, answers=answers, model=model, top_k=top_k, draw_pages=draw_pages),
        file_name=f"rse-report-{stamp}.html",
        mime="text/html",
        key=f"{prefix}_download_report",
        icon=":material/summarize:",
        on_click="ignore",
        help="The chart (interactive), each segment on its pages, the top-k comparison, the answers if "
        "you asked an LLM, the parameters and a link back to this view, in one file. No API key is in it.",
    )
