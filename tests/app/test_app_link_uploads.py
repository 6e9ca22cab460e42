"""Links made with an upload: they name it, a new session asks for it, and a new upload shows no
stale result or error while it is read (AppTest)."""

from __future__ import annotations

import hashlib

import streamlit as st

from app_ui import upload_flow
from tests.support.apptest_support import all_text, messages, new_app, no_problems, result_of

NOTES = ("Otters hold hands while they sleep so they do not drift apart. " * 4 + "\n\n") * 6
OTHER = ("Penguins nest on bare rock and both parents keep the egg warm. " * 4 + "\n\n") * 6


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _upload(at, name: str, text: str):
    return at.sidebar.file_uploader(key="sb_uploads").set_value([(name, text.encode(), "text/plain")]).run()


def test_the_share_link_names_an_upload_by_hash_and_name():
    at = new_app(docs="", q="Why do otters hold hands?").run()
    _upload(at, "otter notes.txt", NOTES)
    no_problems(at)
    assert at.query_params["up"] == f"{_hash(NOTES)}:otter notes.txt"
    assert NOTES[:30] not in str(dict(at.query_params))


def test_a_new_session_asks_for_the_links_upload_and_matches_it_by_contents():
    link = {"docs": "", "q": "Why do otters hold hands?", "up": f"{_hash(NOTES)}:otter notes.txt"}
    at = new_app(**link).run()
    no_problems(at)  # no "No document selected" error
    assert result_of(at) is None
    warning = " ".join(messages(at, "warning"))
    assert "otter notes.txt" in warning and "upload it again" in warning
    assert at.query_params["up"] == link["up"]  # a reload keeps asking
    box = at.file_uploader(key="link_upload_box")
    box.set_value([("renamed.txt", NOTES.encode(), "text/plain")]).run()
    no_problems(at)
    result = result_of(at)
    assert result is not None and "Otters hold hands" in result.rse_context()
    assert not any("upload it again" in warning for warning in messages(at, "warning"))


def test_a_file_given_under_another_name_scores_as_the_link_was_made():
    """The name is the title of a text file, and so in every chunk's header: renamed, it would score otherwise."""
    made = new_app(docs="", q="Why do otters hold hands?").run()
    _upload(made, "otter notes.txt", NOTES)
    original = result_of(made)
    at = new_app(docs="", q="Why do otters hold hands?", up=made.query_params["up"]).run()
    at.file_uploader(key="link_upload_box").set_value([("renamed.txt", NOTES.encode(), "text/plain")]).run()
    no_problems(at)
    result = result_of(at)
    assert [d.name for d in result.corpus.documents] == ["otter notes.txt"]
    assert [c.header for c in result.corpus.chunks] == [c.header for c in original.corpus.chunks]
    assert [v.raw.tolist() for v in result.values] == [v.raw.tolist() for v in original.values]
    assert any("'renamed.txt' has the contents the link names" in w for w in messages(at, "warning"))
    assert at.query_params["up"] == made.query_params["up"]


def test_a_different_file_is_said_not_to_be_the_links():
    at = new_app(docs="", q="Why do otters hold hands?", up=f"{_hash(NOTES)}:otter notes.txt").run()
    at.file_uploader(key="link_upload_box").set_value([("otter notes.txt", OTHER.encode(), "text/plain")]).run()
    assert not at.exception
    assert "otter notes.txt" in " ".join(messages(at, "warning"))  # still missing
    assert "not the file the link was made with" in all_text(at)


def test_while_a_new_upload_is_read_no_stale_result_or_error_is_shown(monkeypatch):
    monkeypatch.setattr(upload_flow, "read", lambda inputs: st.stop())  # stop in the reading run, before reading
    at = new_app(docs="", q="Why do otters hold hands?").run()
    assert any("No document selected" in error for error in messages(at, "error"))
    _upload(at, "otter notes.txt", NOTES)
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert result_of(at) is None
    assert any("Reading **otter notes.txt**" in info for info in messages(at, "info"))
