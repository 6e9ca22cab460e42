"""Benchmark: building and querying a knowledge base (``rse_core.kb``).

Run from the project root:

    python bench/kb_speed.py                          # samples + a synthetic base of 43,000 chunks
    python bench/kb_speed.py --synthetic 43000 200000 # more sizes (1,000,000 if the disk and time allow)
    python bench/kb_speed.py --skip-samples --synthetic 43000
    python bench/kb_speed.py --skip-samples --synthetic --financebench 6   # 6 real filings

It prints:

- **build vs raw embedding**: building a base from the three sample PDFs (load, chunk with
  headers, embed with MiniLM, write to LanceDB, commit, index) against embedding the same chunk
  texts with the same loaded model and nothing else; the ratio is the build's overhead.
- **query latency on the samples**: p50/p95 of ``query_kb`` (dense first stage; the query is
  embedded by the loaded model, then first stage, second pass, values, segment search and text
  read), over the samples' golden queries.
- **build vs raw embedding on FinanceBench filings** (``--financebench N``, the N filings spread
  evenly over ``../shared/financebench/pdfs``): the same comparison on real 10-Ks, with the raw
  side as one ``encode`` call over all the chunk texts (sentence-transformers' own batching), timed
  before and after the build so a change in the machine's load shows; the ratio is against their mean.
- **synthetic bases**: N random chunks of 384 floats written straight into the store (100 chunks a
  document; each document has a topic direction and its chunks lie near it, so a query near one
  topic finds a document's worth of similar chunks, as real embeddings do), the write and index
  times, query p50/p95 (queries are noisy topic vectors: the store's work, not the model's), and
  the resident memory of a fresh process that opens the base and answers queries.

The machine is shared (2 cores): compare ratios within one run, not absolute times across runs.
No timing is asserted anywhere.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rse_core import chunk_document, load_document  # noqa: E402
from rse_core.chunking import scoring_text  # noqa: E402
from rse_core.embedders import EmbedderIdentity  # noqa: E402
from rse_core.kb import KnowledgeBase, MiniLMEmbedder, build, query_kb  # noqa: E402
from rse_core.kb.catalog import DocumentEntry, write_bounds  # noqa: E402
from rse_core.kb.store import ChunkRecord  # noqa: E402

SAMPLES = sorted((ROOT / "sample_docs").glob("*.pdf"))
DIM = 384
CHUNKS_PER_DOCUMENT = 100
CHUNK_CHARS = 700
WORDS = [f"w{n}" for n in range(5000)]


class SyntheticEmbedder:
    """Stands in for MiniLM on a synthetic base: queries are given as vectors (see ``embed_query``)."""

    identity = EmbedderIdentity(name="synthetic", provider="synthetic", model="synthetic", dimension=DIM)

    def __init__(self) -> None:
        self.next_query: np.ndarray | None = None

    def embed_documents(self, texts):
        raise NotImplementedError("a synthetic base is written straight into the store")

    def embed_query(self, query: str) -> np.ndarray:
        return self.next_query


def percentiles(seconds: list[float]) -> str:
    ms = np.array(seconds) * 1000
    return f"p50 {np.percentile(ms, 50):7.1f} ms  p95 {np.percentile(ms, 95):7.1f} ms  (n={len(ms)})"


def bench_samples(workdir: Path) -> None:
    print("== Samples: 3 PDFs ==")
    embedder = MiniLMEmbedder()
    started = time.perf_counter()
    embedder.preload()
    print(f"model load: {time.perf_counter() - started:.1f} s (once; excluded below)")
    started = time.perf_counter()
    report = build(workdir / "samples", SAMPLES, embedder=embedder)
    build_seconds = time.perf_counter() - started
    texts = [scoring_text(c) for path in SAMPLES for c in chunk_document(load_document(path))]
    encoder = embedder._scorer._load()  # the same loaded model, called directly
    started = time.perf_counter()
    for first in range(0, len(texts), 32):
        encoder.encode(texts[first : first + 32], normalize_embeddings=True, convert_to_numpy=True)
    raw_seconds = time.perf_counter() - started
    print(
        f"build: {report.chunks} chunks in {build_seconds:.1f} s; raw embedding of the same texts "
        f"{raw_seconds:.1f} s; build / raw = {build_seconds / raw_seconds:.2f}x"
    )
    kb = KnowledgeBase.open(workdir / "samples", embedder)
    queries = [
        q["query"]
        for p in sorted((ROOT / "sample_docs").glob("*.golden.json"))
        for q in json.loads(p.read_text())["queries"]
    ]
    query_kb(kb, "warm up")
    totals, embeds = [], []
    for query in queries:
        started = time.perf_counter()
        embedder.embed_query(query + " ")  # a new text: not cached
        embeds.append(time.perf_counter() - started)
        started = time.perf_counter()
        query_kb(kb, query + "  ")
        totals.append(time.perf_counter() - started)
    print(f"query (embed + first stage + values + search + read): {percentiles(totals)}")
    print(f"  of which the query embedding:                        {percentiles(embeds)}")
    print(f"base on disk: {kb.info().bytes / 1e6:.1f} MB")


def write_synthetic(
    kb_dir: Path, chunks: int, seed: int = 0, store: dict[str, str] | None = None
) -> tuple[float, float, np.ndarray]:
    """Write ``chunks`` synthetic chunks; return write seconds, index seconds and the topic vectors."""
    rng = np.random.default_rng(seed)
    documents = chunks // CHUNKS_PER_DOCUMENT
    topics = rng.normal(size=(documents, DIM)).astype(np.float32)
    topics /= np.linalg.norm(topics, axis=1, keepdims=True)
    kb = KnowledgeBase.create(kb_dir, SyntheticEmbedder(), store=store)
    ends = np.arange(1, CHUNKS_PER_DOCUMENT + 1, dtype=np.int64) * CHUNK_CHARS
    texts = [" ".join(rng.choice(WORDS, size=100)) for _ in range(200)]  # recycled: BM25 has words to index
    started = time.perf_counter()
    per_batch = max(1, 20_000 // CHUNKS_PER_DOCUMENT)
    for first in range(0, documents, per_batch):
        records, entries = [], []
        for number in range(first, min(documents, first + per_batch)):
            doc_id = f"synthetic{number:07d}"
            noise = rng.normal(size=(CHUNKS_PER_DOCUMENT, DIM)).astype(np.float32) * 0.06
            vectors = topics[number] + noise
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            for index in range(CHUNKS_PER_DOCUMENT):
                records.append(
                    ChunkRecord(
                        doc_id,
                        index,
                        texts[(number + index) % len(texts)],
                        index * CHUNK_CHARS,
                        (index + 1) * CHUNK_CHARS,
                        1 + index // 3,
                        1 + index // 3,
                        vector=vectors[index],
                    )
                )
            entries.append(DocumentEntry(doc_id, f"{doc_id}.txt", "", CHUNKS_PER_DOCUMENT, 34, int(ends[-1])))
            write_bounds(kb_dir, doc_id, ends)
        kb.store.add(records)
        kb.commit(entries)
    write_seconds = time.perf_counter() - started
    started = time.perf_counter()
    kb.store.optimize()
    return write_seconds, time.perf_counter() - started, topics


def query_process(kb_dir: Path, topics_file: Path, queries: int) -> dict:
    """Open the base in a fresh process, answer queries there, report latency and memory."""
    code = f"""
