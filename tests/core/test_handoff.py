"""The exported snippets (rse_core Python, the rse command, dsRAG) run and reproduce the app's segments."""

from __future__ import annotations

import ast
import json
import shlex
import shutil

import pytest

from rse_core import RSEParams, ScorerName, extract, load_document
from rse_core.cli.extract import main as rse_main
from rse_core.context import ContextOrder
from rse_core.data import SAMPLES, bundled_folder
from rse_core.handoff import PLACEHOLDER_FILE, HandOff

SAMPLE = bundled_folder(SAMPLES) / "employee_handbook.pdf"
QUERIES = ("How long is the probation period?", "What happens at the end of probation?")
TUNED = RSEParams(
    irrelevant_chunk_penalty=0.15,
    decay_rate=45,
    max_length=8,
    minimum_value=0.3,
    chunk_length_adjustment=True,
    chunk_headers=False,
    top_k=3,
    context_order=ContextOrder.SCORE,
)


@pytest.fixture(scope="module")
def reference():
    """The result the app would show for these settings (bm25: no model to load)."""
    return extract([load_document(SAMPLE)], QUERIES, TUNED, "bm25")


@pytest.fixture
def beside_the_file(tmp_path, monkeypatch):
    """A folder holding a copy of the sample under its own name, as the reader runs the code."""
    shutil.copy(SAMPLE, tmp_path / SAMPLE.name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def spans(segments) -> list[tuple[int, int]]:
    return [(segment.start, segment.end) for segment in segments]


def test_the_python_snippet_reproduces_the_segments_and_the_context(reference, beside_the_file):
    code = reference.handoff().python()
    namespace: dict = {}
    exec(compile(code.replace("print(", "len("), "snippet", "exec"), namespace)
    rerun = namespace["result"]
    assert rerun.params == TUNED and rerun.queries == QUERIES
    assert spans(rerun.segments) == spans(reference.segments) and reference.segments
    assert rerun.rse_context() == reference.rse_context()


def test_the_command_line_reproduces_the_segments(reference, beside_the_file, capsys):
    words = shlex.split(reference.handoff().command())
    assert words[:2] == ["rse", SAMPLE.name] and "--penalty" in words and "--no-headers" in words
    assert rse_main([*words[1:], "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert [(s["start"], s["end"]) for s in printed["segments"]] == spans(reference.segments)


def test_the_dsrag_snippet_hands_dsrags_query_the_tuned_dict_and_the_queries(reference):
    calls = []

    class KnowledgeBase:  # dsRAG is not installed here: record what its query would receive
        def query(self, queries, rse_params):
            calls.append((queries, rse_params))

    exec(compile(reference.handoff().dsrag(), "snippet", "exec"), {"kb": KnowledgeBase()})
    assert calls == [(list(QUERIES), TUNED.to_dsrag())]


def test_an_enum_scorer_is_written_as_its_name_never_its_repr():
    handoff = HandOff.of(RSEParams(context_order=ContextOrder.SCORE), ScorerName.MINILM)
    code = handoff.python()
    assert "get_scorer('minilm')" in code and "context_order='score'" in code and "<" not in code
    ast.parse(code)
    assert "--scorer minilm" in handoff.command() and "--context-order score" in handoff.command()


def test_only_file_names_are_written_never_the_servers_folders():
    handoff = HandOff.of(RSEParams(), "bm25", ["/srv/uploads/session-1/report.pdf"], ["q"])
    assert handoff.files == ("report.pdf",)
    assert "/srv" not in handoff.python() + handoff.command()


def test_unknown_files_and_queries_become_placeholders_and_a_model_is_kept_only_where_taken():
    tuned = HandOff.of(RSEParams(), "minilm", model="all-MiniLM-L6-v2")
    assert tuned.files == (PLACEHOLDER_FILE,) and tuned.model is None
    reranked = HandOff.of(RSEParams(), "cohere", ["a.pdf"], ["q"], model="rerank-v3.5")
    assert "model='rerank-v3.5'" in reranked.python() and "--model rerank-v3.5" in reranked.command()


def test_the_default_parameters_need_no_flag():
    assert HandOff.of(RSEParams(), "bm25", ["a.md"], ["it's a query"]).command() == (
        "rse a.md --query 'it'\"'\"'s a query' --scorer bm25"
    )


def test_an_embedder_retrievers_snippets_name_the_embedder_and_reproduce_the_segments(
    beside_the_file, monkeypatch, capsys
):
    """The app's picker scores with an operator's endpoint (``openai:MODEL``): the snippets build the
    same embedder by its name, its URL and key taken from the environment, never written in the code."""
    from rse_core.embedders import embedder_from_name
    from rse_core.scoring import get_scorer
    from tests.support.fake_embeddings import FakeEmbeddings

    with FakeEmbeddings() as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{fake.url}/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
        scorer = get_scorer("embedder", embedder=embedder_from_name("openai:e5"))
        reference = extract([load_document(SAMPLE)], QUERIES, TUNED, scorer)
        handoff = reference.handoff()
        code = handoff.python()
        assert "embedder=embedder_from_name('openai:e5')" in code and fake.url not in code and "sk-test" not in code
        namespace: dict = {}
        exec(compile(code.replace("print(", "len("), "snippet", "exec"), namespace)
        assert spans(namespace["result"].segments) == spans(reference.segments) and reference.segments

        words = shlex.split(handoff.command())
        assert words[words.index("--scorer") + 1 :][:3] == ["embedder", "--model", "openai:e5"]
        assert rse_main([*words[1:], "--json"]) == 0
        printed = json.loads(capsys.readouterr().out)
        assert [(s["start"], s["end"]) for s in printed["segments"]] == spans(reference.segments)


def test_the_embedder_scorer_without_an_embedder_is_one_line(capsys):
    assert rse_main([str(SAMPLE), "--query", "q", "--scorer", "embedder"]) == 2
    assert capsys.readouterr().err.strip() == "error: The embedder scorer needs --model (an embedder name, e.g. mpnet)."
