"""Benchmark: loading each bomb PDF of ``tests/support/bomb_pdfs.py``: time, peak memory, outcome.

Run from the project root:

    python bench/bomb_pdfs.py               # guarded loads, plus the unguarded baseline
    python bench/bomb_pdfs.py --no-baseline # guarded loads only (a few seconds)

Each load runs in its own subprocess, so its peak resident memory (``ru_maxrss`` of the child,
Python and PyMuPDF included; "before" is the same figure just before the load) is its own.
"guarded" is ``load_document`` with the default ``LoadLimits``; the target is a
``DocumentTooLargeError`` in under 10 s and under 1 GB. The baseline is the same call with the
content, character and time budgets lifted (what main did), killed after ``--cap`` seconds or
when it passes ``--memory-cap`` MB of address space; it shows what the budgets prevent.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, resource, sys, time
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/tests/support"]
from bomb_pdfs import bomb_pdfs
from rse_core import LoadLimits, load_document
from rse_core.errors import RSEError
import pymupdf  # imported before timing: what a running server has already loaded
guarded = sys.argv[3] == "guarded"
limits = LoadLimits() if guarded else LoadLimits(
    max_chars=10**12, max_page_chars=10**12, max_page_content_bytes=10**15, max_content_bytes=10**15, max_seconds=1e9)
data = bomb_pdfs()[sys.argv[2]]
before_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
start = time.perf_counter()
try:
    document = load_document(data, name=sys.argv[2] + ".pdf", limits=limits)
    outcome = f"loaded: {len(document.text):,} characters"
except RSEError as error:
    outcome = f"{type(error).__name__}: {str(error)[:90]}..."
except Exception as error:
    outcome = f"{type(error).__name__}: {str(error)[:60]}"
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "before_mb": before_mb, "outcome": outcome, "bytes": len(data)}))
"""


def measure(bomb: str, mode: str, cap: float, memory_cap_mb: int) -> dict:
    def limit_memory() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_cap_mb * 1_048_576, memory_cap_mb * 1_048_576))

    try:
        completed = subprocess.run(
            [sys.executable, "-c", CHILD, str(ROOT), bomb, mode],
            capture_output=True,
            text=True,
            timeout=cap,
            preexec_fn=limit_memory if mode == "baseline" else None,
        )
    except subprocess.TimeoutExpired:
        return {"seconds": None, "peak_mb": None, "outcome": f"still extracting after {cap:g} s (killed)"}
    if completed.returncode != 0 or not completed.stdout.strip():
        last = (completed.stderr.strip().splitlines() or ["?"])[-1]
        return {"seconds": None, "peak_mb": None, "outcome": f"crashed: {last[:80]}"}
    return json.loads(completed.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-baseline", action="store_true", help="skip the unguarded loads")
    parser.add_argument("--cap", type=float, default=30.0, help="seconds before an unguarded load is killed")
    parser.add_argument("--memory-cap", type=int, default=3000, help="MB of address space for an unguarded load")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "tests" / "support"))
    from bomb_pdfs import bomb_pdfs

    sizes = {name: len(data) for name, data in bomb_pdfs().items()}
    print(f"{'bomb':10} {'file':>10} {'mode':9} {'time':>9} {'peak RSS':>9} {'(before)':>9}  outcome")
    ok = True
    for bomb, size in sizes.items():
        modes = ["guarded"] + ([] if args.no_baseline else ["baseline"])
        for mode in modes:
            row = measure(bomb, mode, args.cap, args.memory_cap)
            seconds = "-" if row["seconds"] is None else f"{row['seconds']:.3f} s"
            peak = "-" if row["peak_mb"] is None else f"{row['peak_mb']:.0f} MB"
            before = "-" if row.get("before_mb") is None else f"{row['before_mb']:.0f} MB"
            print(f"{bomb:10} {size:>8,} B {mode:9} {seconds:>9} {peak:>9} {before:>9}  {row['outcome']}")
            if mode == "guarded":
                refused = row["outcome"].startswith("DocumentTooLargeError")
                ok &= refused and row["seconds"] is not None and row["seconds"] < 10 and row["peak_mb"] < 1024
    print("target (guarded: DocumentTooLargeError, < 10 s, < 1 GB):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
