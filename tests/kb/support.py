"""Helpers for the knowledge-base tests: a model-free embedder, tiny documents, a milvus-lite server."""

from __future__ import annotations

import hashlib
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from rse_core.embedders import EmbedderIdentity

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "sample_docs").glob("*.pdf"))
SAMPLE_EMBEDDINGS = ROOT / "sample_docs" / "embeddings"
_WORD = re.compile(r"[a-z0-9]+")


class HashingEmbedder:
    """Bag of words hashed into 384 dimensions, unit length: texts sharing words are similar.

    Deterministic and instant, for tests where the model is not the point (the real one is
    covered by the ``slow`` tests). ``name`` is the name its identity records (``minilm`` where it
    stands in for the default embedder, see :func:`as_default_embedder`).
    """

    dimension = 384

    def __init__(self, name: str = "test-hashing") -> None:
        self.identity = EmbedderIdentity(name=name, provider="test", model="test-hashing", dimension=self.dimension)

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        matrix = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                matrix[row, int(hashlib.md5(word.encode()).hexdigest()[:8], 16) % self.dimension] += 1.0
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.where(norms == 0, 1.0, norms)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_texts(texts)

    def embed_query(self, query: str) -> np.ndarray:
        return self.embed_texts([query])[0]


def as_default_embedder(monkeypatch) -> None:
    """Make the default embedder name (``minilm``) give a :class:`HashingEmbedder`, for building
    and for reopening a base by its record: the CLI's shape without the model."""
    from rse_core.embedders import names

    monkeypatch.setattr(names, "MiniLMEmbedder", lambda *args, **kwargs: HashingEmbedder(names.DEFAULT_EMBEDDER))


def filler(topic: str, count: int, seed: int = 0) -> str:
    """``count`` paragraphs of filler about ``topic`` (each about 300 characters)."""
    rng = np.random.default_rng(seed)
    words = [f"{topic}{n}" for n in range(40)]
    paragraphs = []
    for _ in range(count):
        paragraphs.append(" ".join(rng.choice(words, size=45)) + ".")
    return "\n\n".join(paragraphs) + "\n"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def milvus_lite_server(data_dir: Path, timeout: float = 60.0) -> Iterator[tuple[str | None, str]]:
    """Start ``milvus-lite server`` (milvus-lite's own CLI, a gRPC server in a child process) on
    127.0.0.1 and yield its URI, or ``None`` with the reason printed if it cannot start."""
    try:
        import milvus_lite  # noqa: F401
        import pymilvus  # noqa: F401
    except ImportError as error:
        yield None, f"milvus-lite or pymilvus is not installed ({error})"
        return
    port = free_port()
    command = [sys.executable, "-m", "milvus_lite", "server", "--data-dir", str(data_dir)]
    command += ["--host", "127.0.0.1", "--port", str(port)]
    with local_server("milvus-lite server", command, port, data_dir.parent / "milvus-lite.log", timeout) as started:
        yield started


@contextmanager
def local_server(
    name: str, command: list[str], port: int, log_path: Path, timeout: float
) -> Iterator[tuple[str | None, str]]:
    """Run ``command`` (the ``name`` server, told to listen on 127.0.0.1:``port``) until the block ends; yield
    ``("http://127.0.0.1:PORT", "")`` once it accepts connections, or ``(None, why it did not start)``."""
    log = open(log_path, "w")  # noqa: SIM115 - closed below
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                break
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
            except OSError:
                time.sleep(0.2)
                continue
            # Outside the try: an OSError in the caller's block is the caller's, not "not up yet".
            yield f"http://127.0.0.1:{port}", ""
            return
        log.flush()
        tail = log_path.read_text(errors="replace")[-500:]
        yield None, f"{name} did not start on 127.0.0.1:{port} within {timeout:.0f} s: {tail}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def build_in_process(kb_dir: str, paths: list[str], start) -> None:
    """A build with the model-free embedder, one chunk a commit, started when ``start`` (a
    barrier) lets every builder go: for tests running builds in separate processes."""
    from rse_core.kb import build

    start.wait()
    build(kb_dir, paths, embedder=HashingEmbedder(), batch_chunks=1)


def hold_writer_lock(kb_dir: str, held, release) -> None:
    """Hold the base's writer lock from another process until ``release`` is set."""
    from rse_core.kb.writer_lock import writer_lock

    with writer_lock(kb_dir):
        held.set()
        release.wait(60)
