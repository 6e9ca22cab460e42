"""The command lines fail as a script expects: one line on stderr, exit status 2, no traceback.

Each case runs the real ``python -m rse_core`` (or ``rse_core.evaluate``) in a subprocess with the
offline bm25 scorer, so what is checked is exactly what a shell user sees.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rse_core.cli import evaluate
from rse_core.cli import extract as cli

ROOT = Path(__file__).resolve().parents[2]
TEXT = "Cats sleep most of the day.\n\nDogs like long walks in the park.\n"


def run(
    *args: str | bytes, module: str = "rse_core", cwd: Path | None = None, shell: str = ""
) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    if shell:
        return subprocess.run(shell, shell=True, capture_output=True, env=env, cwd=cwd, timeout=300)
    command = [sys.executable, "-m", module, *args]
    return subprocess.run(command, capture_output=True, env=env, cwd=cwd, timeout=300)


def assert_one_line_error(completed: subprocess.CompletedProcess, *fragments: str) -> str:
    stderr = completed.stderr.decode("utf-8", "replace")
    assert completed.returncode == 2, stderr
    assert "Traceback" not in stderr
    lines = stderr.rstrip("\n").split("\n")
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    for fragment in fragments:
        assert fragment in lines[0]
    return lines[0]


@pytest.fixture()
def notes(tmp_path: Path) -> Path:
    path = tmp_path / "notes.txt"
    path.write_text(TEXT, encoding="utf-8")
    return path


def test_a_folder_as_input_says_it_is_a_folder(tmp_path):
    line = assert_one_line_error(run(str(tmp_path), "-q", "cats", "--scorer", "bm25"), "is a folder")
    assert "No such file" not in line


def test_a_file_name_with_a_newline_gives_one_line(tmp_path):
    odd = tmp_path / "two\nlines.pdf"
    odd.write_bytes(b"not a pdf at all")
    assert_one_line_error(run(str(odd), "-q", "cats", "--scorer", "bm25"), "two?lines.pdf", "not a PDF")
    assert_one_line_error(run(str(tmp_path / "gone\nmissing.txt"), "-q", "cats"), "No such file")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root may read any file")
def test_an_unreadable_file_is_one_line(notes):
    notes.chmod(0)
    assert_one_line_error(run(str(notes), "-q", "cats", "--scorer", "bm25"), "could not be read", "Permission")


def test_an_unreadable_file_is_one_line_in_process(notes, monkeypatch, capsys):
    """The same as above where the test runs as root: reading raises PermissionError."""

    def refuse(self):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", refuse)
    assert cli.main([str(notes), "-q", "cats", "--scorer", "bm25"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "could not be read (Permission denied)" in err


@pytest.mark.parametrize(
    "query", [b"a \xff b", "a \ud800 b".encode("utf-8", "surrogatepass")], ids=["invalid-byte", "lone-surrogate"]
)
def test_undecodable_bytes_in_a_query(notes, query):
    assert_one_line_error(run(str(notes), "-q", query, "--scorer", "bm25"), "not valid text")


def test_undecodable_bytes_in_a_file_name(tmp_path):
    name = os.fsencode(tmp_path) + b"/caf\xe9.txt"
    with open(name, "wb") as handle:
        handle.write(TEXT.encode())
    completed = run(name, "-q", "cats", "--scorer", "bm25", "--json")
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["documents"][0]["doc"] == "caf\ufffd.txt"


def test_usage_errors_are_one_line(notes):
    assert_one_line_error(run(str(notes), "--scorer", "bm25"), "--query", "--help")
    assert_one_line_error(run(str(notes), "-q", "cats", "--max-length", "many"), "max-length")
    assert_one_line_error(run(str(notes), "-q", "cats", "--scorer", "bm25", "--max-length", "0"), "max_length")


def test_a_huge_max_length_on_a_large_file_is_refused_in_one_line(tmp_path, monkeypatch, capsys):
    """The candidate grid grows with chunks x max_length: refused with the limits to lower, not
    a numpy MemoryError (20 MB at --max-length 100000 needed 11 GB)."""
    import rse_core.search.greedy as search

    big = tmp_path / "big.txt"
    big.write_text("".join(f"Sentence number {i} about nothing much.\n" for i in range(4000)), encoding="utf-8")
    monkeypatch.setattr(search, "MAX_GRID_BYTES", 1_000_000)  # in-process: a small ceiling, same code path
    arguments = [str(big), "-q", "nothing", "--scorer", "bm25", "--penalty", "0", "--chunk-size", "200"]
    assert cli.main([*arguments, "--max-length", "100000", "--overall-max-length", "100000"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "The segment search would need" in err and "Lower max_length" in err


def test_json_into_a_closed_pipe_exits_quietly(notes):
    completed = run(shell=f"{sys.executable} -m rse_core {notes} -q cats --scorer bm25 --json | head -c 100")
    assert completed.returncode == 0
    assert completed.stderr == b""
    assert len(completed.stdout) == 100
    status = run(
        shell=f"{sys.executable} -m rse_core {notes} -q cats --scorer bm25 --json | head -c 100 >/dev/null; "
        "echo ${PIPESTATUS[0]}"
    )
    assert status.stdout.strip() in (b"0", b"")  # /bin/sh without PIPESTATUS prints an empty line


def test_the_same_bytes_under_two_names_are_listed(notes, tmp_path):
    copy = tmp_path / "copy.txt"
    copy.write_bytes(notes.read_bytes())
    completed = run(str(notes), str(copy), "-q", "cats", "--scorer", "bm25", "--json")
    result = json.loads(completed.stdout)
    assert [document["also_named"] for document in result["documents"]] == [["copy.txt"]]
    assert any("copy.txt has the same content as notes.txt" in note for note in result["notes"])


def test_evaluate_golden_set_with_a_huge_integer_is_one_line(tmp_path):
    golden = tmp_path / "big.golden.json"
    golden.write_text('{"schema": "rse-golden/1", "document": "x.txt", "queries": [' + "9" * 5000 + "]}")
    assert_one_line_error(run(str(golden), module="rse_core.evaluate"), "big.golden.json", "cannot be read")


def test_evaluate_usage_and_unwritable_outputs_are_one_line(tmp_path, capsys):
    assert_one_line_error(run("--set", "nope", module="rse_core.evaluate"), "Unknown evaluation set")
    assert_one_line_error(run(str(tmp_path), module="rse_core.evaluate"), "Could not read golden set")
    assert evaluate.main(["--preset", "nope", "x.json"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
