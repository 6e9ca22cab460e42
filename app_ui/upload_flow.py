"""A new upload is read in a run of its own, so the page never shows a stale result or error meanwhile.

Why: embedding an upload takes from seconds to a minute. It used to happen inside the sidebar's
fragment, so the main area kept the previous document's result (or a red "No document selected")
on screen all that time. Now a change of uploads makes the next run a "reading" run: on a page
that reads a result, ``app.py`` calls :func:`read_before_drawing` before it draws the sidebar; it
draws only a note that the file is being read and a progress bar, reads and embeds the file, and
reruns; the normal run then computes the result from the caches.

What the reading run does not draw stays in the browser until a run ends normally (Streamlit
marks it stale, faded, and removes it only then; a run that ends in ``st.rerun`` removes nothing,
and keeps every widget's value). So the note comes with a style that hides the stale elements of
the main area: the old result and old messages disappear at once, while a live chart's frame is
kept (hidden) and only redrawn by the next run, with no new frame to load plotly.js into. The
sidebar stays as it was, faded. An earlier "announce" run that ended before the embedding removed
nothing either, for the same reason, and cost a whole run; a reading run that drew the sidebar and
the page before reading cost the embedding about 0.1 s of the server's and 0.4 s of the browser's
CPU, on the two cores the embedding needs.
"""

from __future__ import annotations

import streamlit as st

from . import compute, corpora, keys, state, widgets
from .page_state import uploads
from .safe_text import md
from .state import Inputs

# Streamlit marks an element container left from the previous run data-stale="true" until this
# run draws that position again. In the main area, while a file is read, those are hidden, and so
# is any block (a bordered container, an expander, a form) with nothing fresh left in it. The
# sidebar, not drawn either, stays as it was instead of fading: its controls still work.
HIDE_STALE_CSS = """<style>
[data-testid="stMain"] [data-stale="true"],
[data-testid="stMain"] [data-testid]:has([data-stale="true"]):not(:has([data-stale="false"]))
  { display: none !important; }
[data-testid="stSidebar"] [data-stale="true"] { opacity: 1 !important; transition: none !important; }
</style>"""


def start() -> None:
    """After the uploads changed: make this run a reading run if a file is new."""
    if corpora.new_upload_names():
        uploads.start_reading()


def pending_names() -> tuple[str, ...]:
    """The new files a reading run is reading (none when no reading is under way). The phase is
    kept in the session, so a run that interrupts the reading (a slider moved meanwhile) reads on."""
    if not uploads.is_reading():
        return ()
    names = corpora.new_upload_names()
    if not names:
        uploads.end_reading()
    return names


def hide_stale() -> None:
    """Hide what the previous run left in the main area (drawn with the "being read" note)."""
    st.html(HIDE_STALE_CSS)


def show_note(names: tuple[str, ...]) -> None:
    """The note a reading run shows where the page's messages go; the rest of the main area is hidden."""
    shown = ", ".join(f"**{md(name)}**" for name in names)
    st.info(f"Reading {shown}: the result appears when it is ready.", icon=":material/hourglass_top:")
    hide_stale()  # the old result, faded below the note until the next run ends


def read_before_drawing(needs_result: bool) -> None:
    """On a page that reads a result, a run that finds a new upload draws only the note, reads
    and embeds it, and reruns: the sidebar and the page are not drawn first (see the module)."""
    if not needs_result:
        return
    if uploads.take_change():  # the sidebar's upload box or a shared link's
        start()
    names = pending_names()
    if not names:
        return
    with st.container(key=keys.MESSAGES_AREA):  # a keyed block: the page's others keep their places
        show_note(names)
        read(state.read_inputs())


def read(inputs: Inputs) -> None:
    """Read and embed the new files under a progress bar, then rerun for the result."""
    with widgets.progress_bar("Reading the upload...") as progress:
        for upload in corpora.current_uploads():
            try:
                corpora.parse_upload(upload)
            except Exception:  # the normal run reports it with its own message
                continue
        compute.embed_new_uploads(inputs, progress)
    uploads.end_reading()
    st.rerun()
