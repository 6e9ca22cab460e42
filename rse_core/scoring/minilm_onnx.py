"""Sentence-transformers models (BERT-like and MPNet: the bundled all-MiniLM-L6-v2, all-mpnet-base-v2)
through ONNX Runtime and the ``tokenizers`` fast tokenizer: no torch.

Importing torch and sentence-transformers is most of a cold command's 10+ seconds, while
onnxruntime and tokenizers import in a fraction of one. A model folder's ONNX graph is exported
once (that step needs torch and onnx) into the cache folder, named by a fingerprint of the
weights file, and every later process only loads it. The encoder reproduces
sentence-transformers' pipeline for mean-pooled, normalised models (truncation to the folder's
``max_seq_length``, mean pooling over the attention mask, unit length), so its fp32 vectors agree
with the torch model's to float precision and share its identity. The graph takes the inputs the
model's ``forward`` names (MPNet has no ``token_type_ids``).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import json
import os
import re
import tempfile
import threading
import warnings
from collections.abc import Callable, Sequence
from contextlib import suppress
from enum import StrEnum
from pathlib import Path

import numpy as np

from rse_core.errors import RSEError, ScorerUnavailableError
from rse_core.extras import import_optional
from rse_core.scoring.embedding_cache import default_cache_dir
from rse_core.scoring.minilm import BatchEncoder, model_folder, quiet_loading

ONNX_ENV = "RSE_ONNX"
"""Set to ``0`` to embed queries with the torch model even where ONNX Runtime is installed."""
INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")
OPSET = 17
_HASH_BLOCK = 1 << 20
_DIGEST = re.compile(r"(?:sha256:)?[0-9a-f]{16}")
"""What :func:`remembered_digest` accepts as a remembered digest (ours: 16 hex digits, maybe ``sha256:`` first)."""


class OnnxVariant(StrEnum):
    """The graph's weights: ``fp32`` matches torch; ``int8`` (dynamic quantisation) is faster and close."""

    FP32 = "fp32"
    INT8 = "int8"

    @property
    def file_tag(self) -> str:
        """The graph file's suffix; it names the quantisation recipe, so a new recipe is a new file."""
        return "int8-ffn32" if self is OnnxVariant.INT8 else self.value


def weights_fingerprint(folder: Path, cache_dir: Path | None = None) -> str:
    """SHA-256 of the folder's weights file (first 16 hex digits): new weights, new graph.

    Hashing 90 MB takes a cold command ~0.15 s, so the digest is kept in the cache folder under
    the file's path, size and modification time, and read back while those stay the same."""
    weights = folder / "model.safetensors"

    def digest() -> str:
        hashed = hashlib.sha256()
        with weights.open("rb") as handle:
            while block := handle.read(_HASH_BLOCK):
                hashed.update(block)
        return hashed.hexdigest()[:16]

    try:
        stat = weights.stat()
        seen = f"{weights.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
        return remembered_digest(_graph_folder(cache_dir), "weights", seen, digest)
    except OSError as error:
        raise ScorerUnavailableError(
            f"Could not read the weights of the model {folder.name} ({error.strerror})."
        ) from None


def remembered_digest(memo_folder: Path, kind: str, seen: str, digest: Callable[[], str]) -> str:
    """``digest()`` of some files, kept in ``memo_folder`` under ``seen`` (the files' paths, sizes
    and modification times) and read back while ``seen`` stays the same.

    A memo that cannot be read or written only costs the next command the hash.
    """
    memo = memo_folder / f"{kind}-{hashlib.sha256(seen.encode()).hexdigest()[:16]}.txt"
    with suppress(OSError, UnicodeDecodeError):
        remembered = memo.read_text("ascii").strip()
        if _DIGEST.fullmatch(remembered):
            return remembered
    fingerprint = digest()
    with suppress(OSError):
        _write_atomically(memo, lambda temporary: temporary.write_text(fingerprint, "ascii"))
    return fingerprint


def onnx_runtime_installed() -> bool:
    """Whether the torch-free path can run here (it may still need one export, see :func:`graph_path`)."""
    return all(importlib.util.find_spec(name) is not None for name in ("onnxruntime", "tokenizers"))


