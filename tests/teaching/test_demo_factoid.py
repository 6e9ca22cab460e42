"""The Demo's factoid story against the real pipeline: the case it shows is the case it claims (RSE
sends one chunk on its own, top-k's first, holding the whole answer), and the sentence says why."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from app_ui.samples import list_samples
from rse_core import extract, load_document
from rse_core.teaching.demo_stories import STORY_BY_KEY, alone_chunk, narration, story_facts

STORY = STORY_BY_KEY["factoid"]


@cache
def _run(penalty: float | None = None):
    sample = list_samples()[STORY.sample]
    golden = next(query for query in sample.golden.queries if query.id == STORY.query_id)
    params = STORY.params if penalty is None else STORY.params.with_changes(irrelevant_chunk_penalty=penalty)
    result = extract(load_document(sample.path), golden.query, params, scorer=STORY.scorer)
    return result, golden


def test_the_factoid_story_sends_one_chunk_top_k_ranks_first_and_it_holds_the_answer():
    assert STORY.scorer == "bm25" and golden_kind() == "factoid"
    result, golden = _run()
    facts = story_facts(result, golden.span)
    assert facts.segments == 1 and facts.rse_chunks == 1
    assert facts.alone is not None and facts.alone.top_first and facts.rse_recall == 1.0
    chunk = result.corpus.chunks[facts.alone.chunk]
    assert chunk.start <= golden.span[0] and golden.span[1] <= chunk.end  # by hand: the answer lies in it


def golden_kind() -> str:
    return _run()[1].kind


def test_the_condition_it_states_is_measured_on_the_neighbours():
    result, _ = _run()
    alone = alone_chunk(result)
    values = result.values[0].value
    i = alone.chunk
    # by hand: the neighbours are below 0 and every run beside the chunk adds less than 0
    assert alone.neighbours == (pytest.approx(values[i - 1]), pytest.approx(values[i + 1]))
    assert max(alone.neighbours) < 0 and alone.best_growth < 0
    left = [values[j:i].sum() for j in range(max(0, i - 19), i)]  # runs ending just before the chunk
    right = [values[i + 1 : k].sum() for k in range(i + 2, min(len(values), i + 20) + 1)]  # runs starting after it
    assert (
        alone.best_growth == pytest.approx(max(max(left), max(right), max(left) + max(right))) and max(left + right) < 0
    )
    sentence = narration("compare", story_facts(result, _run()[1].span))
    assert f"chunk {i} alone, top-k's first (100% of the answer)" in sentence
    assert "adds up above 0" in sentence and len(sentence) <= 120  # one line on a projector
    assert "Where its neighbours add up above 0, RSE grows the segment" in STORY.point


def test_when_a_neighbour_pays_the_segment_grows_and_the_sentence_changes():
    """At a lower penalty the chunks beside it are worth more: RSE no longer sends the chunk alone."""
    result, golden = _run(penalty=0.1)
    assert alone_chunk(result) is None
    first = result.segments[0]
    assert first.end - first.start > 1
    inside = np.asarray(result.values[0].value[first.start : first.end])
    assert (inside > 0).sum() >= 2  # more than one chunk pays its way
    assert "alone" not in narration("compare", story_facts(result, golden.span))
