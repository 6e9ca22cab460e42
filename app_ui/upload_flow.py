"""A new upload is read in three runs, so the page never shows a stale result or error meanwhile.

Why: embedding an upload takes from seconds to a minute. It used to happen inside the sidebar's
fragment, so the main area kept the previous document's result (or a red "No document selected")
on screen all that time. Now a change of uploads starts an "announce" run, which draws each page
with only a note that the file is being read (so the old result is removed when that run ends),
then an "embed" run reads and embeds the file under that note, then a normal run computes the
result from the caches.
"""

from __future__ import annotations

import streamlit as st

from . import compute, corpora, keys, widgets
from .run_state import RunOutcome
from .state import Inputs

ANNOUNCE, EMBED = "announce", "embed"


def start() -> bool:
    """After the uploads changed: begin the reading runs if a file is new (``False``: none is)."""
    if not corpora.new_upload_names():
        return False
    st.session_state[keys.UPLOAD_PHASE] = ANNOUNCE
    return True


def pending_outcome() -> RunOutcome | None:
    """The outcome of a reading run (no result, the files' names), or ``None`` when none is under way."""
    if not st.session_state.get(keys.UPLOAD_PHASE):
        return None
    names = corpora.new_upload_names()
    if not names:
        st.session_state.pop(keys.UPLOAD_PHASE, None)
        return None
    return RunOutcome(pending_uploads=names)


def advance(inputs: Inputs) -> None:
    """At the end of a reading run: go on to embedding, or embed and rerun for the result."""
    phase = st.session_state.get(keys.UPLOAD_PHASE)
    if phase == ANNOUNCE:
        st.session_state[keys.UPLOAD_PHASE] = EMBED
        st.rerun()
    elif phase == EMBED:
        with widgets.progress_bar("Reading the upload...") as progress:
            for upload in corpora.current_uploads():
                try:
                    corpora.parse_upload(upload)
                except Exception:  # the normal run reports it with its own message
                    continue
            compute.embed_new_uploads(inputs, progress)
        st.session_state.pop(keys.UPLOAD_PHASE, None)
        st.rerun()
