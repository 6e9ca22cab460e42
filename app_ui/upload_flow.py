"""A new upload is read in a run of its own, so the page never shows a stale result or error meanwhile.

Why: embedding an upload takes from seconds to a minute. It used to happen inside the sidebar's
fragment, so the main area kept the previous document's result (or a red "No document selected")
on screen all that time. Now a change of uploads makes the next run a "reading" run: each page
draws only a note that the file is being read, then the file is read and embedded under that
note, then a normal run computes the result from the caches.

What the reading run does not draw stays in the browser until a run ends normally (Streamlit
marks it stale, faded, and removes it only then; a run that ends in ``st.rerun`` removes nothing).
So the note comes with a style that hides the stale elements of the main area: the old result
and old messages disappear at once, while a live chart's frame is kept (hidden) and only redrawn
by the next run, with no new frame to load plotly.js into. An earlier "announce" run that ended
before the embedding removed nothing either, for the same reason, and cost a whole run.
"""

from __future__ import annotations

import streamlit as st

from . import compute, corpora, widgets
from .page_state import uploads
from .run_state import RunOutcome
from .state import Inputs

# Streamlit marks an element container left from the previous run data-stale="true" until this
# run draws that position again. In the main area, while a file is read, those are hidden, and so
# is any block (a bordered container, an expander, a form) with nothing fresh left in it.
HIDE_STALE_CSS = """<style>
[data-testid="stMain"] [data-stale="true"],
[data-testid="stMain"] [data-testid]:has([data-stale="true"]):not(:has([data-stale="false"]))
  { display: none !important; }
</style>"""


def start() -> None:
    """After the uploads changed: make this run a reading run if a file is new."""
    if corpora.new_upload_names():
        uploads.start_reading()


def pending_outcome() -> RunOutcome | None:
    """The outcome of a reading run (no result, the files' names), or ``None`` when none is under way."""
    if not uploads.is_reading():
        return None
    names = corpora.new_upload_names()
    if not names:
        uploads.end_reading()
        return None
    return RunOutcome(pending_uploads=names)


def hide_stale() -> None:
    """Hide what the previous run left in the main area (drawn with the "being read" note)."""
    st.html(HIDE_STALE_CSS)


def advance(inputs: Inputs) -> None:
    """At the end of a reading run: read and embed the new files, then rerun for the result."""
    if not uploads.is_reading():
        return
    with widgets.progress_bar("Reading the upload...") as progress:
        for upload in corpora.current_uploads():
            try:
                corpora.parse_upload(upload)
            except Exception:  # the normal run reports it with its own message
                continue
        compute.embed_new_uploads(inputs, progress)
    uploads.end_reading()
    st.rerun()
