"""Nothing from user data reaches the terminal as a control sequence."""

from __future__ import annotations

import json

import pytest

from rse_core.cli import evaluate
from rse_core.cli import extract as cli
from rse_core.cli.support import json_terminal_safe, one_line, terminal_safe

# An OSC that sets the window title, a CSI (7-bit and the one-byte C1 form) that clears the screen,
# a bell, a carriage return that would overwrite the line, DEL.
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x9b2J\r\x7fX"
CONTROLS = {chr(code) for code in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]}

TEXT = "Cats sleep most of the day.\n\nDogs like long walks in the park. The walks are long.\n"


def assert_clean(text: str) -> None:
    assert not CONTROLS & set(text), [c for c in text if c in CONTROLS]


def test_terminal_safe_keeps_text_tabs_and_line_breaks():
    assert terminal_safe(f"a\tb\nc{HOSTILE}é😀") == "a\tb\nc]0;pwned[2J2JXé😀"
    assert_clean(one_line(f"bad {HOSTILE} name"))
    assert json.loads(json_terminal_safe(json.dumps({"q": HOSTILE}, ensure_ascii=False))) == {"q": HOSTILE}


@pytest.mark.parametrize("as_json", [False, True])
def test_a_query_with_escape_sequences_prints_none(tmp_path, capsys, as_json):
    path = tmp_path / "notes.txt"
    path.write_text(TEXT, encoding="utf-8")
    argv = [str(path), "--query", f"long walks {HOSTILE}", "--scorer", "bm25", *(["--json"] if as_json else [])]
    assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    assert_clean(out)
    assert_clean(err)
    if as_json:  # the data survives, escaped
        assert HOSTILE in json.loads(out)["queries"][0]
    else:
        assert "pwned" in out


def test_a_golden_set_id_with_escape_sequences_prints_none(tmp_path, capsys):
    document = tmp_path / "notes.txt"
    document.write_text(TEXT, encoding="utf-8")
    start = TEXT.index("Dogs")
    golden = {
        "schema": "rse-golden/1",
        "document": "notes.txt",
        "queries": [
            {
                "id": "\x1b[2Jq1",  # the table shows 7 characters of an id
                "query": f"Which animal likes walks? {HOSTILE}",
                "kind": "factoid",
                "start_char": start,
                "end_char": len(TEXT) - 1,
            }
        ],
    }
    path = tmp_path / "set.json"
    path.write_text(json.dumps(golden), encoding="utf-8")
    code = evaluate.main([str(path), "--scorer", "bm25", "--curves"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "[2Jq1" in out  # the id is shown, without its control characters
    assert_clean(out)
    assert_clean(err)
    golden["queries"][0].update(id=f"q{HOSTILE}", end_char=len(TEXT) + 50)  # an error that names the id
    path.write_text(json.dumps(golden), encoding="utf-8")
    assert evaluate.main([str(path), "--scorer", "bm25"]) == 2
    out, err = capsys.readouterr()
    assert "pwned" in err and len(err.strip().splitlines()) == 1
    assert_clean(out)
    assert_clean(err)