import json, sys, time, numpy as np
sys.path.insert(0, {str(ROOT)!r}); sys.path.insert(0, {str(ROOT / "bench")!r})
from kb_speed import SyntheticEmbedder
from rse_core.kb import KnowledgeBase, query_kb, KBQueryParams

def rss():
    fields = dict(line.split(":", 1) for line in open("/proc/self/status"))
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024

before = rss()[0]
embedder = SyntheticEmbedder()
kb = KnowledgeBase.open({str(kb_dir)!r}, embedder)
opened = rss()[0]
topics = np.load({str(topics_file)!r})
rng = np.random.default_rng(1)
times, segments, characters = [], [], []
for number in range({queries}):
    vector = topics[rng.integers(len(topics))] + rng.normal(size=topics.shape[1]).astype(np.float32) * 0.06
    embedder.next_query = vector / np.linalg.norm(vector)
    started = time.perf_counter()
    result = query_kb(kb, f"query {{number}}")
    times.append(time.perf_counter() - started)
    segments.append(len(result.segments)); characters.append(result.characters)
now, peak = rss()
print(json.dumps({{"times": times[1:], "rss_start": before, "rss_open": opened, "rss_end": now, "rss_peak": peak,
                  "segments": float(np.mean(segments)), "characters": float(np.mean(characters)),
                  "chunks": kb.catalog.chunk_total, "bytes": kb.info().bytes}}))
