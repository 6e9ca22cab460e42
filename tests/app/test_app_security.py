"""Hostile links, uploads and keys against the whole app (AppTest): each case failed on main.

- a link with ``inf`` / ``1e999`` / ``nan`` crashed every rerun (OverflowError);
- link text rendered as a live link or a remote image inside the app's own notices;
- ``model=/etc/shadow`` and ``model=/nonexistent`` answered differently (a server-file probe);
- session B uploading A's bytes under another name saw A's file name; uploads outlived the
  session in process-wide caches and their MiniLM embeddings were written to disk;
- a Cohere key with a zero-width space, and a golden set with a 5,000-digit number, showed a
  traceback.
"""

from __future__ import annotations

import gc
import json
import os
import warnings

import pytest
import streamlit as st

from app_ui import caching, components, keys, scorers
from app_ui import query_params as qp
from rse_core.scoring.embedding_cache import embedding_key
from tests.support.apptest_support import MESSAGE_KINDS, all_text, messages, new_app, open_page, result_of
from tests.support.fake_cohere import FakeCohere
from tests.support.markdown_check import markup_problems

# The operator's switches, as the README documents them.
MODELS_ENV = "RSE_CROSS_ENCODER_MODELS"
UPLOAD_DISK_CACHE_ENV = "RSE_UPLOAD_DISK_CACHE"
ALLOW_HUB_ENV = "RSE_ALLOW_HUB"
QUERY_CHARS = 2000  # what a scorer reads of a query, and so what a link carries
PHISHING = "[Your session expired - sign in again](https://evil.example/login)"
IMAGE = "![x](https://evil.example/p.png)"


def message_sources(at) -> list[str]:
    """The Markdown source of every message-like element on the page."""
    return [str(element.value) for kind in MESSAGE_KINDS for element in at.get(kind)]


def assert_no_markup(at) -> None:
    problems = {source: markup_problems(source) for source in message_sources(at)}
    assert not any(problems.values()), {source: found for source, found in problems.items() if found}


# ------------------------------------------------------------------------------ links


@pytest.mark.parametrize(
    "params",
    [
        {"maxlen": "inf"},
        {"chunk": "1e999"},
        {"topk": "-inf"},
        {"penalty": "nan"},
        {"overall": "9" * 400},
        {"maxlen": "-3"},
        {"decay": "abc"},
    ],
)
def test_a_link_with_a_bad_number_shows_a_notice_and_keeps_the_default(params):
    at = new_app(**params).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error
    name = next(iter(params))
    assert any(name in notice for notice in messages(at, "info")), messages(at, "info")
    field = qp.PARAM_FIELDS[name][0]
    assert getattr(result_of(at).params, field) == getattr(type(result_of(at).params)(), field)


def test_a_phishing_link_in_docs_shows_as_literal_text():
    at = new_app(docs=f"annual_report,{PHISHING}").run()
    assert not at.exception
    assert_no_markup(at)
    assert any("[Your session expired" in notice for notice in messages(at, "info")), messages(at, "info")
    assert [d.name for d in result_of(at).corpus.documents] == ["annual_report.pdf"]


def test_an_image_in_a_link_never_loads():
    at = new_app(preset=IMAGE, q=f"{IMAGE} {PHISHING} <img src=x onerror=alert(1)>", scorer=f"bm25{IMAGE}").run()
    assert not at.exception
    assert_no_markup(at)
    assert any("![x]" in notice for notice in messages(at, "info"))


def test_a_long_query_is_bounded_in_the_url():
    at = new_app(q="why " * 25_000).run()
    assert not at.exception
    assert len(at.query_params["q"]) <= QUERY_CHARS
    at.sidebar.text_area(key="sb_query").set_value("how " * 25_000).run()
    assert not at.exception
    assert len(at.query_params["q"]) <= QUERY_CHARS


# ------------------------------------------------------------------------------ models


PROBES = ["/etc/shadow", "/nonexistent", "/tmp", "~", "org/name", "../../etc", "C:\\Windows"]


def test_a_model_in_a_link_answers_the_same_whatever_path_it_names(monkeypatch):
    monkeypatch.delenv(MODELS_ENV, raising=False)
    answers = set()
    for probe in PROBES:
        at = new_app(scorer="cross-encoder", model=probe).run()
        assert not at.exception
        shown = tuple(messages(at, "error") + messages(at, "info"))
        assert not any(probe in text for text in shown)
        answers.add(shown)
    assert len(answers) == 1, answers


