"""rse_core.kb stays outside the small core and loads its database only when a base is opened."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.kb.support import ROOT


def _modules_after(statement: str) -> set[str]:
    code = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    completed = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(json.loads(completed.stdout.strip().splitlines()[-1]))


def _loaded(modules: set[str], prefixes: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes))


def test_the_core_does_not_import_kb():
    assert _loaded(_modules_after("import rse_core"), ("rse_core.kb", "lancedb", "pymilvus")) == []


def test_importing_kb_loads_no_database_model_or_app_library():
    modules = _modules_after("import rse_core.kb")
    heavy = ("lancedb", "pymilvus", "milvus_lite", "torch", "sentence_transformers", "plotly", "streamlit", "openai")
    assert _loaded(modules, heavy) == []
    assert _loaded(modules, ("rse_core.evaluation", "rse_core.figures", "rse_core.llm", "rse_core.teaching")) == []
