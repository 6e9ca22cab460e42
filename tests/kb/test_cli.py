"""``python -m rse_core.kb``: build, query (-q and --batch), info, remove, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rse_core import load_document
from rse_core.cli.kb import main
from tests.kb.support import ROOT, as_default_embedder, filler

SEGMENT_KEYS = {"document", "start_char", "end_char", "first_page", "last_page", "score", "text"}
HIT_KEYS = {"document", "start_char", "end_char", "score"}


def _cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rse_core.kb", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


PUMP = (
    "The coolant pump is a Grundfos CR 15 multistage centrifugal pump. It moves 180 litres of glycol "
    "coolant a minute through the cold plates of the battery racks and back to the chiller. A second, "
    "identical pump stands by and takes over within two seconds when the first one trips.\n\n"
)
PROBATION = (
    "Every new employee serves a probation period of six months. During probation your manager meets "
    "you each month to review your progress, and either side may end the employment with one week's "
    "notice. When the probation period ends you receive a written confirmation of your appointment.\n\n"
)


@pytest.fixture
def documents(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "pumps.md").write_text(
        "# Cooling plant\n\n" + filler("valve", 3) + "\n" + PUMP + filler("valve", 3, seed=2)
    )
    (folder / "leave.txt").write_text(filler("roster", 3, seed=3) + "\n" + PROBATION + filler("roster", 2))
    return folder


def _check_result(data: dict, query: str, folder) -> None:
    assert data["query"] == query
    assert isinstance(data["characters"], int)
    assert data["characters"] == sum(s["end_char"] - s["start_char"] for s in data["segments"])
    for segment in data["segments"]:
        assert set(segment) >= SEGMENT_KEYS
        text = load_document(folder / segment["document"]).text
        assert segment["text"] == text[segment["start_char"] : segment["end_char"]]
        assert 1 <= segment["first_page"] <= segment["last_page"]
    assert data["top_k"] and all(set(hit) >= HIT_KEYS for hit in data["top_k"])
    scores = [hit["score"] for hit in data["top_k"]]
    assert scores == sorted(scores, reverse=True)


def test_build_query_batch_info_and_remove_in_process(documents, tmp_path, monkeypatch, capsys):
    """The whole CLI with a model-free embedder standing in for MiniLM (its shape, not the model)."""
    as_default_embedder(monkeypatch)
    kb_dir = tmp_path / "kb"
    assert main(["build", str(kb_dir), str(documents)]) == 0
    captured = capsys.readouterr()
    assert "Added 2 document(s)" in captured.out and "2/2 files" in captured.err
    assert main(["build", str(kb_dir), str(documents / "pumps.md")]) == 0
    assert "Added 0 document(s)" in capsys.readouterr().out

    query = "Which Grundfos model moves the coolant?"
    # Four chunks: every word is common, BM25 scores stay low (see BM25_CALIBRATION), so a low minimum.
    args = ["query", str(kb_dir), "-q", query, "--json", "--first-stage", "bm25", "--minimum-value", "0.05"]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    data = json.loads(lines[0])
    _check_result(data, query, documents)
    assert data["segments"][0]["document"] == "pumps.md"
    assert "Grundfos" in data["segments"][0]["text"]

    batch = tmp_path / "queries.txt"
    batch.write_text(f"{query}\n\nHow long is probation for new hires?\n")
    assert main(["query", str(kb_dir), "--batch", str(batch), "--json", "--first-stage", "hybrid"]) == 0
    results = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["query"] for r in results] == [query, "How long is probation for new hires?"]
    for result in results:
        _check_result(result, result["query"], documents)

    assert main(["query", str(kb_dir), "-q", "coolant pump", "-q", "probation", "--json"]) == 0
    together = json.loads(capsys.readouterr().out)
    assert together["query"] == ["coolant pump", "probation"]

    assert main(["info", str(kb_dir), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert [d["name"] for d in info["documents"]] == ["leave.txt", "pumps.md"] and info["chunks"] > 0
    assert main(["remove", str(kb_dir), "leave.txt"]) == 0
    assert "Removed leave.txt" in capsys.readouterr().out
    assert main(["info", str(kb_dir)]) == 0
    assert "1 documents" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["query", "{tmp}/no_kb", "-q", "pump", "--json"], "No knowledge base at"),
        (["info", "{tmp}/no_kb"], "No knowledge base at"),
        (["build", "{tmp}/kb", "{root}/pyproject.toml"], "Nothing to add: pyproject.toml: not a PDF, text or Markdown"),
        (["build", "{tmp}/kb", "{tmp}/missing.pdf"], "No such file or folder"),
        (["query", "{tmp}"], "one of the arguments -q/--query --batch is required"),
        (["frobnicate"], "invalid choice"),
        (
            ["build", "{tmp}/kb", "{root}/README.md", "--embedder", "word2vec"],
            "Unknown embedder 'word2vec': use minilm,",
        ),
        (
            ["build", "{tmp}/kb", "{root}/README.md", "--base-url", "http://127.0.0.1:9/v1"],
            "need --embedder openai:MODEL",
        ),
        (
            [
                "build",
                "{tmp}/kb",
                "{root}/README.md",
                "--embedder",
                "openai:e5",
                "--base-url",
                "http://u:pw@127.0.0.1:9/v1",
            ],
            "Could not connect to the embeddings endpoint http://127.0.0.1:9/v1 (model 'e5')",
        ),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_exit_status_2(tmp_path, args, message):
    completed = _cli(*(arg.format(tmp=tmp_path, root=ROOT) for arg in args))
    assert completed.returncode == 2
    assert completed.stdout == ""
    errors = [line for line in completed.stderr.splitlines() if not line.startswith("Building ")]  # progress
    assert len(errors) == 1 and errors[0].startswith("error: ")
    assert message in completed.stderr
    assert not (tmp_path / "kb").exists()


def test_an_empty_query_or_queries_file_is_refused_before_the_model_loads(documents, tmp_path, monkeypatch, capsys):
    as_default_embedder(monkeypatch)
    kb_dir = tmp_path / "kb"
    main(["build", str(kb_dir), str(documents), "--quiet"])
    capsys.readouterr()
    assert main(["query", str(kb_dir), "-q", "   ", "--json"]) == 2
    assert capsys.readouterr().err.strip() == "error: The query is empty; type a question or a few keywords."
    empty = tmp_path / "empty.txt"
    empty.write_text("\n  \n")
    assert main(["query", str(kb_dir), "--batch", str(empty), "--json"]) == 2
    assert "holds no query" in capsys.readouterr().err


@pytest.mark.slow
def test_the_real_cli_builds_and_answers_with_minilm(documents, tmp_path):
    kb_dir = tmp_path / "kb"
    built = _cli("build", str(kb_dir), str(documents / "pumps.md"), str(documents / "leave.txt"))
    assert built.returncode == 0, built.stderr
    assert "ETA" in built.stderr or "left" in built.stderr
    batch = tmp_path / "queries.txt"
    batch.write_text("Which coolant pump is used?\nHow long is the probation period?\n")
    answered = _cli("query", str(kb_dir), "--batch", str(batch), "--json")
    assert answered.returncode == 0, answered.stderr
    results = [json.loads(line) for line in answered.stdout.splitlines()]
    assert len(results) == 2
    for result in results:
        _check_result(result, result["query"], documents)
    assert results[0]["segments"][0]["document"] == "pumps.md"
    assert results[1]["segments"][0]["document"] == "leave.txt"


@pytest.fixture
def mixed_folder(documents):
    """The documents, a PDF, a JSON file and a broken PDF: what a glob over a real folder meets."""
    (documents / "handbook.pdf").write_bytes((ROOT / "sample_docs" / "employee_handbook.pdf").read_bytes())
    (documents / "data.json").write_text('{"a": 1}')
    (documents / "broken.pdf").write_bytes(b"%PDF-1.4 broken")
    return documents


def test_a_build_skips_what_it_cannot_read_names_it_and_still_builds(mixed_folder, tmp_path, monkeypatch, capsys):
    as_default_embedder(monkeypatch)
    kb_dir = tmp_path / "kb"
    assert main(["build", str(kb_dir), str(mixed_folder), str(mixed_folder / "data.json")]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines()[0] == f"Building {kb_dir} from 4 file(s) (2 left out, listed at the end)..."
    assert "reading broken.pdf (1/4)" in captured.err and "reading pumps.md (4/4)" in captured.err
    assert "Added 3 document(s)" in captured.out
    assert f"Not read: {mixed_folder / 'data.json'}: not a PDF, text or Markdown file" in captured.out
    assert f"Not read: {mixed_folder / 'broken.pdf'}: broken.pdf could not be opened as a PDF" in captured.out
    assert main(["build", str(tmp_path / "kb2"), str(mixed_folder), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert [item["path"] for item in summary["not_read"]] == [str(mixed_folder / "data.json")]
    assert [item["path"] for item in summary["failed"]] == [str(mixed_folder / "broken.pdf")]
    assert sorted(item["name"] for item in summary["added"]) == ["handbook.pdf", "leave.txt", "pumps.md"]


def test_a_build_that_can_add_nothing_exits_2_and_says_why(mixed_folder, tmp_path, monkeypatch, capsys):
    as_default_embedder(monkeypatch)
    args = ["build", str(tmp_path / "kb"), str(mixed_folder / "data.json"), str(mixed_folder / "broken.pdf")]
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines()[-1].startswith("error: nothing could be added")
    assert "Not read:" in captured.out


def test_a_query_names_its_documents_and_says_why_nothing_came_back(documents, tmp_path, monkeypatch, capsys):
    as_default_embedder(monkeypatch)
    kb_dir = tmp_path / "kb"
    assert main(["build", str(kb_dir), str(documents), "--quiet"]) == 0
    capsys.readouterr()
    query = ["query", str(kb_dir), "-q", "Which Grundfos model moves the coolant?", "--first-stage", "bm25"]
    assert main([*query, "--json", "--minimum-value", "0.05"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert set(found["selected_documents"]) <= {"pumps.md", "leave.txt"} and found["selected_documents"]
    assert all(len(doc_id) == 16 for doc_id in found["selected_doc_ids"]) and found["empty_reason"] is None
    assert main([*query, "--json", "--minimum-value", "50"]) == 0
    empty = json.loads(capsys.readouterr().out)
    assert empty["segments"] == []
    assert empty["empty_reason"].startswith("No segment reached the minimum segment value 50 (the best was worth")
    assert "Documents considered: " in empty["empty_reason"] and "pumps.md" in empty["empty_reason"]
    assert main([*query, "--minimum-value", "50"]) == 0
    text = capsys.readouterr().out
    assert "Selected documents: " in text and "No segment reached the minimum segment value 50" in text


def test_a_query_within_a_document_answers_from_it_alone_and_an_unknown_one_is_one_line(
    documents, tmp_path, monkeypatch, capsys
):
    as_default_embedder(monkeypatch)
    kb_dir = tmp_path / "kb"
    assert main(["build", str(kb_dir), str(documents), "--quiet"]) == 0
    capsys.readouterr()
    query = ["query", str(kb_dir), "-q", "Which Grundfos model moves the coolant?", "--json"]
    assert main([*query, "--within", "leave.txt"]) == 0  # the wrong document, on purpose: only it is searched
    within = json.loads(capsys.readouterr().out)
    assert within["selected_documents"] == ["leave.txt"]
    assert {hit["document"] for hit in within["top_k"]} == {"leave.txt"}
    assert {segment["document"] for segment in within["segments"]} <= {"leave.txt"}
    assert within["searched_within"] == ["leave.txt"]
    assert main([*query[:-1], "--within", "leave.txt"]) == 0
    assert "Searched within: leave.txt" in capsys.readouterr().out
    assert main([*query, "--within", "minutes.pdf"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith("error: No document 'minutes.pdf' in ")


def test_named_documents_searches_the_file_a_query_names(documents, tmp_path, monkeypatch, capsys):
    as_default_embedder(monkeypatch)
    kb_dir = tmp_path / "kb"
    assert main(["build", str(kb_dir), str(documents), "--quiet"]) == 0
    capsys.readouterr()
    query = ["query", str(kb_dir), "-q", "What do the leave rules say about probation?", "--named-documents"]
    assert main([*query, "--json"]) == 0
    named = json.loads(capsys.readouterr().out)
    assert named["named_documents"] == ["leave.txt"] and named["selected_documents"] == ["leave.txt"]
    assert {hit["document"] for hit in named["top_k"]} == {"leave.txt"}
    assert main(query) == 0
    assert "Named in the query: leave.txt" in capsys.readouterr().out
    assert main([*query[:-1], "--json"]) == 0  # without the option
    assert json.loads(capsys.readouterr().out)["named_documents"] == []
    # Named, but the pump is in pumps.md: the name is set aside, and the note says so.
    pump = "What do the leave rules say about the Grundfos pump?"
    assert main(["query", str(kb_dir), "-q", pump, "--named-documents"]) == 0
    text = capsys.readouterr().out
    assert "Note: The question names leave.txt by one word, but the best chunk there scores" in text
    assert "Named in the query" not in text
