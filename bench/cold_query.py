"""Benchmark: one knowledge-base query from a cold shell, through ONNX Runtime and through torch.

Run from the project root:

    python bench/cold_query.py                  # 5 cold runs of each command, then embedding speed
    python bench/cold_query.py --runs 9 --skip-throughput

It builds a base of the three sample PDFs once (kept under ``$RSE_CACHE_DIR/bench-cold-query``;
``--kb`` names another) and exports the ONNX graph if it is not cached yet (neither is timed).
Then, in one run, interleaved so a change in the machine's load hits all alike, it times N cold
subprocesses of each of:

- ``python -c "import numpy"``: the baseline every ratio is against;
- ``python -c "import lancedb"``: the store's import alone, a floor under any query of a LanceDB base;
- ``python -m rse_core.kb query KB -q QUESTION``: the query embedded through ONNX Runtime (the default);
- the same with ``RSE_ONNX=0``: the query embedded by sentence-transformers (torch).

It prints each command's median wall time and its ratio to numpy's. Unless ``--skip-throughput``,
it then embeds ``--chunks`` sample chunks (batches of 32, longest first, 2 threads) with torch,
ONNX fp32 and ONNX int8 (dynamic quantisation), batch by batch in turn, and prints chunks/s, and each ONNX variant's
agreement with torch: cosine mean and minimum, and the mean overlap of the top 10 chunks over
the samples' golden queries. The machine is shared (2 cores): compare ratios within one run.
No timing is asserted anywhere.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rse_core import chunk_document, load_document  # noqa: E402
from rse_core.chunking import scoring_text  # noqa: E402
from rse_core.kb import build  # noqa: E402
from rse_core.scoring.embedding_cache import default_cache_dir  # noqa: E402
from rse_core.scoring.minilm_onnx import OnnxMiniLM, OnnxVariant, graph_path, model_folder  # noqa: E402

SAMPLES = sorted((ROOT / "sample_docs").glob("*.pdf"))
QUESTION = "How many days of annual leave do new employees get?"
BATCH = 32
THREADS = 2


def ensure_kb(kb: Path) -> None:
    if (kb / "kb.json").is_file():
        return
    started = time.perf_counter()
    build(kb, SAMPLES)
    print(f"built the sample base at {kb} in {time.perf_counter() - started:.1f} s (not timed below)")


def cold_runs(kb: Path, runs: int) -> dict[str, list[float]]:
    python = sys.executable
    query = [python, "-m", "rse_core.kb", "query", str(kb), "-q", QUESTION]
    commands = {
        "python -c 'import numpy'": ([python, "-c", "import numpy"], {}),
        "python -c 'import lancedb'": ([python, "-c", "import lancedb"], {}),
        "kb query (ONNX)": (query, {}),
        "kb query (torch, RSE_ONNX=0)": (query, {"RSE_ONNX": "0"}),
    }
    base = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    base.pop("RSE_ONNX", None)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, (command, extra) in commands.items():
            started = time.perf_counter()
            subprocess.run(command, env={**base, **extra}, cwd=ROOT, check=True, capture_output=True)
            times[name].append(time.perf_counter() - started)
    return times


def print_cold(times: dict[str, list[float]]) -> None:
    baseline = statistics.median(next(iter(times.values())))
    print(f"\n{'command':32} {'median s':>9} {'min s':>7} {'max s':>7} {'x numpy':>8}")
    for name, seconds in times.items():
        median = statistics.median(seconds)
        print(f"{name:32} {median:9.2f} {min(seconds):7.2f} {max(seconds):7.2f} {median / baseline:8.1f}")


def sample_chunks(count: int) -> list[str]:
    texts = [scoring_text(chunk) for pdf in SAMPLES for chunk in chunk_document(load_document(pdf))]
    return texts[:count]


def golden_queries() -> list[str]:
    return [
        entry["query"]
        for path in sorted((ROOT / "sample_docs").glob("*.golden.json"))
        for entry in json.loads(path.read_text("utf-8"))["queries"]
    ]


def embed_interleaved(encoders: dict, texts: list[str]) -> dict[str, tuple[np.ndarray, float]]:
    """Each encoder's rows and seconds, batch by batch in turn (so a change in the machine's load
    hits all alike); batches of similar length, longest first, as sentence-transformers orders them."""
    order = sorted(range(len(texts)), key=lambda index: -len(texts[index]))
    parts: dict[str, list[np.ndarray]] = {name: [] for name in encoders}
    seconds = dict.fromkeys(encoders, 0.0)
    for first in range(0, len(texts), BATCH):
        batch = [texts[index] for index in order[first : first + BATCH]]
        for name, encode in encoders.items():
            started = time.perf_counter()
            parts[name].append(encode(batch))
            seconds[name] += time.perf_counter() - started
    results = {}
    for name in encoders:
        rows = np.concatenate(parts[name])
        restored = np.empty_like(rows)
        restored[order] = rows
        results[name] = (restored, seconds[name])
    return results


def top10_overlap(reference: tuple[np.ndarray, np.ndarray], other: tuple[np.ndarray, np.ndarray]) -> float:
    (chunks_a, queries_a), (chunks_b, queries_b) = reference, other
    overlaps = []
    for query_a, query_b in zip(queries_a, queries_b, strict=True):
        best_a = set(np.argsort(-(chunks_a @ query_a))[:10])
        best_b = set(np.argsort(-(chunks_b @ query_b))[:10])
        overlaps.append(len(best_a & best_b) / 10)
    return float(np.mean(overlaps))


def throughput(count: int) -> None:
    import torch

    from rse_core.scoring.minilm import load_encoder

    torch.set_num_threads(THREADS)
    texts, queries = sample_chunks(count), golden_queries()
    model = load_encoder()
    encoders = {
        "torch fp32 (sentence-transformers)": lambda batch: model.encode(
            batch, batch_size=BATCH, normalize_embeddings=True, convert_to_numpy=True
        ),
    }
    for variant in OnnxVariant:
        onnx = OnnxMiniLM.load(variant=variant, threads=THREADS)
        encoders[f"ONNX {variant.value}"] = onnx.encode
    for encode in encoders.values():
        encode(texts[:BATCH])  # warm-up
    embedded = embed_interleaved(encoders, texts)
    reference = next(iter(embedded))
    results = {name: (rows, encoders[name](queries)) for name, (rows, _) in embedded.items()}
    print(f"\n{len(texts)} sample chunks, batches of {BATCH} longest first, {THREADS} threads, encoders in turn")
    print(f"{'encoder':36} {'chunks/s':>9} {'cosine mean':>12} {'cosine min':>11} {'top-10 overlap':>15}")
    for name, (rows, seconds) in embedded.items():
        cosines = (rows * embedded[reference][0]).sum(axis=1)
        overlap = top10_overlap(results[reference], results[name])
        print(f"{name:36} {len(texts) / seconds:9.1f} {cosines.mean():12.4f} {cosines.min():11.4f} {overlap:15.2f}")
    print(f"(agreement is with torch; top-10 overlap over the samples' {len(queries)} golden queries)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="cold runs of each command")
    parser.add_argument("--kb", type=Path, default=default_cache_dir() / "bench-cold-query")
    parser.add_argument("--chunks", type=int, default=300, help="sample chunks for the embedding speed")
    parser.add_argument("--skip-throughput", action="store_true")
    args = parser.parse_args()
    ensure_kb(args.kb)
    started = time.perf_counter()
    graph_path(model_folder())
    print(f"ONNX graph ready in {time.perf_counter() - started:.1f} s (an export happens once per weights file)")
    times = cold_runs(args.kb, args.runs)
    print_cold(times)
    if not args.skip_throughput:
        throughput(args.chunks)


if __name__ == "__main__":
    main()
