"""What the page view costs, against plain text extraction of the same PDF in the same run.

    python bench/page_view.py [PDF]      # default: sample_docs/annual_report.pdf

Prints: plain ``get_text("text")`` of every page (the baseline), ``load_document`` (must stay
about 1x: the glyph layout is not built at load), building the layout on first use, and drawing
one page with its highlights at zoom 1.5, each as the best of 3 and as a ratio to the baseline.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pymupdf

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rse_core import load_document  # noqa: E402
from rse_core.documents.cleaning import clean_text  # noqa: E402
from rse_core.figures.page_view import SEGMENT, Mark, render_page  # noqa: E402


def best(function, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "sample_docs" / "annual_report.pdf"
    data = path.read_bytes()

    def plain() -> str:
        with pymupdf.open(stream=data, filetype="pdf") as pdf:
            return "".join(clean_text(page.get_text("text")) for page in pdf)

    document = load_document(data, name=path.name)
    marks = [Mark(document.doc_id, 0, min(len(document.text), 3000), SEGMENT)]
    baseline = best(plain)
    rows = {
        "plain text extraction (baseline)": baseline,
        "load_document": best(lambda: load_document(data, name=path.name)),
        "layout on first use": best(lambda: load_document(data, name=path.name).layout),
        "render page 1 with highlights": best(lambda: render_page(document, 1, marks, 1.5)),
    }
    print(f"{path.name}: {document.page_count} pages, {len(document.text):,} characters")
    for name, seconds in rows.items():
        print(f"{name:36s} {seconds * 1000:8.1f} ms  {seconds / baseline:6.2f}x")


if __name__ == "__main__":
    main()
