"""Benchmark: one app recompute (what a slider move costs) at 1k, 5k and 20k chunks.

Run from the project root:

    python bench/app_recompute.py            # n = 1,000 / 5,000 / 20,000 chunks
    python bench/app_recompute.py --quick    # n = 1,000 / 5,000 only

When a slider other than chunk size moves, the app reruns ``run_rse`` on cached raw scores and
builds the chart. This times exactly that: ``run_rse`` (values, segment search, top-k, segment
texts) plus ``value_chart`` on the result, from scores already in memory. For comparison it also
times the segment search alone (``find_best_segments`` on the same values and limits) and shows
the ratio recompute / search, and, for information, ``compare_chart`` and Plotly's JSON
serialisation (what Streamlit does with the figure; not part of the target).

The corpus is built from synthetic documents (``Document.from_text``, about 250 chunks each,
split where each document starts), chunked with a chunk size that gives n chunks; raw scores
are random in [0, 1] with a few relevant sections, used through ``Calibration()`` (identity).
Times are the median of ``--repeats`` runs after one warm-up run (the warm-up fills the chart's
per-corpus label cache, as the first draw does in the app). Target: under 50 ms at 5,000 chunks.
The machine is shared (2 cores), so absolute times are noisy; run it twice when in doubt.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import plotly.io as pio  # noqa: E402

from rse_core import Calibration, Document, RSEParams, build_corpus, find_best_segments, run_rse  # noqa: E402
from rse_core.figures.compare import compare_chart  # noqa: E402
from rse_core.figures.values import value_chart  # noqa: E402

FULL_SIZES = (1_000, 5_000, 20_000)
QUICK_SIZES = (1_000, 5_000)
CHUNK_SIZE = 400
CHUNKS_PER_DOCUMENT = 250
TARGET_N, TARGET_MS = 5_000, 50.0
WORDS = (  # noqa: SIM905 - a sentence is easier to read than 27 quoted words
    "pump valve cooling report segment chunk value score budget thermal battery policy holiday revenue "
    "system design test pressure flow audit statement income engineer teacher module sensor data"
).split()


def synthetic_documents(n_chunks: int, seed: int) -> list[Document]:
    """Documents of plain sentences, about CHUNKS_PER_DOCUMENT chunks of CHUNK_SIZE each."""
    rng = np.random.default_rng(seed)
    documents = []
    remaining = n_chunks
    number = 0
    while remaining > 0:
        chunks = min(CHUNKS_PER_DOCUMENT, remaining)
        paragraphs = []
        for _ in range(chunks):
            # One paragraph per chunk (~300 characters: over half the chunk size, so the chunker cuts
            # at each paragraph end and the corpus has exactly n chunks).
            words = rng.choice(WORDS, size=40)
            sentences = [" ".join(words[i : i + 10]).capitalize() + "." for i in range(0, 40, 10)]
            paragraphs.append(" ".join(sentences))
        text = f"Synthetic document {number}\n\n" + "\n\n".join(paragraphs) + "\n"
        documents.append(Document.from_text(text, name=f"synthetic_{number}.txt"))
        remaining -= chunks
        number += 1
    return documents


def simulated_scores(n: int, seed: int) -> np.ndarray:
    """Low background scores in [0, 1] with a few relevant sections of high scores."""
    rng = np.random.default_rng(seed + 1)
    scores = rng.beta(1.2, 8.0, size=n)
    for start in rng.integers(0, max(1, n - 30), size=max(2, n // 400)):
        length = int(rng.integers(3, 25))
        scores[start : start + length] = np.clip(rng.normal(0.75, 0.15, size=len(scores[start : start + length])), 0, 1)
    return scores


def median_ms(function: Callable[[], object], repeats: int) -> float:
    function()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="n = 1,000 and 5,000 only")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    params = RSEParams(chunk_size=CHUNK_SIZE)
    calibration = Calibration()

    header = (
        f"{'n':>7} {'segs':>5} {'search':>9} {'run_rse':>9} {'chart':>9} {'recompute':>10} {'ratio':>6}"
        f" {'compare':>9} {'to_json':>9}"
    )
    print(f"preset default (chunk size {CHUNK_SIZE}), times in ms, median of {args.repeats}")
    print(header)
    status = 0
    for n in sizes:
        corpus = build_corpus(synthetic_documents(n, args.seed), CHUNK_SIZE)
        raw = simulated_scores(len(corpus.chunks), args.seed)
        queries = ("synthetic query",)

        def rse(corpus=corpus, raw=raw, queries=queries):
            return run_rse(corpus, queries, [raw], params, calibration, scorer="simulated")

        def recompute(rse=rse):
            return value_chart(rse())

        result = rse()

        def search(values=result.values[0].value, splits=corpus.document_splits):
            return find_best_segments(
                values,
                max_length=params.max_length,
                overall_max_length=params.overall_max_length,
                minimum_value=params.minimum_value,
                document_splits=splits,
            )

        search_ms = median_ms(search, args.repeats)
        run_ms = median_ms(rse, args.repeats)
        chart_ms = median_ms(lambda result=result: value_chart(result), args.repeats)
        total_ms = median_ms(recompute, args.repeats)
        compare_ms = median_ms(lambda result=result: compare_chart(result), max(3, args.repeats // 3))
        figure = value_chart(result)
        json_ms = median_ms(lambda figure=figure: pio.to_json(figure, validate=False), max(3, args.repeats // 3))
        print(
            f"{len(corpus.chunks):>7} {len(result.segments):>5} {search_ms:>9.2f} {run_ms:>9.2f} {chart_ms:>9.2f}"
            f" {total_ms:>10.2f} {total_ms / search_ms:>5.1f}x {compare_ms:>9.2f} {json_ms:>9.2f}"
        )
        if n == TARGET_N and total_ms >= TARGET_MS:
            status = 1
    print(
        f"recompute = run_rse + value_chart; ratio = recompute / search; target: recompute < {TARGET_MS:g} ms "
        f"at n = {TARGET_N:,}: {'met' if status == 0 else 'MISSED'}"
    )
    return status


if __name__ == "__main__":
    sys.exit(main())
