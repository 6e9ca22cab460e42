"""What an embedder is, and what makes two embedders' vectors comparable.

A knowledge base stores vectors from one embedder; a query vector from another model (or the same
model with other prefixes) lands somewhere meaningless in that space, and the search quietly
returns noise. So every embedder states an :class:`EmbedderIdentity`, a base records the one it was
built with, and :func:`check_same_embedder` refuses any other in one line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Protocol, runtime_checkable

import numpy as np

from rse_core.errors import EmbedderMismatchError


@dataclass(frozen=True)
class EmbedderIdentity:
    """Everything the vectors depend on.

    Attributes:
        name: how :func:`rse_core.embedders.embedder_from_name` makes this embedder again
            (``minilm``, ``openai:MODEL``, ``cohere:MODEL``, a model folder). Not part of the
            comparison: a model folder that moved, or an endpoint served elsewhere, gives the same vectors.
        provider: who computes them: ``sentence-transformers``, ``openai`` (any compatible endpoint), ``cohere``.
        model: the model id.
        dimension: floats per vector.
        revision: the package version or weights fingerprint; empty when unknown (a base built before
            revisions were recorded, an endpoint that names none), which matches any revision.
        query_prefix, document_prefix: text put before each query / chunk (e5-style models need them).
        normalised: the vectors are unit length.
        endpoint: where an endpoint embedder sends its requests, as :func:`rse_core.net.urls.display_url`
            shows it (no credentials); empty for a local model. Not compared, as ``name``.
    """

    name: str = field(compare=False)
    provider: str
    model: str
    dimension: int
    revision: str = ""
    query_prefix: str = ""
    document_prefix: str = ""
    normalised: bool = True
    endpoint: str = field(default="", compare=False)

    def describe(self) -> str:
        """``openai:text-embedding-3-small (dim 1536)``: how messages name it."""
        return f"{self.name} (dim {self.dimension})"

    def same_vectors_as(self, other: EmbedderIdentity) -> bool:
        """Whether vectors of ``other`` can be compared with this one's (an empty revision matches any)."""
        revisions_agree = not self.revision or not other.revision or self.revision == other.revision
        return revisions_agree and _without_revision(self) == _without_revision(other)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> EmbedderIdentity:
        """The identity a catalog recorded; unknown keys are ignored, missing optional ones default.

        Raises:
            KeyError, TypeError, ValueError: a required field is missing or of the wrong type.
        """
        known = {f.name for f in fields(cls)}
        values = {key: value for key, value in data.items() if key in known}
        identity = cls(**values)  # type: ignore[arg-type]
        if not isinstance(identity.dimension, int) or isinstance(identity.dimension, bool) or identity.dimension < 1:
            raise ValueError(f"embedder dimension {identity.dimension!r} is not a whole number above 0")
        texts = ("name", "provider", "model", "revision", "query_prefix", "document_prefix", "endpoint")
        if not all(isinstance(getattr(identity, name), str) for name in texts):
            raise TypeError(f"embedder {', '.join(texts)} must be strings")
        return identity


def _without_revision(identity: EmbedderIdentity) -> tuple[object, ...]:
    return (
        identity.provider,
        identity.model,
        identity.dimension,
        identity.query_prefix,
        identity.document_prefix,
        identity.normalised,
    )


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors of ``identity.dimension`` floats, a batch at a time."""

    @property
    def identity(self) -> EmbedderIdentity: ...

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text, in order (the document prefix is the embedder's to add)."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """The query's vector (the query prefix is the embedder's to add)."""
        ...


def check_same_embedder(built: EmbedderIdentity, asked: EmbedderIdentity, where: str) -> None:
    """Refuse ``asked`` for a base whose vectors came from ``built``.

    Raises:
        EmbedderMismatchError: one line naming both, e.g. "kb was built with minilm (dim 384); you asked
            for openai:e5 (dim 384): their vectors cannot be compared. ...".
    """
    if built.same_vectors_as(asked):
        return
    differs = [
        f.name for f in fields(EmbedderIdentity) if f.compare and getattr(built, f.name) != getattr(asked, f.name)
    ]
    same_model = not {"provider", "model", "dimension"} & set(differs)
    detail = f" with another {', '.join(differs)}" if same_model else ""  # the names alone would not tell them apart
    raise EmbedderMismatchError(
        f"{where} was built with {built.describe()}; you asked for {asked.describe()}{detail}: their vectors "
        f"cannot be compared. Query it with its own embedder (leave the embedder out), or build a new base."
    )
