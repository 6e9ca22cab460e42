"""The app under failing backends and several users: clear messages, nothing lost, nothing leaked."""

from __future__ import annotations

import pytest

from tests.support.apptest_support import ROOT, all_text, new_app, result_of
from tests.support.fake_cohere import FakeCohere

SECRET = "sk-test-SECRET-key-never-shown-42"


@pytest.fixture
def no_cohere_env(monkeypatch):
    monkeypatch.delenv("CO_API_KEY", raising=False)
    monkeypatch.delenv("CO_API_URL", raising=False)


def test_cohere_without_a_key_explains_and_offers_the_offline_scorer(no_cohere_env):
    at = new_app().run()
    good = result_of(at)
    assert good.segments
    at.sidebar.selectbox(key="sb_scorer").set_value("cohere").run()
    assert not at.exception
    assert any("API key" in e.value and "sidebar" in e.value for e in at.error)
    assert any("last good result" in w.value for w in at.warning)
    assert result_of(at) is not None and result_of(at).segments == good.segments  # nothing lost
    at.button(key="messages_switch_to_offline").click().run()
    assert at.session_state["sb_scorer"] == "minilm" or at.sidebar.selectbox(key="sb_scorer").value == "minilm"


def test_rejected_cohere_key_is_reported_without_showing_the_key(no_cohere_env, monkeypatch):
    with FakeCohere(api_key="the-right-key", echo_authorization=True) as fake:
        monkeypatch.setenv("CO_API_URL", fake.url)
        at = new_app().run()
        at.sidebar.selectbox(key="sb_scorer").set_value("cohere").run()
        at.sidebar.text_input(key="sb_cohere_api_key").set_value(SECRET).run()
        assert not at.exception
        assert fake.request_count >= 1
    errors = [e.value for e in at.error]
    assert any("rejected" in e.lower() or "key" in e.lower() for e in errors), errors
    assert SECRET not in all_text(at)
    assert SECRET not in str(dict(at.query_params))
    assert [b.label for b in at.button if b.key == "messages_switch_to_offline"]


def test_working_cohere_backend_scores_the_document(no_cohere_env, monkeypatch):
    with FakeCohere(api_key=SECRET) as fake:
        monkeypatch.setenv("CO_API_URL", fake.url)
        at = new_app().run()
        at.sidebar.selectbox(key="sb_scorer").set_value("cohere").run()
        at.sidebar.text_input(key="sb_cohere_api_key").set_value(SECRET).run()
        assert not at.exception and not at.error, [e.value for e in at.error]
        result = result_of(at)
        assert result.scorer == "cohere" and fake.request_count >= 1
        assert all(request.authorization == f"Bearer {SECRET}" for request in fake.requests)
    assert SECRET not in str(dict(at.query_params)) and SECRET not in all_text(at)


def test_two_sessions_never_see_each_others_uploads():
    first, second = new_app().run(), new_app().run()
    first.sidebar.file_uploader(key="sb_uploads").set_value(
        [("alpha_only.txt", b"Aardvarks are alpha animals. " * 20, "text/plain")]
    ).run()
    second.sidebar.file_uploader(key="sb_uploads").set_value(
        [("beta_only.txt", b"Bison are beta animals. " * 20, "text/plain")]
    ).run()
    first.run()
    names = lambda at: {d.name for d in result_of(at).corpus.documents}  # noqa: E731
    assert "alpha_only.txt" in names(first) and "beta_only.txt" not in names(first)
    assert "beta_only.txt" in names(second) and "alpha_only.txt" not in names(second)


def test_uploads_are_never_written_under_the_app_folder():
    before = {path for path in ROOT.rglob("*") if ".git" not in path.parts}
    at = new_app().run()
    at.sidebar.file_uploader(key="sb_uploads").set_value(
        [("private_notes.txt", b"Confidential salary table. " * 30, "text/plain")]
    ).run()
    assert not at.exception
    after = {path for path in ROOT.rglob("*") if ".git" not in path.parts}
    written = {p for p in after - before if "__pycache__" not in p.parts and "artifacts" not in p.parts}
    assert not any("private_notes" in p.name for p in after)
    assert not written, written


@pytest.mark.parametrize(
    ("penalty", "minimum", "expected"),
    [("1", "0.5", "penalty"), ("0.4", "3", "minimum segment value")],
)
def test_extreme_but_valid_settings_explain_the_empty_result(penalty, minimum, expected):
    at = new_app(penalty=penalty, minval=minimum).run()
    assert not at.exception and not at.error
    assert result_of(at).segments == ()
    assert expected in all_text(at)


def test_a_link_with_junk_parameters_is_ignored_with_a_notice():
    at = new_app(penalty="lots", decay="-5", docs="annual_report,nope").run()
    assert not at.exception
    shown = all_text(at)
    assert "penalty" in shown and "nope" in shown
    assert result_of(at).params.irrelevant_chunk_penalty == 0.2
