"""Score chunks with a local cross-encoder reranker (``sentence_transformers.CrossEncoder``).

A cross-encoder reads the query and a chunk together, so it judges relevance much better than
comparing embeddings, and unlike Cohere it runs offline. Its raw output, though, depends on the
model: ``CrossEncoder.predict`` (sentence-transformers 6.2) applies the activation stored in the
model's config, which is a sigmoid by default for one-label models but ``Identity`` for popular
rerankers such as ``cross-encoder/ms-marco-MiniLM-L6-v2``. This scorer therefore always asks for
the raw logits (``activation_fn=Identity``) and calibrates them with a logistic, so every model
gets the same treatment and large logits do not saturate to 1.0 in float32 before calibration.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rse_core.chunking import Chunk, scoring_text
from rse_core.errors import ParameterError, ScorerError, ScorerUnavailableError
from rse_core.extras import import_optional
from rse_core.scoring.base import Calibration, CalibrationKind, ProgressCallback, ScorerName, check_scores, clean_query

MAX_BATCH_SIZE = 4096
_REASON_CHARS = 300


class CrossEncoderScorer:
    """Relevance logits from a single-label cross-encoder, read from a local folder or the Hub.

    Args:
        model: a local folder holding a cross-encoder, or a Hugging Face Hub name. The local
            folder and the Hub cache are tried first; the network only if both miss (and
            ``HF_HUB_OFFLINE`` is not set).
        batch_size: (query, chunk) pairs per forward pass; progress is reported per batch.
        device: torch device, such as ``"cpu"`` or ``"cuda"``.

    Raises:
        ParameterError: ``model`` is empty or ``batch_size`` out of range.
        ScorerUnavailableError: the model cannot be loaded, is not a single-label cross-encoder
            (for example an embedding model, whose classification head would be random), or
            sentence-transformers is not installed.
    """

    name = ScorerName.CROSS_ENCODER
    calibration = Calibration(
        CalibrationKind.LOGISTIC,
        low=0.0,
        high=1.0,
        note=(
            "Raw scores are the model's logits; the sigmoid turns them into the probability the "
            "model was trained to predict, so a logit of 0 maps to 0.5."
        ),
    )

    def __init__(self, model: str | os.PathLike[str], batch_size: int = 32, device: str = "cpu") -> None:
        model = os.fspath(model) if isinstance(model, os.PathLike) else model
        if not isinstance(model, str) or not model.strip():
            raise ParameterError("Give the cross-encoder as a local folder or a Hugging Face model name.")
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or not 1 <= batch_size <= MAX_BATCH_SIZE:
            raise ParameterError(f"batch_size must be a whole number from 1 to {MAX_BATCH_SIZE}; got {batch_size!r}.")
        self.model = model.strip()
        self.batch_size = batch_size
        self.device = device
        self._encoder = _load(self.model, device)

    def __repr__(self) -> str:
        return f"CrossEncoderScorer(model={self.model!r}, batch_size={self.batch_size}, device={self.device!r})"

    def score(self, query: str, chunks: Sequence[Chunk], progress: ProgressCallback | None = None) -> np.ndarray:
        """Raw logits, one per chunk, in the order of ``chunks``.

        Raises:
            QueryError: the query is empty.
            ScorerError: the model failed while scoring (for example, out of memory).
            InvalidScoresError: a logit is NaN or infinite.
        """
        import torch

        query, _ = clean_query(query)
        pairs = [(query, scoring_text(chunk)) for chunk in chunks]
        scores = np.empty(len(pairs), dtype=np.float64)
        starts = range(0, len(pairs), self.batch_size)
        for number, start in enumerate(starts, 1):
            batch = pairs[start : start + self.batch_size]
            try:
                logits = self._encoder.predict(
                    batch,
                    batch_size=len(batch),
                    activation_fn=torch.nn.Identity(),
                    show_progress_bar=False,
                    convert_to_numpy=True,
                )
            except (RuntimeError, ValueError) as error:
                raise ScorerError(f"Cross-encoder {self.model!r} failed while scoring: {_first_line(error)}") from error
            scores[start : start + len(batch)] = np.asarray(logits, dtype=np.float64).reshape(-1)
            if progress is not None:
                progress(number / len(starts), f"Cross-encoder: batch {number} of {len(starts)}")
        return check_scores(scores, len(pairs), f"Cross-encoder {self.model!r}")


def _load(model: str, device: str) -> Any:
    """Load and vet a cross-encoder; every failure becomes :class:`ScorerUnavailableError`."""
    CrossEncoder = import_optional("sentence_transformers", "The cross-encoder scorer").CrossEncoder

    def unavailable(reason: str) -> ScorerUnavailableError:
        return ScorerUnavailableError(
            f"Could not load cross-encoder {model!r}: {reason}; give a local path to a downloaded "
            "model (a folder with config.json, the weights and the tokenizer files)."
        )

    path = Path(model).expanduser()
    if path.exists():
        if not path.is_dir():
            raise unavailable("it is a file, not a model folder")
        try:
            encoder = CrossEncoder(str(path), device=device, local_files_only=True)
        except Exception as error:  # loaders raise OSError, ValueError, KeyError, json errors...
            raise unavailable(_first_line(error)) from error
    elif _looks_like_path(model):
        raise unavailable("no such folder")
    else:
        encoder = _load_from_hub(CrossEncoder, model, device, unavailable)

    labels = encoder.num_labels
    if labels != 1:
        raise unavailable(
            f"it has {labels} output labels, but a relevance reranker has exactly one "
            "(for example cross-encoder/ms-marco-MiniLM-L6-v2)"
        )
    if _head_is_untrained(encoder):
        raise unavailable(
            "it is not a cross-encoder (its checkpoint has no classification head, so the scores "
            "would be random; an embedding model such as all-MiniLM-L6-v2 cannot rerank)"
        )
    return encoder


def _load_from_hub(factory: Any, model: str, device: str, unavailable: Any) -> Any:
    """Try the Hub cache first so a cached model loads without network round trips."""
    try:
        return factory(model, device=device, local_files_only=True)
    except Exception as cached_error:  # not cached (or a broken cache entry)
        if _hub_offline():
            raise unavailable(
                "it is not in the local Hugging Face cache and downloads are disabled "
                f"(HF_HUB_OFFLINE is set): {_first_line(cached_error)}"
            ) from cached_error
    try:
        return factory(model, device=device)
    except Exception as error:
        raise unavailable(_first_line(error)) from error


def _hub_offline() -> bool:
    try:
        from huggingface_hub import constants
    except ImportError:
        return False
    return bool(constants.HF_HUB_OFFLINE)


def _looks_like_path(model: str) -> bool:
    """A Hub name is ``name`` or ``org/name``; anything else must be a local path."""
    return model.startswith((".", "/", "~")) or "\\" in model or model.count("/") > 1 or os.path.isabs(model)


def _head_is_untrained(encoder: Any) -> bool:
    """True when a sequence-classification head was bolted onto a checkpoint that had none."""
    transformer = getattr(encoder, "model", None)
    config = getattr(encoder, "config", None)
    architectures = getattr(config, "architectures", None) or []
    if transformer is None or not architectures:
        return False
    if not type(transformer).__name__.endswith("ForSequenceClassification"):
        return False
    return not any(str(name).endswith("ForSequenceClassification") for name in architectures)


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    line = text[0] if text else type(error).__name__
    return line if len(line) <= _REASON_CHARS else line[: _REASON_CHARS - 3] + "..."
