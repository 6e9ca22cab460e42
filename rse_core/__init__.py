"""rse_core: Relevant Segment Extraction (RSE), the whole pipeline as a small library.

>>> from rse_core import load_document, extract, RSEParams
>>> result = extract(load_document("report.pdf"), "How does the cooling system work?")  # doctest: +SKIP
>>> [(s.label, s.first_page, s.last_page, round(s.score, 2)) for s in result.segments]  # doctest: +SKIP

No module here imports Streamlit; torch and the Cohere client are imported only when a scorer
that needs them is created.
"""

from rse_core.chunking import Chunk, chunk_document
from rse_core.documents import Document, LoadLimits, load_document
from rse_core.errors import (
    AuthenticationError,
    CorruptDocumentError,
    DocumentError,
    DocumentTooLargeError,
    EmptyDocumentError,
    EncryptedDocumentError,
    InvalidScoresError,
    NoTextLayerError,
    ParameterError,
    QueryError,
    RateLimitError,
    RSEError,
    ScorerError,
    ScorerUnavailableError,
    ScoringServiceError,
    UnsupportedFormatError,
)
from rse_core.params import PRESETS, Preset, RSEParams, preset
from rse_core.pipeline import (
    Corpus,
    ExtractedSegment,
    ExtractionResult,
    build_corpus,
    extract,
    normalize_queries,
    run_rse,
    score_corpus,
)
from rse_core.scoring import Calibration, Scorer, ScorerName, get_scorer
from rse_core.search import SearchResult, SearchStep, Segment, StopReason, find_best_segments
from rse_core.values import ChunkValues, chunk_values

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "AuthenticationError",
    "Calibration",
    "Chunk",
    "ChunkValues",
    "Corpus",
    "CorruptDocumentError",
    "Document",
    "DocumentError",
    "DocumentTooLargeError",
    "EmptyDocumentError",
    "EncryptedDocumentError",
    "ExtractedSegment",
    "ExtractionResult",
    "InvalidScoresError",
    "LoadLimits",
    "NoTextLayerError",
    "ParameterError",
    "Preset",
    "QueryError",
    "RSEError",
    "RSEParams",
    "RateLimitError",
    "Scorer",
    "ScorerError",
    "ScorerName",
    "ScorerUnavailableError",
    "ScoringServiceError",
    "SearchResult",
    "SearchStep",
    "Segment",
    "StopReason",
    "UnsupportedFormatError",
    "build_corpus",
    "chunk_document",
    "chunk_values",
    "extract",
    "find_best_segments",
    "get_scorer",
    "load_document",
    "normalize_queries",
    "preset",
    "run_rse",
    "score_corpus",
]