"""
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(completed.stdout.strip().splitlines()[-1])


def bench_synthetic(
    workdir: Path, sizes: list[int], queries: int, store: dict[str, str] | None = None, label: str = "lancedb"
) -> None:
    for size in sizes:
        documents = size // CHUNKS_PER_DOCUMENT
        print(f"== Synthetic on {label}: {size:,} chunks ({documents:,} documents of {CHUNKS_PER_DOCUMENT}) ==")
        kb_dir = workdir / f"synthetic{size}{label}"
        write_seconds, index_seconds, topics = write_synthetic(kb_dir, size, store=store)
        np.save(workdir / "topics.npy", topics)
        print(f"write: {write_seconds:.1f} s ({size / write_seconds:,.0f} chunks/s); indexes: {index_seconds:.1f} s")
        stats = query_process(kb_dir, workdir / "topics.npy", queries)
        print(f"query (first stage + second pass + values + search + read): {percentiles(stats['times'])}")
        print(
            f"  {stats['segments']:.1f} segments, {stats['characters']:,.0f} characters a query; "
            f"base on disk {stats['bytes'] / 1e6:,.0f} MB"
        )
        print(
            f"RSS: {stats['rss_start']:.0f} MB after imports, {stats['rss_open']:.0f} MB with the base open, "
            f"{stats['rss_end']:.0f} MB after {queries} queries (peak {stats['rss_peak']:.0f} MB)"
        )
        shutil.rmtree(kb_dir)


def bench_financebench(workdir: Path, count: int) -> None:
    folder = ROOT.parent / "shared" / "financebench" / "pdfs"
    filings = sorted(folder.glob("*.pdf"))
    if not filings:
        print(f"== FinanceBench: skipped, no filings at {folder} ==")
        return
    chosen = filings[:: max(1, len(filings) // count)][:count]
    print(f"== FinanceBench: {len(chosen)} filings ({', '.join(path.stem for path in chosen)}) ==")
    embedder = MiniLMEmbedder()
    embedder.preload()
    started = time.perf_counter()
    texts = [scoring_text(c) for path in chosen for c in chunk_document(load_document(path))]
    print(f"load + chunk (part of the build, not of raw): {time.perf_counter() - started:.1f} s, {len(texts):,} chunks")
    encoder = embedder._scorer._load()

    def raw() -> float:
        started = time.perf_counter()
        encoder.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
        return time.perf_counter() - started

    before = raw()
    started = time.perf_counter()
    report = build(workdir / "financebench", chosen, embedder=embedder)
    build_seconds = time.perf_counter() - started
    after = raw()
    mean = (before + after) / 2
    print(
        f"build: {report.chunks:,} chunks in {build_seconds:.1f} s ({report.chunks / build_seconds:.1f} chunks/s); "
        f"raw embedding {before:.1f} s before, {after:.1f} s after; build / raw = {build_seconds / mean:.2f}x"
    )


def bench_real_kb(kb_dir: Path, stage: str) -> None:
    """Query latency and memory on a real base (e.g. FinanceBench's), in a fresh process: the
    model loaded first, then FinanceBench's questions one by one (the first a warm-up)."""
    code = f"""
import json, sys, time, numpy as np
sys.path.insert(0, {str(ROOT)!r})
from rse_core.evaluation import financebench_kb as fb
from rse_core.kb import KnowledgeBase, query_kb, KBQueryParams, MiniLMEmbedder

def rss():
    fields = dict(line.split(":", 1) for line in open("/proc/self/status"))
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024

embedder = MiniLMEmbedder(); embedder.preload()
loaded = rss()[0]
kb = KnowledgeBase.open({str(kb_dir)!r}, embedder)
opened = rss()[0]
questions = [q.question for q in fb.read_questions(fb.default_folder())]
params = KBQueryParams(first_stage={stage!r})
times, embeds = [], []
for question in questions:
    started = time.perf_counter()
    embedder.embed_query(question + " ")
    embeds.append(time.perf_counter() - started)
    started = time.perf_counter()
    query_kb(kb, question, kb_params=params)
    times.append(time.perf_counter() - started)
now, peak = rss()
print(json.dumps({{"times": times[1:], "embeds": embeds[1:], "rss_model": loaded, "rss_open": opened,
                  "rss_end": now, "rss_peak": peak, "chunks": kb.catalog.chunk_total, "bytes": kb.info().bytes}}))
"""
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    stats = json.loads(completed.stdout.strip().splitlines()[-1])
    print(f"== Real base {kb_dir.name}: {stats['chunks']:,} chunks, {stats['bytes'] / 1e6:.0f} MB, {stage} ==")
    print(f"query (embed + first stage + values + search + read): {percentiles(stats['times'])}")
    print(f"  of which the query embedding:                        {percentiles(stats['embeds'])}")
    print(
        f"RSS: {stats['rss_model']:.0f} MB with the model, {stats['rss_open']:.0f} MB with the base open, "
        f"{stats['rss_end']:.0f} MB after {len(stats['times']) + 1} queries (peak {stats['rss_peak']:.0f} MB)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--synthetic", type=int, nargs="*", default=[43_000], help="synthetic base sizes (chunks)")
    parser.add_argument("--queries", type=int, default=41, help="queries per synthetic base (the first is a warm-up)")
    parser.add_argument("--skip-samples", action="store_true")
    parser.add_argument("--milvus", action="store_true", help="also the synthetic bases on a local Milvus Lite server")
    parser.add_argument("--kb", type=Path, help="also time FinanceBench's questions on this real base")
    parser.add_argument("--first-stage", default="dense", help="with --kb: dense, bm25 or hybrid")
    parser.add_argument("--financebench", type=int, default=0, help="build N FinanceBench filings vs raw embedding")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kb_speed_") as temporary:
        workdir = Path(temporary)
        if not args.skip_samples:
            bench_samples(workdir)
        if args.kb:
            bench_real_kb(args.kb, args.first_stage)
        if args.financebench:
            bench_financebench(workdir, args.financebench)
        bench_synthetic(workdir, args.synthetic, args.queries)
        if args.milvus:
            sys.path.insert(0, str(ROOT))
            from tests.kb.support import milvus_lite_server

            (workdir / "milvus").mkdir()
            with milvus_lite_server(workdir / "milvus" / "data") as (uri, reason):
                if uri is None:
                    print(f"Milvus Lite skipped: {reason}")
                    return
                store = {"kind": "milvus", "uri": uri, "collection": "bench_chunks"}
                bench_synthetic(workdir, args.synthetic, args.queries, store, "milvus-lite")


if __name__ == "__main__":
    main()
