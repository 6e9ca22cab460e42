"""Benchmark: a local embedder's speed and agreement, torch fp32 vs ONNX fp32 vs ONNX int8.

Run from the project root (the model folder: ``python -m rse_core.embedders install mpnet`` puts
all-mpnet-base-v2 in ``$RSE_CACHE_DIR/models/``):

    nice -n 10 python bench/embedder_speed.py --model mpnet --chunks 300
    nice -n 10 python bench/embedder_speed.py --model minilm --chunks 300
    nice -n 10 python bench/embedder_speed.py --model mpnet --chunks 300 --max-tokens 384 256 128 --skip-torch

It chunks one FinanceBench filing (``--filing``, default 3M_2018_10K.pdf in
``../shared/financebench/pdfs``) as a knowledge base does (headers on), takes the first N chunk
texts, and prints for each variant chunks per second (batches of 32 sorted by length, as the
scorer batches them; graphs exported beforehand, so only encoding is timed; the texts in
``--rounds`` slices, each slice timed for every variant in turn, so the shared machine's load
falls on all alike), the cosine of each vector with torch fp32's (mean and minimum), the overlap of the
top-10 chunks for 10 queries, and with ``--max-tokens`` the same for ONNX fp32 truncated shorter.

The machine is shared (2 cores): compare ratios within one run, not absolute times across runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rse_core import chunk_document, load_document  # noqa: E402
from rse_core.chunking import scoring_text  # noqa: E402
from rse_core.scoring.minilm import load_encoder, model_folder  # noqa: E402
from rse_core.scoring.minilm_onnx import OnnxSentenceEncoder, OnnxVariant, graph_path  # noqa: E402

QUERIES = (
    "What was total revenue in the fiscal year?",
    "capital expenditures and purchases of property, plant and equipment",
    "How much cash did operating activities provide?",
    "dividends paid per share",
    "long-term debt maturities",
    "gross margin percentage",
    "restructuring charges",
    "effective income tax rate",
    "segment operating income",
    "share repurchase program",
)
BATCH = 32


def _folder(name: str) -> Path:
    if name == "minilm":
        return model_folder()
    if name == "mpnet":
        from rse_core.embedders.packaged import MPNET, installed_folder

        return installed_folder(MPNET)
    return Path(name)


def _texts(filing: Path, count: int) -> list[str]:
    return [scoring_text(chunk) for chunk in chunk_document(load_document(filing))][:count]


def _batched(encode, texts: list[str]) -> np.ndarray:
    order = sorted(range(len(texts)), key=lambda index: -len(texts[index]))
    parts = [encode([texts[i] for i in order[start : start + BATCH]]) for start in range(0, len(order), BATCH)]
    rows = np.concatenate(parts)
    result = np.empty_like(rows)
    result[order] = rows
    return result


def _timed_in_rounds(encoders: dict[str, object], texts: list[str], rounds: int) -> dict[str, np.ndarray]:
    """Each encoder's vectors for ``texts``, timed slice by slice in turns (the machine is shared:
    a slow minute then falls on every variant alike, not on whichever ran during it)."""
    for encode in encoders.values():
        encode(texts[:2])  # warm-up: first-call allocations are not the steady speed
    seconds = dict.fromkeys(encoders, 0.0)
    parts: dict[str, list[np.ndarray]] = {label: [] for label in encoders}
    size = -(-len(texts) // rounds)
    for start in range(0, len(texts), size):
        piece = texts[start : start + size]
        for label, encode in encoders.items():
            started = time.perf_counter()
            parts[label].append(_batched(encode, piece))
            seconds[label] += time.perf_counter() - started
    for label in encoders:
        rate = len(texts) / seconds[label]
        print(f"{label:<26} {rate:6.2f} chunks/s  ({seconds[label]:.1f} s for {len(texts)})", flush=True)
    return {label: np.concatenate(vectors) for label, vectors in parts.items()}


def _agreement(label: str, vectors: np.ndarray, reference: np.ndarray, queries: np.ndarray, ref_q: np.ndarray) -> None:
    cosines = np.sum(vectors * reference, axis=1)
    overlaps = []
    for query, ref_query in zip(queries, ref_q, strict=True):
        mine = set(np.argsort(-(vectors @ query))[:10])
        theirs = set(np.argsort(-(reference @ ref_query))[:10])
        overlaps.append(len(mine & theirs) / 10)
    print(
        f"{label:<26} cosine vs reference mean {cosines.mean():.4f} min {cosines.min():.4f};"
        f" top-10 overlap over {len(QUERIES)} queries {np.mean(overlaps):.2f}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="mpnet", help="minilm, mpnet or a sentence-transformers folder")
    parser.add_argument("--filing", type=Path, default=ROOT.parent / "shared/financebench/pdfs/3M_2018_10K.pdf")
    parser.add_argument("--chunks", type=int, default=300)
    parser.add_argument("--max-tokens", type=int, nargs="*", default=[], help="also ONNX fp32 truncated here")
    parser.add_argument("--rounds", type=int, default=3, help="slices timed in turns (default 3)")
    parser.add_argument("--skip-torch", action="store_true", help="reference: ONNX fp32 instead of torch")
    args = parser.parse_args()
    folder = _folder(args.model)
    texts = _texts(args.filing, args.chunks)
    print(f"{folder.name}: {len(texts)} chunks of {args.filing.name}, batches of {BATCH}", flush=True)
    for variant in OnnxVariant:
        graph_path(folder, variant)  # export / quantise outside the timing
    encoders = {}
    if not args.skip_torch:
        model = load_encoder(folder)
        encoders["torch fp32"] = lambda batch: model.encode(
            batch, batch_size=BATCH, normalize_embeddings=True, convert_to_numpy=True
        )
    for variant in OnnxVariant:
        encoders[f"onnx {variant.value}"] = OnnxSentenceEncoder(folder, graph_path(folder, variant)).encode
    for tokens in args.max_tokens:
        graph = graph_path(folder, OnnxVariant.FP32)
        encoders[f"onnx fp32 {tokens} tokens"] = OnnxSentenceEncoder(folder, graph, max_tokens=tokens).encode
    results = _timed_in_rounds(encoders, texts, args.rounds)
    queries = {label: encode(list(QUERIES)) for label, encode in encoders.items()}
    reference = "onnx fp32" if args.skip_torch else "torch fp32"
    print(f"\nagreement with {reference}:")
    for label, vectors in results.items():
        if label != reference:
            _agreement(label, vectors, results[reference], queries[label], queries[reference])


if __name__ == "__main__":
    main()
