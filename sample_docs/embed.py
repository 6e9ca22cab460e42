"""Write what the app's first screen needs so it opens without a model or PyMuPDF.

- ``sample_docs/embeddings/``: the MiniLM embeddings of each sample's chunks (with and without
  contextual chunk headers, the sidebar toggle) and of every golden
  query (each query alone, keyed like a one-text document), in the format of the embedding cache.
  The app looks there (read-only) before embedding anything. Only the app's default chunk size
  is shipped; other sizes are embedded on demand and cached as usual.
- ``sample_docs/text/``: each sample's extracted text (the app uses it while the PDF's hash matches).

Rerun after changing a sample document, its golden set or the chunker:
``python sample_docs/embed.py`` (``--check`` exits 1 if any file is missing).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from app_ui.samples import text_path, write_document_text  # noqa: E402
from rse_core import chunk_document, load_document  # noqa: E402
from rse_core.chunking import DEFAULT_CHUNK_SIZE, scoring_text  # noqa: E402
from rse_core.evaluation.golden import load_golden_set  # noqa: E402
from rse_core.scoring.base import clean_query  # noqa: E402
from rse_core.scoring.embedding_cache import embedding_key  # noqa: E402
from rse_core.scoring.minilm import MODEL_NAME  # noqa: E402

EMBEDDINGS = HERE / "embeddings"


def expected_files(chunk_size: int = DEFAULT_CHUNK_SIZE) -> dict[Path, list[str]]:
    """Bundled file -> the texts it embeds: every sample PDF's chunks at ``chunk_size`` as the
    scorer reads them, headers off and on (one file per document each), then every golden query
    (one file each)."""
    files = {}
    for pdf in sorted(HERE.glob("*.pdf")):
        document = load_document(pdf)
        for headers in (False, True):
            texts = [scoring_text(chunk) for chunk in chunk_document(document, chunk_size, headers=headers)]
            files[EMBEDDINGS / f"{embedding_key(MODEL_NAME, texts)}.npy"] = texts
    for query in default_queries():
        files[EMBEDDINGS / f"{embedding_key(MODEL_NAME, [query])}.npy"] = [query]
    return files


def default_queries() -> list[str]:
    """Every golden set's queries, as the scorer sees them (cleaned): the showcase query each
    sample opens with is one of them, and the Evaluate page runs them all."""
    queries = []
    for path in sorted(HERE.glob("*.golden.json")):
        for query in load_golden_set(path).queries:
            cleaned, _ = clean_query(query.query)
            if cleaned not in queries:
                queries.append(cleaned)
    return queries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only check that every file is there")
    args = parser.parse_args(argv)
    files = expected_files()
    missing = [path for path in files if not path.exists()]
    missing += [text_path(pdf) for pdf in sorted(HERE.glob("*.pdf")) if not text_path(pdf).exists()]
    if args.check:
        for path in missing:
            print(f"missing: {path.name} (run python sample_docs/embed.py)")
        return 1 if missing else 0
    from rse_core.scoring.minilm import MiniLMScorer

    scorer = MiniLMScorer(disk_cache=False)
    EMBEDDINGS.mkdir(exist_ok=True)
    keep = set(files)
    for path in EMBEDDINGS.glob("*.npy"):
        if path not in keep:
            path.unlink()  # stale: its document or chunking changed
    for path, texts in files.items():
        np.save(path, scorer.embed_texts(texts), allow_pickle=False)  # a query alone, as the scorer does
        if len(texts) > 1:
            print(f"wrote {path.relative_to(HERE.parent)} ({len(texts)} chunks)")
    print(f"wrote {sum(len(texts) == 1 for texts in files.values())} query vectors")
    for pdf in sorted(HERE.glob("*.pdf")):
        print(f"wrote {write_document_text(load_document(pdf), pdf).relative_to(HERE.parent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
