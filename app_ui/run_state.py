"""What one run computed, passed from ``app.py`` to the page it runs, typed.

``app.py`` computes the result once per run (:func:`app_ui.compute.compute`) and stores it here;
pages read it with :func:`current_outcome`, never by a session key, so a page can neither
recompute nor misspell it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

from rse_core import ExtractionResult

from . import keys
from .query_params import LinkUpload


@dataclass
class RunOutcome:
    """What a page needs: the result (maybe the last good one), and what to tell the user."""

    result: ExtractionResult | None = None
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    stale: bool = False  # ``result`` is the last good one, shown while the problem in ``errors`` lasts
    scorer_failed: bool = False  # the scorer (not the documents) failed: offer the offline one
    missing_uploads: tuple[LinkUpload, ...] = ()  # uploads the opening link names that this session lacks
    unmatched_link_files: tuple[str, ...] = ()  # files given for the link whose contents are not the link's
    url_uploads: tuple[LinkUpload, ...] = ()  # the uploads the share link names


def store_outcome(outcome: RunOutcome) -> None:
    """Hand this run's outcome to the page (``app.py`` calls it before ``pages.run()``)."""
    st.session_state[keys.RUN_STATE] = outcome


def current_outcome() -> RunOutcome:
    """The outcome computed by ``app.py`` for this run (pages call this, never ``compute``)."""
    return st.session_state[keys.RUN_STATE]


def remember_good_result(result: ExtractionResult) -> None:
    """Keep ``result`` to show (marked stale) if a later run fails."""
    st.session_state[keys.LAST_GOOD_RESULT] = result


def last_good_result() -> ExtractionResult | None:
    return st.session_state.get(keys.LAST_GOOD_RESULT)
