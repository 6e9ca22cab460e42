"""Parameter sweeps: every cell equals a direct run of RSE at that setting."""

from __future__ import annotations

import numpy as np
import pytest

from rse_core import Document, ParameterError, RSEParams, build_corpus, find_best_segments, run_rse
from rse_core.evaluation.metrics import span_score
from rse_core.evaluation.sweep import SweepParam, default_axis, sweep
from rse_core.scoring import Calibration

SENTENCE = "Sentence {i} says something about subject {j}, at some length to make chunks vary. "


def make_corpus(chunk_size: int, documents: int = 2, sentences: int = 120):
    texts = [
        "".join(SENTENCE.format(i=i, j=(i * 7 + d) % 13) * (1 + i % 3) for i in range(sentences))
        for d in range(documents)
    ]
    docs = [Document.from_text(text, name=f"doc{d}.txt") for d, text in enumerate(texts)]
    return build_corpus(docs, chunk_size=chunk_size)


def simulated_scores(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scores = rng.random(n) ** 4
    for center in rng.integers(0, n, 3):
        scores[max(0, center - 3) : center + 3] = rng.uniform(0.6, 1.0, len(scores[max(0, center - 3) : center + 3]))
    return scores


CORPUS = make_corpus(1000)  # chunks up to 1000 characters: the length adjustment matters
N = len(CORPUS.chunks)
RAW = [simulated_scores(N, 1), simulated_scores(N, 2)]


def direct(params, raw, queries):
    return run_rse(CORPUS, queries, raw, params, Calibration())


@pytest.mark.parametrize(
    ("x_param", "x_values", "y_param", "y_values"),
    [
        ("irrelevant_chunk_penalty", [0.0, 0.1, 0.2, 0.35], "max_length", [1, 4, 15]),
        ("decay_rate", [5, 30, 200], "minimum_value", [0.0, 0.5, 1.5]),
        ("overall_max_length", [3, 10, 60], "irrelevant_chunk_penalty", [0.05, 0.25]),
        ("max_length", [2, 20], "decay_rate", [10, 300]),
    ],
)
@pytest.mark.parametrize("queries", [1, 2])
@pytest.mark.parametrize("adjust", [False, True])
def test_every_cell_equals_a_direct_run(x_param, x_values, y_param, y_values, queries, adjust):
    params = RSEParams(chunk_size=1000, chunk_length_adjustment=adjust)
    raw = RAW[:queries]
    names = ["q1", "q2"][:queries]
    gold = (CORPUS.chunks[5].start, CORPUS.chunks[9].end)
    result = sweep(
        CORPUS,
        names,
        raw,
        Calibration(),
        params,
        x_param=x_param,
        x_values=x_values,
        y_param=y_param,
        y_values=y_values,
        gold=gold,
    )
    assert len(result.cells) == len(y_values) and all(len(row) == len(x_values) for row in result.cells)
    for y in y_values:
        for x in x_values:
            cell = result.cell(x, y)
            reference = direct(result.params_at(x, y), raw, names)
            assert [(s.start, s.end, s.score, s.query) for s in cell.segments] == [
                (s.start, s.end, s.score, s.query) for s in reference.segments
            ]
            assert cell.segment_count == len(reference.segments)
            assert cell.chunks == len(reference.rse_chunks)
            assert cell.characters == reference.rse_characters
            assert cell.stop_reason is reference.stop_reason
            in_first_document = [
                (s.start_char, s.end_char) for s in reference.segments if s.doc_id == CORPUS.documents[0].doc_id
            ]
            assert cell.recall == pytest.approx(span_score(in_first_document, gold).recall)


def test_cells_equal_find_best_segments_on_run_rse_values():
    params = RSEParams(chunk_size=1000)
    result = sweep(
        CORPUS,
        ["q"],
        RAW[:1],
        Calibration(),
        params,
        x_param="minimum_value",
        x_values=[0.2, 0.9],
        y_param="overall_max_length",
        y_values=[5, 30],
    )
    values = direct(params, RAW[:1], ["q"]).values[0].value
    for row in result.cells:
        for cell in row:
            expected = find_best_segments(
                values,
                max_length=params.max_length,
                overall_max_length=int(cell.y),
                minimum_value=cell.x,
                document_splits=CORPUS.document_splits,
            )
            assert list(cell.segments) == list(expected)


def test_recall_and_precision_of_a_gold_span():
    params = RSEParams(
        chunk_size=1000, irrelevant_chunk_penalty=0.0, minimum_value=0.0, max_length=1, overall_max_length=N
    )
    # With no penalty every chunk is a one-chunk segment: everything is sent, recall 1.
    gold = (CORPUS.chunks[2].start, CORPUS.chunks[3].end)
    result = sweep(
        CORPUS,
        ["q"],
        RAW[:1],
        Calibration(),
        params,
        x_param="decay_rate",
        x_values=[30],
        y_param="minimum_value",
        y_values=[0.0],
        gold=gold,
    )
    cell = result.cells[0][0]
    assert cell.recall == 1.0
    assert cell.precision == pytest.approx((gold[1] - gold[0]) / cell.characters)
    assert result.grid("recall").shape == (1, 1)
    without = sweep(
        CORPUS,
        ["q"],
        RAW[:1],
        Calibration(),
        params,
        x_param="decay_rate",
        x_values=[30],
        y_param="minimum_value",
        y_values=[0.0],
    )
    assert without.cells[0][0].recall is None and np.isnan(without.grid("recall")).all()
    assert without.grid("segment_count")[0, 0] == N


def test_sweep_refuses_bad_axes():
    params = RSEParams(chunk_size=1000)
    common = {"corpus": CORPUS, "queries": ["q"], "raw_scores": RAW[:1], "calibration": Calibration(), "params": params}
    with pytest.raises(ParameterError, match="choose one of"):
        sweep(**common, x_param="beta_a", x_values=[0.4], y_param="max_length", y_values=[3])
    with pytest.raises(ParameterError, match="two different"):
        sweep(**common, x_param="max_length", x_values=[3], y_param="max_length", y_values=[4])
    with pytest.raises(ParameterError, match="irrelevant_chunk_penalty"):
        sweep(**common, x_param="irrelevant_chunk_penalty", x_values=[2.0], y_param="max_length", y_values=[3])
    with pytest.raises(ParameterError, match="max_length"):
        sweep(**common, x_param="irrelevant_chunk_penalty", x_values=[0.1], y_param="max_length", y_values=[2.5])
    with pytest.raises(ParameterError, match="at least one value"):
        sweep(**common, x_param="irrelevant_chunk_penalty", x_values=[], y_param="max_length", y_values=[3])


def test_default_axes():
    penalty = default_axis("irrelevant_chunk_penalty", 0.18)
    assert penalty[0] == 0.0 and penalty[-1] == 0.5 and 0.025 in penalty and 0.18 in penalty
    assert penalty == tuple(sorted(penalty))
    minimum = default_axis(SweepParam.MINIMUM_VALUE, 0.7)
    assert minimum[0] == 0.0 and minimum[-1] == 2.0 and 0.7 in minimum
    lengths = default_axis("max_length", 17)
    assert lengths[0] == 1 and lengths[-1] == 40 and 17 in lengths and all(isinstance(v, int) for v in lengths)
    assert all(isinstance(v, int) for v in default_axis("overall_max_length", 30))
    assert 30 in default_axis("decay_rate", 30)
    for param in SweepParam:  # every default value is a valid setting
        for value in default_axis(param):
            RSEParams().with_changes(**{param.value: value})
