"""Uploads named by a shared link: which ones this session lacks, and the box that asks for them.

Why: a link cannot carry an uploaded file, so a view made with one opened in a new session as a
bare "No document selected". The link now names each upload by content hash and name
(:class:`app_ui.query_params.LinkUpload`); a session that lacks one says so and offers an upload
box for it. A file given there (or in the sidebar) is matched by its contents, whatever its name.
Files given in that box are kept in a non-widget key: the box goes away once nothing is missing,
and Streamlit would drop a widget's files with it.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from rse_core import Document

from . import keys
from .page_state import uploads
from .query_params import LinkUpload
from .safe_text import md


def wanted() -> tuple[LinkUpload, ...]:
    """The uploads the opening link named."""
    return tuple(st.session_state.get(keys.LINK_UPLOADS) or ())


def missing(documents: Sequence[Document]) -> tuple[LinkUpload, ...]:
    """The link's uploads that no loaded document has the contents of."""
    present = {document.doc_id for document in documents}
    return tuple(upload for upload in wanted() if upload.doc_id not in present)


def url_uploads(documents: Sequence[Document], private: Sequence[Document]) -> tuple[LinkUpload, ...]:
    """What the link names: this session's uploads, then the link's uploads still missing (so a
    reload before uploading them keeps asking)."""
    present = tuple(LinkUpload(document.doc_id, document.name) for document in private)
    return present + missing(documents)


def named_as_linked(document: Document) -> Document:
    """``document`` under the name the link gives its contents (unchanged when the link names none).

    The name can be in every chunk's contextual header (as the title of a PDF without one), so a
    file given for the link under another name would score differently from the view the link
    was made of.
    """
    name = next((upload.name for upload in wanted() if upload.doc_id == document.doc_id), None)
    return document if name is None else document.renamed(name)


kept_files = uploads.link_files  # the files given in the link's upload box this session


def render_missing(absent: Sequence[LinkUpload], unmatched: Sequence[str] = ()) -> None:
    """Say which uploads the link needs and offer the box for them."""
    names = ", ".join(f"**{md(upload.name)}**" for upload in absent)
    st.warning(
        f"This link was made with {'an uploaded file' if len(absent) == 1 else 'uploaded files'} this session "
        f"does not have: {names}. A link never carries a file; upload it again below (it is recognised by its "
        "contents, whatever its name now).",
        icon=":material/upload_file:",
    )
    for name in unmatched:
        st.caption(md(f"{name} is not the file the link was made with (its contents differ); it is loaded too."))
    st.file_uploader(
        "The link's file(s)",
        type=["pdf", "txt", "md"],
        accept_multiple_files=True,
        key=keys.LINK_UPLOAD_BOX,
        on_change=uploads.keep_link_files,
        help="Kept in this session's memory only, like the sidebar's uploads.",
    )
