"""The retriever picker: the operator's list of embedders in Explore's scorer box, shown by model
name only, and a switch of retriever that keeps the documents, the query and the sliders."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from app_ui import keys, retrievers
from app_ui import scorers as app_scorers
from rse_core.embedders import EmbedderIdentity
from tests.support.apptest_support import all_text, chart_specs, new_app, no_problems, result_of

WORDS = ("battery", "cooling", "temperature", "cells", "warranty", "charge", "heat", "loop")


class WordEmbedder:
    """An endpoint stand-in: one dimension per word (no network, no model)."""

    identity = EmbedderIdentity("openai:fake-embed", "openai", "fake-embed", len(WORDS), normalised=False)

    def embed_documents(self, texts):
        return np.array([[1.0 + text.lower().count(word) for word in WORDS] for text in texts], dtype=np.float32)

    def embed_query(self, text):
        return self.embed_documents([text])[0]


def test_the_operators_entries_are_parsed_and_bad_ones_logged_once_and_left_out(caplog):
    text = (
        "openai:nomic-embed-text@http://user:SECRET@localhost:11434/v1, cohere:embed-english-v3.0,"
        "openai:no-url, mistral:model@http://h/v1, cohere:@http://h, openai:m@ftp://h/x, "
        "openai:nomic-embed-text@http://other:8080/v1"
    )
    with caplog.at_level(logging.WARNING, logger=retrievers.LOGGER.name):
        offered = retrievers.parse_embedders(text)
    assert [(e.label, e.name) for e in offered] == [
        ("openai:nomic-embed-text", "openai:nomic-embed-text"),
        ("cohere:embed-english-v3.0", "cohere:embed-english-v3.0"),
        ("openai:nomic-embed-text (2)", "openai:nomic-embed-text"),
    ]
    assert offered[0].base_url == "http://user:SECRET@localhost:11434/v1"  # the operator's, used as given
    assert offered[1].base_url is None
    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 4 and all("left out" in line and "\n" not in line for line in lines)
    assert not any("SECRET" in line for line in lines)


def test_the_scorer_box_lists_the_operators_embedders_by_model_name(monkeypatch):
    monkeypatch.setenv(retrievers.EMBEDDERS_ENV, "openai:fake-embed@http://user:SECRET@10.1.2.3:11434/v1,bad")
    at = new_app().run()
    no_problems(at)
    options = at.sidebar.selectbox(key=keys.SCORER).options
    assert options[:3] == ["minilm", "hybrid", "bm25"] and options[-2:] == ["cohere", "cross-encoder"]
    assert "openai:fake-embed" in options
    shown = all_text(at) + " ".join(options)
    assert "SECRET" not in shown and "10.1.2.3" not in shown


def test_switching_the_retriever_keeps_the_document_query_and_sliders_and_rescores(monkeypatch):
    monkeypatch.setenv(retrievers.EMBEDDERS_ENV, "openai:fake-embed@http://127.0.0.1:9/v1")
    monkeypatch.setattr(app_scorers, "embedder_from_name", lambda *args, **kwargs: WordEmbedder())
    at = new_app().run()
    query = "How are the battery cells kept at an even temperature?"
    at.sidebar.text_area(key=keys.QUERY).set_value(query).run()
    at.sidebar.slider(key="sb_irrelevant_chunk_penalty").set_value(0.3).run()
    no_problems(at)
    samples = list(at.sidebar.multiselect(key=keys.SAMPLES).value)
    before = result_of(at)
    chart_before = chart_specs(at)
    assert before.scorer == "bm25"

    at.sidebar.selectbox(key=keys.SCORER).set_value("openai:fake-embed").run()
    no_problems(at)
    after = result_of(at)
    assert after.scorer == "embedder" and after.model == "openai:fake-embed"
    assert at.sidebar.text_area(key=keys.QUERY).value == query
    assert list(at.sidebar.multiselect(key=keys.SAMPLES).value) == samples
    assert at.sidebar.slider(key="sb_irrelevant_chunk_penalty").value == 0.3
    assert after.params == before.params and after.queries == before.queries
    assert not np.allclose(after.values[0].raw, before.values[0].raw)
    assert chart_specs(at) != chart_before


@pytest.fixture(autouse=True)
def _no_mpnet(monkeypatch):
    """The list does not depend on whether this machine installed mpnet."""
    monkeypatch.setattr(retrievers, "is_installed", lambda model: False)


def test_an_installed_packaged_model_is_offered_before_the_endpoints(monkeypatch):
    monkeypatch.setenv(retrievers.EMBEDDERS_ENV, "cohere:embed-english-v3.0")
    monkeypatch.setattr(retrievers, "is_installed", lambda model: model.name == "mpnet")
    assert list(retrievers.offered_embedders()) == ["mpnet", "cohere:embed-english-v3.0"]
    assert retrievers.scorer_choices()[3:5] == ("mpnet", "cohere:embed-english-v3.0")


@pytest.mark.slow
def test_explore_scores_with_mpnet_when_installed(monkeypatch):
    from rse_core.embedders.packaged import MPNET, is_installed

    if not is_installed(MPNET):
        pytest.skip("mpnet is not installed (python -m rse_core.embedders install mpnet)")
    monkeypatch.setattr(retrievers, "is_installed", is_installed)
    at = new_app().run()
    at.sidebar.selectbox(key=keys.SCORER).set_value("mpnet").run()
    no_problems(at)
    result = result_of(at)
    assert (result.scorer, result.model) == ("embedder", "mpnet") and result.segments
