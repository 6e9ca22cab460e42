"""An LLM judge for a golden set: each method's answer graded 0-10 against the gold span's text.

Two calls per (query, method): the answer from that method's context (the prompt of
:mod:`rse_core.llm.answers`), then the grade. Results are cached per (query, context, model), so a
rerun with unchanged contexts costs nothing. A grade is one model's opinion: quote it as "graded
by MODEL", beside recall, never instead of it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, MutableMapping, Sequence
from dataclasses import dataclass

from rse_core.context import ContextPiece, format_context
from rse_core.errors import RSEError
from rse_core.evaluation.golden import QUERY_KINDS
from rse_core.evaluation.metrics import METHODS
from rse_core.evaluation.runs import Evaluation
from rse_core.llm.answers import ChatClient, build_messages, estimate_tokens

JUDGE_SYSTEM = (
    "You grade an answer to a question about a document. A reference passage from the document holds "
    "the correct answer. Grade how completely and correctly the answer gives what the reference says, "
    "from 0 (wrong or no answer) to 10 (complete and correct). Reply with 'Grade: N' on the first line, "
    "then one sentence of reason."
)
JUDGE_TEMPLATE = "Question: {question}\n\nReference passage:\n{gold}\n\nAnswer to grade:\n{answer}"
_GRADE = re.compile(r"grade\s*[:=]?\s*(10|[0-9])\b", re.IGNORECASE)


@dataclass(frozen=True)
class JudgeItem:
    """One (query, method) to answer and grade."""

    query_id: str
    kind: str
    method: str
    question: str
    context: str
    gold_text: str

    def cache_key(self, model: str) -> tuple[str, str, str]:
        digest = hashlib.sha256(self.context.encode("utf-8")).hexdigest()[:16]
        return (self.question, digest, model)


@dataclass(frozen=True)
class JudgeResult:
    item: JudgeItem
    answer: str
    grade: int | None
    reason: str
    error: str | None = None


def judge_messages(question: str, gold_text: str, answer: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": JUDGE_SYSTEM},
        {"role": "user", "content": JUDGE_TEMPLATE.format(question=question, gold=gold_text, answer=answer)},
    ]


def parse_grade(text: str) -> int | None:
    """The 0-10 grade in a judge's reply (``Grade: 7``), or ``None`` if there is none."""
    found = _GRADE.search(text or "")
    return int(found.group(1)) if found else None


def judge_items(evaluation: Evaluation) -> list[JudgeItem]:
    """Every (query, method) of an evaluation with the context that method sent."""
    corpus, document = evaluation.corpus, evaluation.document
    if corpus is None or document is None:
        raise RSEError(
            "This evaluation kept no corpus; run it through rse_core.evaluation.runs.evaluate with a corpus."
        )
    items = []
    for query in evaluation.queries:
        gold_text = document.text[query.gold[0] : query.gold[1]]
        contexts = {
            "rse": format_context(
                [ContextPiece(s.label, corpus.source_label(s.start, s.end), s.text) for s in query.segments]
            ),
            "top_k": _chunks_context(corpus, query.top_k),
            "top_k_equal_budget": _chunks_context(corpus, query.top_k_equal_budget),
            "window": _window_context(corpus, query.window),
            "window_equal_budget": _window_context(corpus, query.window_equal_budget),
        }
        for method in METHODS:
            items.append(JudgeItem(query.id, query.kind, method, query.query, contexts[method], gold_text))
    return items


def _chunks_context(corpus, indices: Sequence[int]) -> str:
    """Top-k chunks labelled by rank (best = rank 0), as the pipeline's ``top_k_context`` labels them."""
    return format_context(
        [
            ContextPiece(f"rank {rank}", corpus.source_label(index, index + 1), corpus.chunks[index].text)
            for rank, index in enumerate(indices)
        ]
    )


def _window_context(corpus, segments: Sequence) -> str:
    """The fixed window's pieces W1, W2, ... in document order, as ``window_context`` sends them."""
    return format_context(
        [
            ContextPiece(
                f"W{number}",
                corpus.source_label(segment.start, segment.end),
                "".join(chunk.text for chunk in corpus.chunks[segment.start : segment.end]),
            )
            for number, segment in enumerate(segments, 1)
        ]
    )


def estimate(items: Sequence[JudgeItem], cached: Iterable[tuple] = (), model: str = "") -> tuple[int, int]:
    """(calls, input tokens, estimated) still to make: two calls per item not in the cache."""
    done = set(cached)
    todo = [item for item in items if item.cache_key(model) not in done]
    tokens = sum(
        estimate_tokens("".join(m["content"] for m in build_messages(item.question, item.context)))
        + estimate_tokens("".join(m["content"] for m in judge_messages(item.question, item.gold_text, "x" * 400)))
        for item in todo
    )
    return 2 * len(todo), tokens


def run_judge(
    items: Sequence[JudgeItem],
    client: ChatClient,
    cache: MutableMapping[tuple, JudgeResult],
    progress: Callable[[int, int], None] | None = None,
) -> list[JudgeResult]:
    """Answer and grade every item (cached per query, context and model); failures are kept as
    results with an error, so one bad call does not lose the others."""
    model = client.settings.model
    results = []
    for number, item in enumerate(items, 1):
        key = item.cache_key(model)
        if key not in cache:
            try:
                answer = client.answer(build_messages(item.question, item.context))
                reply = client.answer(judge_messages(item.question, item.gold_text, answer))
                cache[key] = JudgeResult(item, answer, parse_grade(reply), reply.strip())
            except RSEError as error:
                results.append(JudgeResult(item, "", None, "", str(error)))
                if progress:
                    progress(number, len(items))
                continue
        cached = cache[key]
        results.append(JudgeResult(item, cached.answer, cached.grade, cached.reason, cached.error))
        if progress:
            progress(number, len(items))
    return results


def grade_summary(results: Sequence[JudgeResult]) -> list[dict[str, object]]:
    """Mean grade per kind (then "all") and method, with how many answers were graded."""
    rows = []
    kinds = [kind for kind in QUERY_KINDS if any(r.item.kind == kind for r in results)] + ["all"]
    for kind in kinds:
        for method in METHODS:
            grades = [
                r.grade
                for r in results
                if r.item.method == method and kind in ("all", r.item.kind) and r.grade is not None
            ]
            rows.append(
                {
                    "kind": kind,
                    "method": method,
                    "graded": len(grades),
                    "mean grade": sum(grades) / len(grades) if grades else None,
                }
            )
    return rows
