"""A session reads at most RSE_MAX_UPLOADS_PER_SESSION uploads and RSE_MAX_UPLOAD_BYTES_PER_SESSION
bytes in all (ten 20 MB texts once took a server from 84 MB to 1,175 MB); files past either
limit are refused before parsing, with one line that names them and the variables."""

from __future__ import annotations

from tests.support.apptest_support import messages, new_app, result_of

UPLOADS = "sb_uploads"


def note(name: str, size: int = 300) -> tuple[str, bytes, str]:
    text = f"# {name}\n\n" + f"Notes on {name}: penguins, glaciers and krill. " * (size // 40 + 1)
    return (f"{name}.md", text.encode()[:size], "text/markdown")


def read_names(at) -> list[str]:
    return [document.name for document in result_of(at).corpus.documents]


def test_uploads_past_the_count_are_refused_with_one_line(monkeypatch):
    monkeypatch.setenv("RSE_MAX_UPLOADS_PER_SESSION", "2")
    at = new_app(q="penguins").run()
    at.sidebar.file_uploader(key=UPLOADS).set_value([note("one"), note("two"), note("three")]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert "one.md" in read_names(at) and "two.md" in read_names(at)
    assert "three.md" not in read_names(at)
    errors = messages(at, "error")
    assert len(errors) == 1 and "\n" not in errors[0], errors
    assert "three.md" in errors[0] and "at most 2 uploads" in errors[0] and "RSE_MAX_UPLOADS_PER_SESSION" in errors[0]

    at.sidebar.file_uploader(key=UPLOADS).set_value([note("two"), note("three")]).run()  # room again
    assert messages(at, "error") == []
    assert "three.md" in read_names(at)


def test_uploads_past_the_total_bytes_are_refused(monkeypatch):
    monkeypatch.setenv("RSE_MAX_UPLOAD_BYTES_PER_SESSION", "1000")
    at = new_app(q="penguins").run()
    at.sidebar.file_uploader(key=UPLOADS).set_value([note("big", 800), note("small", 150), note("more", 300)]).run()
    assert not at.exception, [e.value for e in at.exception]
    names = read_names(at)
    assert "big.md" in names and "small.md" in names and "more.md" not in names  # in order, kept while it fits
    errors = messages(at, "error")
    assert len(errors) == 1 and "more.md" in errors[0] and "RSE_MAX_UPLOAD_BYTES_PER_SESSION" in errors[0], errors


def test_a_malformed_limit_refuses_uploads_and_names_the_variable(monkeypatch):
    monkeypatch.setenv("RSE_MAX_UPLOADS_PER_SESSION", "lots")
    at = new_app(q="penguins").run()
    at.sidebar.file_uploader(key=UPLOADS).set_value([note("one")]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert "one.md" not in read_names(at)  # the samples still run
    errors = messages(at, "error")
    assert len(errors) == 1 and "RSE_MAX_UPLOADS_PER_SESSION='lots'" in errors[0], errors
