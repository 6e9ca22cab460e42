"""Explore's uploads with names longer than a file system takes: read under a short safe name that
keeps the extension, named in the share link, and refused (past the session's limits) by the
name the user gave, cut to a display length (AppTest)."""

from __future__ import annotations

from rse_core.documents.upload_names import STORED_NAME_BYTES
from tests.support.apptest_support import messages, new_app, no_problems, result_of

LONG_NAMES = ("a" * 300 + ".txt", "é" * 130 + ".txt")  # 304 characters; 264 bytes of UTF-8
TEXTS = (
    b"Otters hold hands while they sleep so they do not drift apart.\n" * 20,
    b"Penguins nest on bare rock and both parents keep the egg warm.\n" * 20,
)


def _upload(at, count: int):
    files = [(name, text, "text/plain") for name, text in zip(LONG_NAMES[:count], TEXTS[:count], strict=True)]
    return at.sidebar.file_uploader(key="sb_uploads").set_value(files).run()


def test_uploads_with_overlong_names_are_read_under_short_names_the_link_can_carry():
    at = _upload(new_app(docs="", q="Why do otters hold hands?").run(), 2)
    no_problems(at)
    names = [document.name for document in result_of(at).corpus.documents]
    assert len(names) == 2
    for name, raw in zip(names, LONG_NAMES, strict=True):
        assert len(name.encode("utf-8")) <= STORED_NAME_BYTES and name.endswith(".txt") and name.startswith(raw[:40])
    assert [entry.split(":", 1)[1] for entry in at.query_params["up"].split("/")] == names


def test_an_upload_past_the_limits_is_named_as_given_cut_to_display_length(monkeypatch):
    monkeypatch.setenv("RSE_MAX_UPLOADS_PER_SESSION", "1")
    at = _upload(new_app(docs="", q="Why do otters hold hands?").run(), 2)
    [refusal] = messages(at, "error")
    assert f"Not read: '{LONG_NAMES[1][:79]}…'." in refusal
