"""The package's shape: a small core that imports nothing heavy, and a wheel that installs whole
and runs on its own data (``.ci/wheel_check.sh`` also installs it in a fresh venv and runs it).

The layers themselves (core <- evaluation <- {teaching, figures, llm} <- cli, the app on top, no
cycles) are import-linter contracts in ``pyproject.toml``, checked by ``lint-imports`` in CI.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

HEAVY = ("plotly", "streamlit", "openai", "cohere", "pandas", "torch", "sentence_transformers", "transformers")
OUTER = ("rse_core.evaluation", "rse_core.teaching", "rse_core.figures", "rse_core.llm", "rse_core.cli")


def _modules_after(statement: str) -> set[str]:
    code = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    completed = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(json.loads(completed.stdout.strip().splitlines()[-1]))


def _loaded(modules: set[str], prefixes: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes))


def test_importing_rse_core_loads_no_heavy_library_and_nothing_outside_the_core():
    modules = _modules_after("import rse_core")
    assert _loaded(modules, HEAVY) == []
    assert _loaded(modules, OUTER) == []


def test_running_the_whole_pipeline_with_bm25_still_loads_none_of_them():
    """bm25 needs no model: a notebook that extracts with it should not pay for torch or Plotly."""
    modules = _modules_after(
        "from rse_core import Document, extract, get_scorer\n"
        "doc = Document.from_text('Parking is in the north lot. Visitors use the south lot.', name='n.txt')\n"
        "extract(doc, 'where do visitors park?', scorer=get_scorer('bm25'))"
    )
    assert _loaded(modules, HEAVY) == []
    assert _loaded(modules, OUTER) == []


def _packages() -> list[str]:
    return sorted(".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "rse_core").rglob("__init__.py"))


def test_every_folder_of_rse_core_is_a_package():
    """A folder without ``__init__.py`` would be left out of the wheel (and of ``find``)."""
    folders = {
        ".".join(path.relative_to(ROOT).parts)
        for path in (ROOT / "rse_core").rglob("*")
        if path.is_dir() and path.name != "__pycache__" and any(path.glob("*.py"))
    }
    assert folders <= set(_packages())


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built from a copy of the tree (setuptools writes build/ beside the sources)."""
    tmp_path = tmp_path_factory.mktemp("wheel")
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for folder in ("rse_core", "sample_docs", "eval_sets"):
        shutil.copytree(ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "dist"
    code = f"from setuptools import build_meta; print(build_meta.build_wheel({str(out)!r}))"
    out.mkdir()
    completed = subprocess.run([sys.executable, "-c", code], cwd=source, capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr[-2000:]
    return out / completed.stdout.strip().splitlines()[-1]


@pytest.mark.slow
def test_a_wheel_built_from_the_tree_holds_every_subpackage_and_the_data(wheel):
    """``pip install .`` once shipped only rse_core and rse_core.scoring (no teaching/), and later
    no samples: installed, ``rse-evaluate samples`` found nothing to evaluate."""
    names = set(zipfile.ZipFile(wheel).namelist())
    for package in _packages():
        assert package.replace(".", "/") + "/__init__.py" in names, package
    source_files = {str(p.relative_to(ROOT)) for p in (ROOT / "rse_core").rglob("*.py")}
    assert source_files <= names
    data = {
        "rse_core/data/samples/": (
            ROOT / "sample_docs",
            ["*.pdf", "*.golden.json", "text/*", "embeddings/*", "FORMAT.md"],
        ),
        "rse_core/data/external/": (ROOT / "eval_sets" / "external", ["*.golden.json"]),
    }
    for prefix, (folder, patterns) in data.items():
        expected = {prefix + str(p.relative_to(folder)) for pattern in patterns for p in folder.glob(pattern)}
        assert expected and expected <= names, prefix
    assert not [n for n in names if n.startswith("rse_core/data/samples/") and n.endswith(".py")], "no build scripts"
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(wheel).read(metadata).decode()
    for extra in ("minilm", "cohere", "figures", "llm", "kb", "milvus", "app"):
        assert f"Provides-Extra: {extra}" in text
    assert 'Requires-Dist: openai; extra == "llm"' in text
    assert 'Requires-Dist: plotly; extra == "figures"' in text
    assert 'Requires-Dist: sentence-transformers; extra == "minilm"' in text
    assert "Requires-Dist: sentence-transformers\n" not in text and "Requires-Dist: cohere\n" not in text


@pytest.mark.slow
def test_the_wheels_package_evaluates_the_samples_from_outside_the_checkout(wheel, tmp_path):
    """The wheel's rse_core, unpacked away from the checkout, finds its own 36 sample queries."""
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    environment = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "RSE_CORPUS_DIR")}
    completed = subprocess.run(
        [sys.executable, "-m", "rse_core.evaluate", "samples", "--scorer", "bm25", "--markdown"],
        cwd=elsewhere,
        env={**environment, "PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert "| samples | 36 | 3 |" in completed.stdout
