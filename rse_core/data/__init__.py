"""The data the package ships: the sample documents with their golden sets, and the external golden sets.

They are written where the project keeps them (``sample_docs/``, ``eval_sets/external/``: the
samples are built by ``sample_docs/build.py`` and ``embed.py``) and the wheel installs them inside
this package, as ``rse_core/data/samples/`` and ``rse_core/data/external/``. The mapping is
stated once, in ``pyproject.toml``'s ``[tool.setuptools.package-dir]``: setuptools reads it to
build the wheel, and :func:`bundled_folder` reads it in a checkout, so the same call finds the
data in both.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from pathlib import Path

SAMPLES = "samples"
EXTERNAL = "external"

__all__ = ["EXTERNAL", "SAMPLES", "bundled_folder"]


def bundled_folder(name: str) -> Path:
    """The folder of bundled data ``name`` (:data:`SAMPLES` or :data:`EXTERNAL`).

    Inside the installed package when it is there, else the checkout's folder that
    ``pyproject.toml`` maps to it. The folder may be missing (a broken install): callers that find
    nothing in it say so (:class:`~rse_core.errors.EmptySetError`) rather than report zero files.
    """
    installed = resources.files(__name__) / name
    if installed.is_dir():
        return Path(str(installed))
    return _checkout_folders().get(f"{__name__}.{name}", Path(str(installed)))


@cache
def _checkout_folders() -> dict[str, Path]:
    """Package name -> folder, from the checkout's ``pyproject.toml`` (empty when installed without it)."""
    root = Path(__file__).resolve().parents[2]
    try:
        config = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    mapping = config.get("tool", {}).get("setuptools", {}).get("package-dir", {})
    return {package: root / folder for package, folder in mapping.items()}
