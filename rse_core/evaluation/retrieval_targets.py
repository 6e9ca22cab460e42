"""The retrieval targets of the evaluation sets, checked and printed by ``python -m rse_core.evaluate``.

For the default scorer and ``RSEParams()``, on every set: RSE recall of at least 0.80 at no more
than 7,000 characters per query on average; RSE at least as good as top-k given RSE's characters
on every kind of query, and better by at least 0.10 on broad and gapped queries; on factoid
queries no more than twice top-k's characters (at ``top_k``, 5 by default); and no query
that returns nothing unless its best segment is worth less than the minimum segment value (each
such query is listed with both numbers).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rse_core.pipeline import run_rse
from rse_core.search import StopReason

MIN_RECALL = 0.80
MAX_CHARACTERS = 7000
KB_PAGE_HIT = 0.60
KB_MAX_CHARACTERS = 8000
"""Over a knowledge base (FinanceBench's filings): evidence pages touched, and characters sent."""
MARGIN_KINDS = {"broad": 0.10, "gapped": 0.10}
"""Kinds on which RSE must beat top-k at RSE's characters by this much (others: by 0 or more)."""
FACTOID_CHARACTERS_RATIO = 2.0
"""A factoid query's characters, RSE's against top-k's (at ``params.top_k``): short questions get
short answers."""


@dataclass(frozen=True)
class TargetCheck:
    """One target on one set: what is asked, what was measured, whether it is met."""

    set: str
    target: str
    measured: str
    met: bool


def check_targets(report) -> list[TargetCheck]:
    """Every target for one :class:`~rse_core.evaluation.reports.SetReport`."""
    rse = report.evaluation.overall("rse")
    checks = [
        TargetCheck(
            report.name, f"RSE recall >= {MIN_RECALL:.2f}", f"{rse['recall']:.2f}", rse["recall"] >= MIN_RECALL
        ),
        TargetCheck(
            report.name,
            f"characters per query <= {MAX_CHARACTERS:,}",
            f"{rse['characters']:,.0f}",
            rse["characters"] <= MAX_CHARACTERS,
        ),
    ]
    for kind, margin in report.evaluation.margins().items():
        need = MARGIN_KINDS.get(kind, 0.0)
        target = f"{kind}: RSE - top-k at RSE's chars >= {need:+.2f}"
        checks.append(TargetCheck(report.name, target, f"{margin:+.2f}", margin >= need - 1e-9))
    rows = {(row["kind"], row["method"]): row for row in report.evaluation.summary()}
    if ("factoid", "rse") in rows and rows[("factoid", "top_k")]["characters"]:
        ratio = rows[("factoid", "rse")]["characters"] / rows[("factoid", "top_k")]["characters"]
        checks.append(
            TargetCheck(
                report.name,
                f"factoid: characters <= {FACTOID_CHARACTERS_RATIO:g}x top-k's (k = {report.evaluation.params.top_k})",
                f"{ratio:.2f}x",
                ratio <= FACTOID_CHARACTERS_RATIO,
            )
        )
    reasons = empty_reasons(report)
    checks.append(
        TargetCheck(
            report.name,
            "no query returns nothing unless its best segment is below the minimum",
            f"{len(reasons)} returned nothing",
            all(below for _, _, below in reasons),
        )
    )
    return checks


def empty_reasons(report) -> list[tuple[str, str, bool]]:
    """(query id, the reason shown to the user with its numbers, whether it is "below the minimum")
    for every query of the set that got no segment."""
    params = report.evaluation.params
    scored = report.scored
    reasons = []
    for item, query in zip(scored.cases, report.evaluation.queries, strict=True):
        if query.segments:
            continue
        result = run_rse(item.corpus, (item.query,), [item.raw], params, scored.calibration, scorer=scored.scorer)
        below = result.stop_reason in (StopReason.BELOW_MINIMUM, StopReason.NO_CANDIDATES)
        reasons.append((query.id, result.empty_reason() or "", below))
    return reasons


def check_kb_targets(evaluation, name: str) -> list[TargetCheck]:
    """The knowledge-base targets for one :class:`~rse_core.evaluation.kb_eval.KBEvaluation`:
    evidence pages touched and characters per question at the defaults, and RSE at least as good
    as top-k (at RSE's characters) on every question type."""
    overall = evaluation.summary("all")
    checks = [
        TargetCheck(
            name,
            f"RSE evidence-page hit >= {KB_PAGE_HIT:.2f}",
            f"{overall['rse_page_hit']:.2f}",
            overall["rse_page_hit"] >= KB_PAGE_HIT,
        ),
        TargetCheck(
            name,
            f"characters per query <= {KB_MAX_CHARACTERS:,}",
            f"{overall['rse_characters']:,.0f}",
            overall["rse_characters"] <= KB_MAX_CHARACTERS,
        ),
    ]
    for kind in evaluation.kinds():
        row = evaluation.summary(kind)
        margin = row["rse_page_hit"] - row["top_k_page_hit"]
        checks.append(
            TargetCheck(name, f"{kind}: RSE - top-k page hit at RSE's chars >= +0.00", f"{margin:+.2f}", margin >= 0)
        )
    return checks


def format_checks(checks: Sequence[TargetCheck]) -> list[str]:
    """One line per target: ``met``/``MISSED``, the set, the target and the measured number."""
    return [f"{'met   ' if c.met else 'MISSED'}  {c.set + ' ':<13}{c.target:<72}{c.measured}" for c in checks]


def format_targets(reports: Sequence) -> str:
    """Each target per set as ``met``/``MISSED`` with the measured number, then the empty queries."""
    lines = []
    for report in reports:
        lines += format_checks(check_targets(report))
        for query_id, reason, _ in empty_reasons(report):
            lines.append(f"        {report.name}/{query_id}: {reason}")
    return "\n".join(lines)
