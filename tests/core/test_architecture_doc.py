"""docs/architecture.md's module map follows the tree: it names exactly the modules of the
layers contract in pyproject.toml (the contract lint-imports checks), each table from top to bottom."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\| `rse_core/(?P<module>[A-Za-z_]+)(?:\.py|/)?` \|")


def _layers() -> list[set[str]]:
    """The rse_core layers contract, top layer first, each layer's module names."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]["contracts"]
    (layered,) = [c for c in contracts if c.get("containers") == ["rse_core"] and c["type"] == "layers"]
    return [{name.strip() for name in re.split(r"[:|]", layer)} for layer in layered["layers"]]


def _map_tables() -> list[list[str]]:
    """The module names in the first column of each table of the doc's module map."""
    text = (ROOT / "docs" / "architecture.md").read_text("utf-8")
    tables: list[list[str]] = []
    in_table = False
    for line in text.splitlines():
        match = ROW.match(line)
        if match and not in_table:
            tables.append([])
        if match:
            tables[-1].append(match["module"])
        in_table = bool(match) or (in_table and line.startswith("|"))
    return tables


def test_the_module_map_names_exactly_the_modules_of_the_layers_contract():
    documented = [module for table in _map_tables() for module in table]
    contracted = set().union(*_layers())
    assert len(documented) == len(set(documented)), "a module is described twice"
    assert sorted(contracted - set(documented)) == [], "in the layers contract but not in docs/architecture.md"
    assert sorted(set(documented) - contracted) == [], "in docs/architecture.md but not in the layers contract"


def test_each_table_of_the_module_map_runs_from_the_top_layer_down():
    depth = {module: number for number, layer in enumerate(_layers()) for module in layer}
    for table in _map_tables():
        depths = [depth[module] for module in table]
        assert depths == sorted(depths), table


def test_every_module_in_the_layers_contract_is_in_the_tree():
    for module in set().union(*_layers()):
        assert (ROOT / "rse_core" / f"{module}.py").is_file() or (ROOT / "rse_core" / module).is_dir(), module
