"""Write the MiniLM embeddings of the sample documents into ``sample_docs/embeddings/``.

The app looks there (read-only) before embedding a document, so it opens on a sample with a
real result without first spending seconds embedding it. Only the app's default chunk size is
shipped, with and without contextual chunk headers (the sidebar toggle, so turning it on is
instant too); other sizes are embedded on demand and cached as usual. Rerun after changing a sample
document or the chunker: ``python sample_docs/embed.py`` (``--check`` exits 1 if any is missing).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from rse_core import chunk_document, load_document  # noqa: E402
from rse_core.chunking import DEFAULT_CHUNK_SIZE, scoring_text  # noqa: E402
from rse_core.scoring.embedding_cache import embedding_key  # noqa: E402
from rse_core.scoring.minilm import MODEL_NAME  # noqa: E402

EMBEDDINGS = HERE / "embeddings"


def expected_files(chunk_size: int = DEFAULT_CHUNK_SIZE) -> dict[Path, list]:
    """Bundled file -> the chunks it embeds, for every sample PDF at ``chunk_size``, headers off and on."""
    files = {}
    for pdf in sorted(HERE.glob("*.pdf")):
        document = load_document(pdf)
        for headers in (False, True):
            chunks = chunk_document(document, chunk_size, headers=headers)
            files[EMBEDDINGS / f"{embedding_key(MODEL_NAME, [scoring_text(c) for c in chunks])}.npy"] = chunks
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only check that every file is there")
    args = parser.parse_args(argv)
    files = expected_files()
    missing = [path for path in files if not path.exists()]
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
    for path, chunks in files.items():
        np.save(path, scorer.embed_chunks(chunks), allow_pickle=False)
        print(f"wrote {path.relative_to(HERE.parent)} ({len(chunks)} chunks)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
