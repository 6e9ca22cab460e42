"""RSE over a knowledge base: build one from files on disk, query it with RSE per document.

>>> from rse_core.kb import build, KnowledgeBase, query_kb            # doctest: +SKIP
>>> build("my_kb", ["reports/"])                                      # doctest: +SKIP
>>> result = query_kb(KnowledgeBase.open("my_kb"), "What is the pump?")  # doctest: +SKIP
>>> build("e5_kb", ["reports/"], embedder=embedder_from_name("openai:e5", "http://127.0.0.1:8000/v1"))  # doctest: +SKIP

Outside the small core: it imports the core and a vector database (LanceDB by default, Milvus
optionally), never the app or the figures. A base embeds with the embedder its catalog records
(:mod:`rse_core.embedders`; an endpoint's client is imported only when such an embedder is made).
``python -m rse_core.kb`` is its CLI.
"""

from rse_core.embedders import Embedder, MiniLMEmbedder
from rse_core.kb.base import KBInfo, KnowledgeBase
from rse_core.kb.build import BuildProgress, BuildReport, add_paths, build, ensure_built
from rse_core.kb.calibration import BM25_CALIBRATION, DENSE_CEILING, DENSE_SPREAD, dense_calibration
from rse_core.kb.catalog import DocumentEntry, KnowledgeBaseError
from rse_core.kb.params import FirstStage, KBQueryParams
from rse_core.kb.query import (
    DocumentHits,
    FirstStageResult,
    KBHit,
    KBResult,
    KBSegment,
    document_hits,
    query_kb,
    rse_from_first_stage,
    search_first_stage,
)
from rse_core.kb.store import ChunkRecord, ChunkStore, Hit, StoredChunk

__all__ = [
    "BM25_CALIBRATION",
    "DENSE_CEILING",
    "DENSE_SPREAD",
    "BuildProgress",
    "BuildReport",
    "ChunkRecord",
    "ChunkStore",
    "DocumentEntry",
    "DocumentHits",
    "Embedder",
    "FirstStage",
    "FirstStageResult",
    "Hit",
    "KBHit",
    "KBInfo",
    "KBQueryParams",
    "KBResult",
    "KBSegment",
    "KnowledgeBase",
    "KnowledgeBaseError",
    "MiniLMEmbedder",
    "StoredChunk",
    "add_paths",
    "build",
    "dense_calibration",
    "document_hits",
    "ensure_built",
    "query_kb",
    "rse_from_first_stage",
    "search_first_stage",
]
