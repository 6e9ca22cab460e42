"""RSEParams.to_dsrag: exactly dsRAG's rse_params keys and the values tuned here; the snippets run."""

from __future__ import annotations

import ast
import json

from rse_core import RSEParams
from rse_core.cli.extract import main
from rse_core.handoff import HandOff
from rse_core.params import PRESETS, Preset, tuning_note

DSRAG_KEYS = {
    "max_length",
    "overall_max_length",
    "minimum_value",
    "irrelevant_chunk_penalty",
    "overall_max_length_extension",
    "decay_rate",
    "top_k_for_document_selection",
    "chunk_length_adjustment",
}


def test_exactly_dsrags_keys_and_the_tuned_values():
    params = RSEParams(
        irrelevant_chunk_penalty=0.13, decay_rate=45, max_length=12, overall_max_length=25, minimum_value=0.65
    )
    exported = params.to_dsrag()
    assert set(exported) == DSRAG_KEYS
    assert exported == {
        "max_length": 12,
        "overall_max_length": 25,
        "minimum_value": 0.65,
        "irrelevant_chunk_penalty": 0.13,
        "overall_max_length_extension": 0,  # this app never grows the budget per extra query
        "decay_rate": 45.0,
        "top_k_for_document_selection": 10,
        "chunk_length_adjustment": False,
    }


def test_dsrags_balanced_preset_round_trips_to_its_own_numbers():
    exported = PRESETS[Preset.BALANCED].to_dsrag()
    assert exported["irrelevant_chunk_penalty"] == 0.18 and exported["max_length"] == 15
    assert exported["minimum_value"] == 0.5 and exported["chunk_length_adjustment"] is True


def test_the_dsrag_snippet_is_python_that_holds_the_dict():
    params = RSEParams(minimum_value=0.7)
    tree = ast.parse(HandOff.of(params, "bm25").dsrag())
    assignment = next(node for node in tree.body if isinstance(node, ast.Assign))
    assert assignment.targets[0].id == "rse_params"
    assert ast.literal_eval(assignment.value) == params.to_dsrag()


def test_the_note_names_scorer_and_calibration_and_what_to_recheck():
    note = tuning_note("minilm", "all-MiniLM-L6-v2", "raw / highest raw score.")
    assert "minilm (all-MiniLM-L6-v2)" in note and "raw / highest raw score." in note
    assert "Cohere" in note and "minimum value" in note and "penalty" in note


def test_the_cli_json_carries_dsrag_params_and_the_note(tmp_path, capsys):
    path = tmp_path / "doc.txt"
    path.write_text("Probation lasts six months.\n\n" * 30 + "Holidays are 25 days a year.\n", "utf-8")
    assert main([str(path), "-q", "holidays", "--scorer", "bm25", "--penalty", "0.25", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["dsrag_rse_params"]) == DSRAG_KEYS
    assert data["dsrag_rse_params"]["irrelevant_chunk_penalty"] == 0.25
    assert data["tuned_with"]["scorer"] == "bm25" and "re-check" in data["tuned_with"]["note"]