def onnx_enabled(export: bool = False, folder: Path | None = None) -> bool:
    """Whether a model (``folder``; default the bundled one) runs through ONNX: ONNX Runtime and
    tokenizers are installed, ``RSE_ONNX`` does not turn them off, and the weights' graph is
    cached (or, with ``export``, can be exported: torch and onnx are installed). Only a caller
    that may wait for an export asks for one (the query command, once); an app or a test that
    only finds no graph keeps torch."""
    if os.environ.get(ONNX_ENV, "").strip() == "0" or not onnx_runtime_installed():
        return False
    if export and all(importlib.util.find_spec(name) is not None for name in ("torch", "onnx")):
        return True
    try:
        return _graph_file(folder or model_folder(), OnnxVariant.FP32, None).is_file()
    except RSEError:  # no bundled model or unreadable weights: the torch path says what is wrong
        return False


def _graph_folder(cache_dir: Path | None) -> Path:
    return (cache_dir or default_cache_dir()) / "onnx"


def _graph_file(folder: Path, variant: OnnxVariant, cache_dir: Path | None) -> Path:
    name = f"{_graph_prefix(folder)}-{weights_fingerprint(folder, cache_dir)}-{variant.file_tag}.onnx"
    return _graph_folder(cache_dir) / name


def _graph_prefix(folder: Path) -> str:
    """``minilm`` for the bundled model (its folder is only ``model``), else the folder's name as a slug."""
    with suppress(RSEError, OSError):
        if folder.resolve() == model_folder().resolve():
            return "minilm"
    return re.sub(r"[^a-z0-9]+", "-", folder.name.lower()).strip("-")[:40] or "model"


def graph_path(folder: Path, variant: OnnxVariant = OnnxVariant.FP32, cache_dir: Path | None = None) -> Path:
    """The cached ONNX graph of the weights in ``folder``, exported (and quantised) first if missing.

    Raises:
        MissingExtraError: the graph must be exported and torch or onnx is not installed.
    """
    path = _graph_file(folder, variant, cache_dir)
    if path.is_file():
        return path
    if variant is OnnxVariant.INT8:
        fp32 = graph_path(folder, OnnxVariant.FP32, cache_dir)
        _write_atomically(path, lambda temporary: _quantize(fp32, temporary))
    else:
        _write_atomically(path, lambda temporary: _export(folder, temporary))
    return path


def _write_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """Write through a temporary file renamed into place: two processes exporting at once each
    rename a whole graph, and a reader never sees half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    os.close(handle)
    try:
        write(Path(temporary))
        os.replace(temporary, path)
    finally:
        with suppress(FileNotFoundError):
            os.unlink(temporary)


def _export(folder: Path, destination: Path) -> None:
    """The transformer's last hidden state as an ONNX graph (pooling stays in numpy), taking those
    of :data:`INPUT_NAMES` the model's ``forward`` accepts."""
    torch = import_optional("torch", "Exporting a model to ONNX")
    import_optional("onnx", "Exporting a model to ONNX")
    transformers = import_optional("transformers", "Exporting a model to ONNX")
    with quiet_loading():
        model = transformers.AutoModel.from_pretrained(str(folder)).eval()
    names = [name for name in INPUT_NAMES if name in inspect.signature(model.forward).parameters]

    class LastHiddenState(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *inputs):
            return self.model(**dict(zip(names, inputs, strict=True))).last_hidden_state

    example = torch.ones((2, 8), dtype=torch.long)
    examples = {
        "input_ids": example,
        "attention_mask": torch.ones_like(example),
        "token_type_ids": torch.zeros_like(example),
    }
    axes = {name: {0: "batch", 1: "tokens"} for name in (*names, "last_hidden_state")}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the tracer's notes on the model's Python branches, none ours to fix
        torch.onnx.export(
            LastHiddenState(),
            tuple(examples[name] for name in names),
            str(destination),
            input_names=names,
            output_names=["last_hidden_state"],
            dynamic_axes=axes,
            opset_version=OPSET,
            dynamo=False,
        )


def _quantize(source: Path, destination: Path) -> None:
    """Dynamic int8 quantisation, one scale per output channel, the feed-forward output layers kept fp32.

    Per tensor, MiniLM's cosine to fp32 fell to 0.95 on the samples (0.99 per channel). The layer
    after each GELU sees activations with a few large outliers that one int8 scale cannot hold:
    quantising it too left all-mpnet-base-v2 at a mean cosine of 0.84 to fp32 (top-10 overlap
    0.68); keeping it fp32 gives 0.99 (0.88) at 1.8x fp32's speed instead of about 2.7x
    (docs/evaluation.md)."""
    onnx = import_optional("onnx", "Quantising a model")
    quantization = importlib.import_module("onnxruntime.quantization")
    graph = onnx.load(str(source), load_external_data=False).graph
    after_activation = [
        node.name
        for node in graph.node
        if node.op_type == "MatMul" and any("/intermediate/" in name for name in node.input)
    ]
    quantization.quantize_dynamic(
        str(source),
        str(destination),
        weight_type=quantization.QuantType.QInt8,
        per_channel=True,
        nodes_to_exclude=after_activation,
    )


