"""An upload's name is made safe to record and write: bounded bytes, no folders, nothing unprintable,
its extension kept, and two different files never given one name."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from rse_core.documents.upload_names import SHOWN_NAME_CHARS, STORED_NAME_BYTES, upload_name

EXTENSIONS = (".pdf", ".txt", ".md", ".PDF", "")


@settings(max_examples=300, deadline=None)
@given(stem=st.text(max_size=400), extension=st.sampled_from(EXTENSIONS), data=st.binary(max_size=64))
def test_any_name_becomes_a_short_printable_file_name_with_its_extension(tmp_path_factory, stem, extension, data):
    name = upload_name(stem + extension, data)
    stored = name.stored
    assert 0 < len(stored.encode("utf-8")) <= STORED_NAME_BYTES
    assert stored not in (".", "..") and "/" not in stored and "\\" not in stored
    assert unicodedata.is_normalized("NFC", stored)
    assert all(char.isprintable() for char in stored)
    assert 0 < len(name.shown) <= SHOWN_NAME_CHARS and all(char.isprintable() for char in name.shown)
    if extension:
        assert stored.endswith(extension)
    folder = tmp_path_factory.mktemp("names")
    (folder / stored).write_bytes(data)  # the file system takes it
    assert [path.name for path in folder.iterdir()] == [stored]


@settings(max_examples=100, deadline=None)
@given(first=st.binary(max_size=32), second=st.binary(max_size=32), cut=st.booleans())
def test_two_different_files_never_share_a_cut_or_taken_name(first, second, cut):
    raw = ("é" * 130 if cut else "notes") + ".md"
    taken = set() if cut else {"notes.md"}
    names = {upload_name(raw, first, taken).stored, upload_name(raw, second, taken).stored}
    assert len(names) == (1 if first == second else 2)


def test_a_long_name_is_cut_at_a_character_and_shown_as_the_original_cut_to_display_length():
    for raw in ("a" * 300 + ".txt", "é" * 130 + ".txt"):
        name = upload_name(raw, b"text")
        assert name.stored.endswith(".txt") and name.stored.startswith(raw[:40])
        assert len(name.stored.encode("utf-8")) <= STORED_NAME_BYTES
        assert name.shown == raw[: SHOWN_NAME_CHARS - 1] + "\u2026"


def test_a_name_that_needs_nothing_is_kept_and_folders_and_controls_go():
    assert upload_name("Annual report 2023.pdf", b"%PDF") == upload_name("Annual report 2023.pdf", b"%PDF")
    assert upload_name("Annual report 2023.pdf", b"%PDF").stored == "Annual report 2023.pdf"
    assert upload_name("../../etc/b.md", b"x").stored == "b.md"
    assert upload_name("C:\\Users\\me\\r.PDF", b"x").stored == "r.PDF"
    assert upload_name("bad\nname\u202e.txt", b"x").stored == "badname.txt"
    assert upload_name("e\u0301t\u00e9.md", b"x").stored == "\u00e9t\u00e9.md"  # NFC
    assert upload_name("..", b"x").stored == "upload"
    assert upload_name(".md", b"x").stored == "upload.md"
