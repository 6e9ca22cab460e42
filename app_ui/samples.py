"""The bundled sample documents, their golden sets and their shipped text."""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from rse_core import Document, load_document
from rse_core.data import SAMPLES, bundled_folder
from rse_core.documents.headings import Heading
from rse_core.evaluation.golden import GoldenSet, load_golden_set

SAMPLE_DIR = bundled_folder(SAMPLES)
# Each sample's extracted text (``sample_docs/embed.py`` writes it): the first screen then opens
# without importing PyMuPDF. Used only while the PDF's hash still matches.
TEXT_DIR = SAMPLE_DIR / "text"
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
    """Sample slug -> sample, for every PDF in ``sample_docs`` that has a golden set.

    Parsed once per version of the golden set files (a change of name, size or time reparses):
    Explore's gold spans ask on every slider move."""
    paths = sorted(SAMPLE_DIR.glob("*.golden.json"))
    return dict(_parsed_samples(tuple((path, path.stat().st_mtime_ns, path.stat().st_size) for path in paths)))


@functools.lru_cache(maxsize=4)
def _parsed_samples(files: tuple[tuple[Path, int, int], ...]) -> tuple[tuple[str, Sample], ...]:
    samples = []
    for golden_path, _, _ in files:
        golden = load_golden_set(golden_path)
        if golden.document_path.exists():
            slug = golden_path.name.removesuffix(".golden.json")
            samples.append((slug, Sample(slug, golden.document_path, golden)))
    return tuple(samples)


def text_path(pdf: Path) -> Path:
    return TEXT_DIR / f"{pdf.stem}.json"


def write_document_text(document: Document, pdf: Path) -> Path:
    """Store ``document`` (loaded from ``pdf``) as JSON next to the samples: every field but the
    PDF's bytes (the page view reads those from the PDF itself); headings as [start, level, title]."""
    TEXT_DIR.mkdir(exist_ok=True)
    path = text_path(pdf)
    fields = {name: value for name, value in asdict(document).items() if name != "source"}
    fields["headings"] = [[heading.start, heading.level, heading.title] for heading in document.headings]
    path.write_text(json.dumps(fields, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    return path


def load_sample_document(pdf: Path) -> Document:
    """The sample's shipped text if it was extracted from these exact bytes, else PyMuPDF's."""
    data = pdf.read_bytes()
    path = text_path(pdf)
    if path.exists():
        stored = json.loads(path.read_text(encoding="utf-8"))
        if stored.get("doc_id") == hashlib.sha256(data).hexdigest()[:16] and stored.get("name") == pdf.name:
            stored["page_starts"] = tuple(stored["page_starts"])
            stored["empty_pages"] = tuple(stored["empty_pages"])
            stored["headings"] = tuple(Heading(*heading) for heading in stored.get("headings", ()))
            return Document(**stored, source=data)
    return load_document(data, name=pdf.name)
