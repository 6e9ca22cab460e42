"""The bundled sample documents and their golden sets."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rse_core.golden import GoldenSet, load_golden_set

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "sample_docs"
DEFAULT_SAMPLE = "annual_report"
# The query each sample opens with: the one that shows its RSE story best.
SHOWCASE_KIND_ORDER = ("gapped", "broad", "factoid")


@dataclass(frozen=True)
class Sample:
    slug: str
    path: Path
    golden: GoldenSet

    @property
    def label(self) -> str:
        return self.slug.replace("_", " ").capitalize()

    @property
    def showcase_query(self) -> str:
        for kind in SHOWCASE_KIND_ORDER:
            for query in self.golden.queries:
                if query.kind == kind:
                    return query.query
        return self.golden.queries[0].query


def list_samples() -> dict[str, Sample]:
    """Sample slug -> sample, for every PDF in ``sample_docs`` that has a golden set."""
    samples = {}
    for golden_path in sorted(SAMPLE_DIR.glob("*.golden.json")):
        golden = load_golden_set(golden_path)
        if golden.document_path.exists():
            slug = golden_path.name.removesuffix(".golden.json")
            samples[slug] = Sample(slug, golden.document_path, golden)
    return samples