class OnnxSentenceEncoder:
    """Unit-length, mean-pooled sentence embeddings from a model folder's exported graph.

    Args:
        folder: the sentence-transformers model folder (its ``tokenizer.json`` and
            ``sentence_bert_config.json``).
        graph: the ONNX graph exported from that folder's weights.
        threads: ONNX Runtime's threads within one operator (``None``: its default, the cores).
        max_tokens: truncate here instead of the folder's ``max_seq_length`` (a speed study; other
            vectors for long texts, so not for a knowledge base).
    """

    def __init__(self, folder: Path, graph: Path, threads: int | None = None, max_tokens: int | None = None) -> None:
        onnxruntime = import_optional("onnxruntime", "The ONNX encoder")
        tokenizers = import_optional("tokenizers", "The ONNX encoder")
        options = onnxruntime.SessionOptions()
        if threads is not None:
            options.intra_op_num_threads = threads
        try:
            self._tokenizer = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
            config = json.loads((folder / "sentence_bert_config.json").read_text("utf-8"))
            self._session = onnxruntime.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])
        except Exception as error:  # missing or unreadable files (tokenizers and onnxruntime raise their own kinds)
            raise ScorerUnavailableError(
                f"Could not load the ONNX model {folder.name} ({type(error).__name__})."
            ) from None
        self.max_tokens = int(max_tokens or config["max_seq_length"])
        padding = self._tokenizer.padding or {}
        self._tokenizer.enable_truncation(max_length=self.max_tokens, strategy="longest_first")
        self._tokenizer.enable_padding(pad_id=padding.get("pad_id", 0), pad_token=padding.get("pad_token", "[PAD]"))
        self.dimension = int(self._session.get_outputs()[0].shape[-1])
        self._inputs = [item.name for item in self._session.get_inputs()]

    @classmethod
    def load(
        cls,
        model_path: str | Path | None = None,
        variant: OnnxVariant = OnnxVariant.FP32,
        cache_dir: Path | None = None,
        threads: int | None = None,
        max_tokens: int | None = None,
    ) -> OnnxSentenceEncoder:
        """The encoder for ``model_path`` (default: the bundled model), exporting its graph on first use."""
        folder = model_folder(model_path)
        return cls(folder, graph_path(folder, variant, cache_dir), threads, max_tokens)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One unit-length float32 row per text, computed as one padded batch."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(texts))
        mask_ids = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        columns = {
            "input_ids": lambda: np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": lambda: mask_ids,
            "token_type_ids": lambda: np.array([e.type_ids for e in encodings], dtype=np.int64),
        }
        (hidden,) = self._session.run(["last_hidden_state"], {name: columns[name]() for name in self._inputs})
        mask = mask_ids[:, :, None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)


OnnxMiniLM = OnnxSentenceEncoder
"""The name the bundled model's callers knew it by."""

_PROCESS_ENCODERS: dict[tuple[str | None, OnnxVariant], OnnxSentenceEncoder] = {}
_PROCESS_LOCK = threading.Lock()


def encode_texts_onnx(model_path: str | None, texts: list[str], variant: OnnxVariant = OnnxVariant.FP32) -> np.ndarray:
    """:func:`~rse_core.scoring.minilm.encode_texts` through ONNX: a
    :data:`~rse_core.scoring.minilm.BatchEncoder` whose encoder is loaded once per process (with
    no texts it only loads it)."""
    key = (model_path, variant)
    with _PROCESS_LOCK:
        if key not in _PROCESS_ENCODERS:
            _PROCESS_ENCODERS[key] = OnnxSentenceEncoder.load(model_path, variant)
    return _PROCESS_ENCODERS[key].encode(texts)


def encode_texts_onnx_int8(model_path: str | None, texts: list[str]) -> np.ndarray:
    """:func:`encode_texts_onnx` with the int8 graph (a :data:`~rse_core.scoring.minilm.BatchEncoder`,
    a module-level function so a worker process can be handed it)."""
    return encode_texts_onnx(model_path, texts, OnnxVariant.INT8)


def query_batch_encoder(export: bool = False) -> BatchEncoder | None:
    """:func:`encode_texts_onnx` where :func:`onnx_enabled` (``export``: see there), else ``None`` (torch)."""
    return encode_texts_onnx if onnx_enabled(export) else None