def test_the_sidebar_offers_only_the_operators_models(monkeypatch, tmp_path):
    folder = tmp_path / "tiny-reranker"
    folder.mkdir()
    monkeypatch.setenv(MODELS_ENV, os.pathsep.join([str(folder), str(tmp_path / "other")]))
    at = new_app(scorer="cross-encoder", model="tiny-reranker").run()
    assert not at.exception
    picker = at.sidebar.selectbox(key="sb_cross_encoder_model")
    assert picker.options == ["tiny-reranker", "other"] and picker.value == "tiny-reranker"
    assert not [box for box in at.sidebar.text_input if "model" in box.label.lower()]  # no free-text path field
    # An empty folder is not a model: the error names the offered model, never the server path.
    errors = messages(at, "error")
    assert errors and not any(str(tmp_path) in error for error in errors), errors
    assert "tiny-reranker" in errors[0]


def test_the_app_switches_the_hub_off_unless_the_operator_allows_it(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.delenv(ALLOW_HUB_ENV, raising=False)
    new_app().run()
    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["TRANSFORMERS_OFFLINE"] == "1"
    from app_ui.models import apply_hub_policy

    environ = {ALLOW_HUB_ENV: "1"}
    assert apply_hub_policy(environ) is True and "HF_HUB_OFFLINE" not in environ


# ------------------------------------------------------------------------------ sessions


SHARED_BYTES = (
    b"Marmots whistle to warn the colony. The marmot colony sleeps from October to April. " * 12
    + b"Alpine marmots dig burrows three metres deep. " * 12
)


def _upload(at, name: str, data: bytes = SHARED_BYTES):
    return at.sidebar.file_uploader(key="sb_uploads").set_value([(name, data, "text/plain")]).run()


def test_two_sessions_with_the_same_bytes_each_see_only_their_own_name():
    first = _upload(new_app(docs="", q="When do marmots sleep?").run(), "alpha_notes.txt")
    second = _upload(new_app(docs="", q="When do marmots sleep?").run(), "beta_notes.txt")
    first.run()
    for at, own, other in ((first, "alpha_notes.txt", "beta_notes.txt"), (second, "beta_notes.txt", "alpha_notes.txt")):
        assert not at.exception
        result = result_of(at)
        assert result.segments
        assert {segment.doc_name for segment in result.segments} == {own}
        exported = components.result_json(result) + components.context_markdown(result)
        assert own in exported and other not in exported
        assert other not in all_text(at)


def test_the_same_bytes_under_two_names_keep_one_copy_with_a_notice():
    at = new_app(docs="").run()
    at.sidebar.file_uploader(key="sb_uploads").set_value(
        [("first.txt", SHARED_BYTES, "text/plain"), ("second.txt", SHARED_BYTES, "text/plain")]
    ).run()
    assert not at.exception
    assert [d.name for d in result_of(at).corpus.documents] == ["first.txt"]
    assert any("kept one copy" in w and "second.txt" in w for w in messages(at, "warning")), messages(at, "warning")


def test_removing_an_upload_drops_what_was_made_from_it():
    at = _upload(new_app(q="When do marmots sleep?").run(), "marmots.txt")
    caches = at.session_state[keys.UPLOAD_CACHES]
    assert caches.parsed and caches.corpora and len(caches.scores)
    at.sidebar.file_uploader(key="sb_uploads").set_value([]).run()
    assert not at.exception
    caches = at.session_state[keys.UPLOAD_CACHES]
    assert not caches.parsed and not caches.corpora and not len(caches.scores)


def _holders_of(marker: str, exclude: object) -> list[str]:
    """Types of live objects that hold a string containing ``marker`` (other than ``marker`` itself)."""
    found = []
    with warnings.catch_warnings():  # some library objects warn when inspected
        warnings.simplefilter("ignore")
        for holder in gc.get_objects():
            if holder is exclude:
                continue
            for item in gc.get_referents(holder):
                if (isinstance(item, str) and marker in item and item != marker) or (
                    isinstance(item, bytes) and marker.encode() in item and item is not exclude
                ):
                    found.append(type(holder).__name__)
                    break
    return found


@pytest.mark.slow  # embeds the upload with the MiniLM model
def test_an_upload_leaves_nothing_behind_when_its_session_ends(monkeypatch, tmp_path):
    monkeypatch.setenv("RSE_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(UPLOAD_DISK_CACHE_ENV, raising=False)
    st.cache_resource.clear()  # the shared scorers start with this cache folder
    marker = "Quokkazygote"
    payload = (f"The {marker} lives on Rottnest island and eats leaves at night. " * 40).encode()
    at = new_app(docs="annual_report", scorer="minilm", q="Where does it live?").run()
    at.sidebar.file_uploader(key="sb_uploads").set_value([("quokka.txt", payload, "text/plain")]).run()
    assert not at.exception and not at.error, messages(at, "error")
    result = result_of(at)
    assert "quokka.txt" in {d.name for d in result.corpus.documents}
    upload = next(d for d in result.corpus.documents if d.name == "quokka.txt")
    shared = scorers.scorer_for("minilm", (), "")
    upload_key = embedding_key(shared.model, [c.text for c in result.corpus.chunks if c.doc_id == upload.doc_id])
    assert not list(tmp_path.rglob("*.npy")), "an upload's embeddings were written to disk"
    del at, result, upload
    gc.collect()
    assert _holders_of(marker, payload) == []
    assert upload_key not in shared.cache._memory
    assert all(marker not in str(key) for key in caching.score_store().list_keys())


@pytest.mark.slow
def test_the_operator_can_keep_upload_embeddings_on_disk(monkeypatch, tmp_path):
    monkeypatch.setenv("RSE_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv(UPLOAD_DISK_CACHE_ENV, "1")
    st.cache_resource.clear()
    at = new_app(docs="", scorer="minilm", q="When do marmots sleep?").run()
    _upload(at, "marmots.txt")
    assert not at.exception and not at.error, messages(at, "error")
    assert list(tmp_path.rglob("*.npy"))


def test_a_file_name_with_a_newline_gives_one_line():
    at = new_app().run()
    at.sidebar.file_uploader(key="sb_uploads").set_value(
        [("bad\nname [x](https://evil.example).txt", b"", "text/plain")]
    )
    at.run()
    assert not at.exception
    assert at.error and all("\n" not in error for error in message_sources(at))
    assert_no_markup(at)


# ------------------------------------------------------------------------------ failures


@pytest.mark.parametrize("key", ["abc\u200bdef", "abc\u00a0def", "cl\u00e9-\u00c9"])
def test_a_cohere_key_with_an_unsendable_character_gives_one_line(monkeypatch, key):
    monkeypatch.delenv("CO_API_KEY", raising=False)
    with FakeCohere(api_key="the-right-key") as fake:
        monkeypatch.setenv("CO_API_URL", fake.url)
        at = new_app().run()
        good = result_of(at)
        at.sidebar.selectbox(key="sb_scorer").set_value("cohere").run()
        at.sidebar.text_input(key="sb_cohere_api_key").set_value(key).run()
    assert not at.exception, [e.value for e in at.exception]
    errors = messages(at, "error")
    assert len(errors) == 1 and "\n" not in errors[0], errors
    assert any("last good result" in warning for warning in messages(at, "warning"))
    assert result_of(at).segments == good.segments
    assert [b for b in at.button if b.key == "messages_switch_to_offline"]
    assert key not in all_text(at)


def test_a_golden_set_with_a_huge_number_gives_one_line():
    at = open_page(new_app().run(), "evaluate")
    at.radio(key="ev_source").set_value("upload").run()
    golden = '{"schema": "rse-golden/1", "document": "annual_report.pdf", "queries": [{"id": "q", "start_char": '
    golden += "9" * 5000 + "}]}"
    at.file_uploader(key="ev_upload").set_value(
        [("huge [x](https://evil.example).json", golden.encode(), "application/json")]
    )
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.error) == 1 and "\n" not in at.error[0].value
    assert_no_markup(at)


def test_the_escaped_messages_still_read_well():
    """The notices a reader sees are the plain sentences, not backslashes."""
    at = new_app(maxlen="inf", docs="annual_report,no_such_doc").run()
    shown = messages(at, "info")
    assert "Ignored maxlen='inf' in the link: not a finite number." in shown
    assert "Unknown sample document(s) in the link: 'no_such_doc'." in shown
    assert json.dumps(shown)  # plain strings


@pytest.mark.slow  # loads a (tiny) cross-encoder with torch
def test_an_offered_cross_encoder_loads_from_a_link(monkeypatch, tmp_path):
    from tests.core.test_scorer_cross_encoder import save_tiny_cross_encoder

    folder = save_tiny_cross_encoder(tmp_path / "tiny-reranker")
    monkeypatch.setenv(MODELS_ENV, str(folder))
    at = new_app(scorer="cross-encoder", model="tiny-reranker", q="Who audits the accounts?").run()
    assert not at.exception and not at.error, messages(at, "error")
    result = result_of(at)
    assert result.scorer == "cross-encoder" and result.model == "tiny-reranker"
    assert at.query_params["model"] == "tiny-reranker"  # the link names the model, never the server path
    exported = components.result_json(result) + components.context_markdown(result)
    assert str(tmp_path) not in all_text(at) + exported
