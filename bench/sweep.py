"""Benchmark: a 15 x 15 parameter sweep (rse_core.evaluation.sweep.sweep) against one run_rse call.

Run from the project root:

    python bench/sweep.py            # best of 5 sweeps per case
    python bench/sweep.py --repeats 10 --seed 3

The corpus is simulated: four text documents of 250 chunks each (1,000 chunks in all,
split where each document starts), with seeded raw scores in [0, 1] (noise plus a few relevant
sections) and the identity calibration. For several pairs of swept parameters and two presets it
prints the best-of-R time of the whole 15 x 15 sweep (225 cells), the time per cell, the best
time of one ``run_rse`` call at the base setting, and their ratio (sweep / run_rse): how many
single runs the whole grid costs. The machine is shared (2 cores): compare ratios within one run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from rse_core import Document, build_corpus, chunk_document, preset, run_rse  # noqa: E402
from rse_core.evaluation.sweep import default_axis, sweep  # noqa: E402
from rse_core.param_specs import DECAY_RATE, MAX_LENGTH, MINIMUM_VALUE, OVERALL_MAX_LENGTH, PENALTY  # noqa: E402
from rse_core.scoring import Calibration  # noqa: E402

CHUNK_SIZE = 400
DOCUMENTS = 4
TARGET_CHUNKS = 1_000
AXES = (
    (PENALTY.name, MINIMUM_VALUE.name),
    (PENALTY.name, MAX_LENGTH.name),
    (DECAY_RATE.name, OVERALL_MAX_LENGTH.name),
)


def simulated_corpus(seed: int):
    """Four documents of exactly TARGET_CHUNKS / 4 chunks each."""
    rng = np.random.default_rng(seed)
    words = ["cooling", "pump", "valve", "pressure", "coolant", "flow", "sensor", "loop", "heat", "filter"]
    per_document = TARGET_CHUNKS // DOCUMENTS
    documents = []
    for number in range(DOCUMENTS):
        sentences = [
            " ".join(rng.choice(words, int(rng.integers(8, 20)))).capitalize() + ". "
            for _ in range(per_document * CHUNK_SIZE // 50)
        ]

        def document(count: int, number: int = number, sentences: list[str] = sentences) -> Document:
            return Document.from_text("".join(sentences[:count]), name=f"simulated_{number}.txt")

        low, high = 1, len(sentences)  # fewest sentences giving per_document chunks
        while low < high:
            middle = (low + high) // 2
            if len(chunk_document(document(middle), CHUNK_SIZE)) >= per_document:
                high = middle
            else:
                low = middle + 1
        documents.append(document(low))
    return build_corpus(documents, CHUNK_SIZE)


def simulated_scores(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scores = rng.beta(0.5, 4.0, n)
    for center in rng.integers(0, n, 6):
        width = int(rng.integers(2, 12))
        section = slice(max(0, center - width), center + width)
        scores[section] = rng.uniform(0.5, 1.0, len(scores[section]))
    return scores


def fifteen(param: str, current: float) -> list[float]:
    values = default_axis(param, current)
    picks = np.linspace(0, len(values) - 1, 15).round().astype(int)
    return [values[i] for i in dict.fromkeys(picks.tolist())]


def best_time(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="sweeps timed per case (best is shown)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    corpus = simulated_corpus(args.seed)
    n = len(corpus.chunks)
    raw = [simulated_scores(n, args.seed + 1)]
    calibration = Calibration()
    print(f"corpus: {n} chunks in {len(corpus.documents)} documents (chunk size {CHUNK_SIZE}), 1 query")
    header = f"{'preset':<10}{'x':<26}{'y':<20}{'cells':>6}{'sweep ms':>10}{'ms/cell':>9}{'run_rse ms':>11}{'ratio':>8}"
    print(header)
    worst = 0.0
    for name in ("default", "find_all"):
        params = preset(name).with_changes(chunk_size=CHUNK_SIZE)
        single = best_time(lambda params=params: run_rse(corpus, ["q"], raw, params, calibration), args.repeats * 4)
        for x_param, y_param in AXES:
            x_values = fifteen(x_param, getattr(params, x_param))
            y_values = fifteen(y_param, getattr(params, y_param))

            def run(params=params, x_param=x_param, y_param=y_param, x_values=x_values, y_values=y_values):
                return sweep(
                    corpus,
                    ["q"],
                    raw,
                    calibration,
                    params,
                    x_param=x_param,
                    x_values=x_values,
                    y_param=y_param,
                    y_values=y_values,
                    gold=(0, 5000),
                )

            elapsed = best_time(run, args.repeats)
            cells = len(x_values) * len(y_values)
            worst = max(worst, elapsed)
            print(
                f"{name:<10}{x_param:<26}{y_param:<20}{cells:>6}{elapsed * 1e3:>10.1f}"
                f"{elapsed / cells * 1e3:>9.3f}{single * 1e3:>11.2f}{elapsed / single:>8.1f}"
            )
    print(f"slowest 15 x 15 sweep: {worst * 1e3:.0f} ms (target: well under 1,000 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
