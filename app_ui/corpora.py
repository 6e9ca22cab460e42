"""The documents and corpora of a run: bundled samples shared by every session, uploads this
session's own.

Samples (and the external golden sets' documents) are loaded once per process in
``st.cache_resource``; an upload is parsed once per session into :class:`app_ui.caching.SessionCaches`,
so a slider move neither re-parses nor re-hashes it, and no other session can reach it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import streamlit as st

from rse_core import Corpus, Document, LoadLimits, RSEError, build_corpus, load_document
from rse_core.documents.upload_names import upload_name
from rse_core.evaluation.golden import GoldenSet
from rse_core.evaluation.sets import SetName, golden_sets
from rse_core.validation import env_number

from . import link_uploads, messages
from .caching import is_private, remember, session_caches
from .page_state import uploads as upload_state
from .run_state import RunOutcome
from .safe_text import clean
from .samples import list_samples, load_sample_document
from .state import Inputs

LOGGER = logging.getLogger(__name__)


@st.cache_resource(show_spinner=False)
def sample_document(slug: str) -> Document:
    return load_sample_document(list_samples()[slug].path)


@st.cache_resource(show_spinner=False)
def external_golden_sets() -> dict[str, GoldenSet]:
    """The external golden sets by document file name (bundled files only; raises RSEError if the
    corpus folder is missing or a set is malformed)."""
    return {golden.document_name: golden for golden in golden_sets(SetName.EXTERNAL)}


@st.cache_resource(show_spinner=False)
def external_document(name: str) -> Document:
    """A third-party document of the external set, by file name (never a path from the user)."""
    return load_document(external_golden_sets()[name].document_path)


def parse_upload(upload) -> Document:
    """Parse an upload once per session; errors propagate (and are not kept) so the UI shows them.

    Keyed by the upload's ``file_id``; the document is named by the upload's safe stored name
    (:func:`~rse_core.documents.upload_names.upload_name`). Size and page limits come from
    ``RSE_MAX_FILE_MB`` / ``RSE_MAX_PAGES`` (50 MB, 2,000 pages).
    """
    parsed = session_caches().parsed
    if upload.file_id not in parsed:
        data = upload.getvalue()
        name = upload_name(upload.name, data).stored
        document = load_document(data, name=name, limits=LoadLimits.from_environment())
        parsed[upload.file_id] = link_uploads.named_as_linked(document)
    return parsed[upload.file_id]


def stored_name(upload) -> str:
    """The name the upload's document carries (before a shared link renames it)."""
    return upload_name(upload.name, upload.getvalue()).stored


def shown_name(upload) -> str:
    """An upload's name as its user gave it, bounded, for messages about the file itself."""
    return upload_name(upload.name, b"").shown


def current_uploads() -> list:
    """The files in the sidebar's upload box, then those given for a shared link's uploads, that
    fit this session's upload limits (the others are never parsed; :func:`active_documents` says why)."""
    return _admitted_uploads(_all_uploads())[0]


def _all_uploads() -> list:
    sidebar = upload_state.sidebar_files()
    ids = {upload.file_id for upload in sidebar}
    return sidebar + [upload for upload in link_uploads.kept_files() if upload.file_id not in ids]


def new_upload_names() -> tuple[str, ...]:
    """Uploads not parsed yet this session (what a new upload's reading is about)."""
    parsed = session_caches().parsed
    return tuple(shown_name(upload) for upload in current_uploads() if upload.file_id not in parsed)


# --- Upload limits per session ------------------------------------------------------------------
# Streamlit bounds each file (server.maxUploadSize) but not how many a session holds, and a parsed,
# chunked and embedded text takes ~14x its bytes (ten 20 MB texts: 84 MB -> 1,175 MB of server
# memory). Files past either limit, in upload order, are refused before parsing; removing a file
# makes room again (its parse and everything made from it are dropped at once).
MAX_UPLOADS_ENV = "RSE_MAX_UPLOADS_PER_SESSION"
MAX_UPLOAD_BYTES_ENV = "RSE_MAX_UPLOAD_BYTES_PER_SESSION"


@dataclass(frozen=True)
class SessionUploadLimits:
    """How many uploads, and how many bytes in all, one session may have read at once."""

    count: int = 10
    total_bytes: int = 50 * 2**20

    @classmethod
    def from_environment(cls) -> SessionUploadLimits:
        """Raises ParameterError if a variable is set to anything but a whole number above 0."""
        return cls(
            int(env_number(MAX_UPLOADS_ENV, cls.count, whole=True)),
            int(env_number(MAX_UPLOAD_BYTES_ENV, cls.total_bytes, whole=True)),
        )


