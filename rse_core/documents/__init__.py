"""Documents: loading PDFs and text files, and what loading keeps for later.

- :mod:`~rse_core.documents.loading`: :func:`load_document` and :class:`Document` (text, page
  starts, headings), with the size and time limits of :class:`LoadLimits`;
- :mod:`~rse_core.documents.pdf_budget`: how much drawing a PDF asks for, checked before extraction;
- :mod:`~rse_core.documents.upload_names`: an upload's name made safe to record and write;
- :mod:`~rse_core.documents.layout`: where each character sits on its page (the page view's highlights);
- :mod:`~rse_core.documents.cleaning` and :mod:`~rse_core.documents.encoding`: clean text and
  decoded uploads, with offsets that still map to the page;
- :mod:`~rse_core.documents.headings`: section headings and each chunk's contextual header;
- :mod:`~rse_core.documents.reflow`: hard-wrapped PDF lines joined for display (page view and panels).
"""

from rse_core.documents.loading import (
    PDF_SUFFIXES,
    SUPPORTED_SUFFIXES,
    TEXT_SUFFIXES,
    Document,
    LoadLimits,
    load_document,
)

__all__ = ["PDF_SUFFIXES", "SUPPORTED_SUFFIXES", "TEXT_SUFFIXES", "Document", "LoadLimits", "load_document"]
