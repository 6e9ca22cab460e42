"""The uploads' state: a change to read, the phase of reading a new file, and the files given in a
shared link's upload box.

Why one module: the sidebar's box and the link's box flag a change, the page fragment takes it
and starts a reading run (:mod:`app_ui.upload_flow`), and the link's files are kept beyond their
box; each of these keys is written here alone.
"""

from __future__ import annotations

import streamlit as st

from .. import keys

READING = "reading"


def flag_change() -> None:
    """The next run reads what changed."""
    st.session_state[keys.UPLOADS_CHANGED] = True


def keep_sidebar_files() -> None:
    """``on_change`` of the sidebar's upload box: keep its files as the user left them, and read
    what changed next run.

    Why kept beyond the box: after a link from inside a page (``st.switch_page``), the page opened
    found the box's value empty while the box still showed the file, and scored without it."""
    st.session_state[keys.SIDEBAR_FILES] = list(st.session_state.get(keys.UPLOADS) or [])
    flag_change()


def sidebar_files() -> list:
    """The files in the sidebar's upload box at its last change."""
    return list(st.session_state.get(keys.SIDEBAR_FILES) or [])


def take_change() -> bool:
    """Whether the uploads changed since the last time this was asked."""
    return bool(st.session_state.pop(keys.UPLOADS_CHANGED, False))


def link_files() -> list:
    """Files given in the link's upload box this session."""
    return list(st.session_state.get(keys.LINK_FILES) or [])


def keep_link_files() -> None:
    """``on_change`` of the link's box: keep its files beyond the box's life (Streamlit drops a
    widget's files with the widget, and the box goes away once nothing is missing)."""
    files = {upload.file_id: upload for upload in link_files()}
    for upload in st.session_state.get(keys.LINK_UPLOAD_BOX) or []:
        files.setdefault(upload.file_id, upload)
    st.session_state[keys.LINK_FILES] = list(files.values())
    flag_change()


def start_reading() -> None:
    """Make this run a reading run (a new file is read before any result is computed)."""
    st.session_state[keys.UPLOAD_PHASE] = READING


def is_reading() -> bool:
    return st.session_state.get(keys.UPLOAD_PHASE) == READING


def end_reading() -> None:
    st.session_state.pop(keys.UPLOAD_PHASE, None)