def _within_limits(uploads: list, limits: SessionUploadLimits) -> tuple[list, list]:
    """(kept, refused): the uploads in order, each kept if it still fits both limits."""
    kept, refused, total = [], [], 0
    for upload in uploads:
        if len(kept) < limits.count and total + upload.size <= limits.total_bytes:
            kept.append(upload)
            total += upload.size
        else:
            refused.append(upload)
    return kept, refused


def _admitted_uploads(uploads: list) -> tuple[list, str | None]:
    """The uploads to read, and the one-line reason some (or all) were refused, if any were."""
    try:
        limits = SessionUploadLimits.from_environment()
    except RSEError as error:  # an operator's typo refuses every upload, loudly
        return [], str(error) if uploads else None
    kept, refused = _within_limits(uploads, limits)
    if not refused:
        return kept, None
    names = ", ".join(repr(clean(shown_name(upload))) for upload in refused[:5]) + (", ..." if len(refused) > 5 else "")
    return kept, (
        f"Not read: {names}. A session reads at most {limits.count} uploads and "
        f"{limits.total_bytes / 2**20:.0f} MB in all ({MAX_UPLOADS_ENV}, {MAX_UPLOAD_BYTES_ENV}); "
        "remove a file to make room."
    )


# --- end of upload limits ------------------------------------------------------------------------


@st.cache_resource(show_spinner=False)
def corpus_for(key: tuple[tuple[str, ...], int, bool], _documents: tuple[Document, ...]) -> Corpus:
    """A corpus of bundled samples, shared by every session (call :func:`corpus_of`);
    ``key`` = (document ids, chunk size, chunk headers)."""
    return build_corpus(list(_documents), key[1], headers=key[2])


def corpus_of(documents: Sequence[Document], chunk_size: int, headers: bool) -> Corpus:
    """The corpus of these documents: shared if they are all samples, else this session's own.

    A corpus carries its documents' names, so one built from an upload is never shared: another
    session uploading the same bytes under another name gets its own, with its own name.
    """
    documents = tuple(documents)
    if not is_private(documents):
        return corpus_for((tuple(document.doc_id for document in documents), chunk_size, headers), documents)
    key = (tuple((document.doc_id, document.name) for document in documents), chunk_size, headers)
    return remember(session_caches().corpora, key, lambda: build_corpus(list(documents), chunk_size, headers=headers))


def _forget_removed_uploads(uploads: list) -> None:
    """A removed upload's text and everything made from it go now, not at the session's end."""
    caches = session_caches()
    removed = set(caches.parsed) - {upload.file_id for upload in uploads}
    if removed:
        for file_id in removed:
            del caches.parsed[file_id]
        caches.forget_derived()


def _parsed_uploads(uploads: list, outcome: RunOutcome) -> list[Document]:
    documents = []
    for upload in uploads:
        try:
            documents.append(parse_upload(upload))
        except RSEError as error:
            outcome.errors.append(str(error))
        except Exception as error:  # a parser bug must not take the page down
            LOGGER.exception("parsing an upload failed")
            outcome.errors.append(messages.unreadable_upload(shown_name(upload), error))
    return documents


def _without_duplicates(documents: list[Document], outcome: RunOutcome) -> list[Document]:
    """One document per contents: the first is kept and a warning names the others."""
    kept: dict[str, Document] = {}
    for document in documents:
        first = kept.setdefault(document.doc_id, document)
        if first is not document:
            outcome.warnings.append(messages.duplicate_upload(document.name, first.name))
    return list(kept.values())


def active_documents(inputs: Inputs, outcome: RunOutcome) -> list[Document]:
    """The sidebar's samples and this session's uploads, parsed; problems go into ``outcome``.

    Files with the same bytes are one document: the first is kept and a warning says so.
    """
    documents = []
    for slug in inputs.samples:
        try:
            documents.append(sample_document(slug))
        except RSEError as error:
            outcome.errors.append(str(error))
    uploads, refused = _admitted_uploads(_all_uploads())
    if refused:
        outcome.errors.append(refused)
    _forget_removed_uploads(uploads)
    documents += _parsed_uploads(uploads, outcome)
    return _without_duplicates(documents, outcome)


def documents_of(inputs: Inputs) -> list[Document]:
    """The run's documents for a page that needs them beside the result (their problems are
    already on the page: ``app.py``'s run reported them)."""
    return active_documents(inputs, RunOutcome())
