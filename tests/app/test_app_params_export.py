"""Explore's JSON export and its code panel carry dsRAG's rse_params and the tuning note (AppTest)."""

from __future__ import annotations

import ast
import json

from app_ui.components import result_json
from tests.support.apptest_support import new_app, no_problems, result_of


def test_explore_offers_dsrag_and_rse_core_snippets_and_the_json_has_rse_params():
    at = new_app(docs="employee_handbook", penalty="0.27").run()
    no_problems(at)
    assert not any(code.value.startswith("# dsRAG") for code in at.code)  # drawn on request only
    at.toggle(key="explore_export_code").set_value(True).run()
    result = result_of(at)
    codes = [code.value for code in at.code]
    dsrag = next(code for code in codes if code.startswith("# dsRAG"))
    assignment = next(node for node in ast.parse(dsrag).body if isinstance(node, ast.Assign))
    assert ast.literal_eval(assignment.value) == result.params.to_dsrag()
    assert ast.literal_eval(assignment.value)["irrelevant_chunk_penalty"] == 0.27
    handoff = result.handoff()
    assert handoff.python().strip() in codes and handoff.command() in codes  # as the rse_core.handoff tests run them
    assert "employee_handbook.pdf" in handoff.command()
    assert any("Tuned with the bm25 (bm25s) scorer" in info.value for info in at.info)
    exported = json.loads(result_json(result))
    assert exported["dsrag_rse_params"] == result.params.to_dsrag()
    assert "calibrated as" in exported["tuned_with"]["note"]
