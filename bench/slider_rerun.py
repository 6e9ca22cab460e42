"""Benchmark: the server's CPU for one slider move on Explore, this checkout against a git ref.

Run from the project root:

    python bench/slider_rerun.py                       # this checkout: 3 rounds of 8 moves
    python bench/slider_rerun.py --baseline-ref main   # and a git archive of main, alternately

Each round starts one Python process per checkout that opens ``app.py`` with Streamlit's AppTest
on the default view (the annual report, MiniLM with the bundled embeddings, no model load:
``RSE_PRELOAD_MODEL=0``), moves the "Irrelevant chunk penalty" slider twice to warm up, then
times ``--moves`` moves: by default a drag, each move 0.02 further from 0.20 (every value new, so
no cache keyed by the parameters helps; pages are drawn in the process, ``RSE_WORKER_PROCESSES=0``,
as main does, unless ``--workers 1``), or with ``--alternate`` back and forth between 0.1 and 0.3. A move is sent as a
browser sends it: a slider drawn inside a fragment names the fragment, and the server reruns only
that fragment (``tests/support/browser_reruns.py``); a slider outside any fragment reruns the
whole app.

Per move it records the CPU time of the script thread (the server's Python work for the rerun:
widgets, values, search, figures, messages), the process CPU (that plus AppTest reading the
messages, a stand-in for the server serialising them) and the wall time. As a server does, app.py
is compiled once (AppTest alone would compile it on every run). It prints the median of
each over all rounds, the ratio to the baseline, and the issue's target: <= 25 ms of script CPU
per slider rerun. Checkouts alternate round by round, so both see the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / "tests" / "support" / "browser_reruns.py"
SLIDER = "Irrelevant chunk penalty"
TARGET_MS = 25.0


def slider_values(moves: int, alternate: bool) -> list[float]:
    """The warm-up moves, then the timed ones."""
    if alternate:
        return [(0.3, 0.1)[move % 2] for move in range(moves + 2)]
    return [0.16, 0.18] + [round(0.20 + 0.02 * move, 2) for move in range(1, moves + 1)]


def measure(root: Path, moves: int, alternate: bool = False) -> dict[str, object]:
    """In this process: open the app of ``root`` and time ``moves`` slider moves (milliseconds)."""
    import importlib.util
    import time

    sys.path.insert(0, str(root))
    os.chdir(root)
    spec = importlib.util.spec_from_file_location("bench_browser_reruns", HARNESS)
    harness = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(harness)
    from streamlit.runtime.scriptrunner import script_cache, script_runner
    from streamlit.testing.v1 import AppTest

    # A server compiles app.py once (its ScriptCache lives as long as it does); AppTest makes a new
    # cache on every run. Share one compiled script, as the server does.
    compiled: dict[str, object] = {}
    get_bytecode = script_cache.ScriptCache.get_bytecode
    script_cache.ScriptCache.get_bytecode = lambda self, path: (
        compiled.get(path) or compiled.setdefault(path, get_bytecode(self, path))
    )

    script_cpu: list[float] = []
    run_script = script_runner.ScriptRunner._run_script

    def timed(self, *args, **kwargs):
        started = time.thread_time()
        try:
            return run_script(self, *args, **kwargs)
        finally:
            script_cpu.append(time.thread_time() - started)

    script_runner.ScriptRunner._run_script = timed
    scripts: list[float] = []
    process: list[float] = []
    wall: list[float] = []
    fragment = ""
    with harness.browser_reruns() as reruns:
        at = AppTest.from_file(str(root / "app.py"), default_timeout=120).run()
        for move, value in enumerate(slider_values(moves, alternate)):
            slider = next(s for s in at.slider if s.label == SLIDER)
            fragment = reruns.fragment_of(slider)
            script_cpu.clear()
            cpu, started = time.process_time(), time.perf_counter()
            at = reruns.run(slider.set_value(value))
            if move >= 2:  # the first two moves warm up
                process.append(time.process_time() - cpu)
                wall.append(time.perf_counter() - started)
                scripts.append(sum(script_cpu))
            assert not at.exception, [e.value for e in at.exception]
    return {
        "script_ms": [1000 * s for s in scripts],
        "process_ms": [1000 * s for s in process],
        "wall_ms": [1000 * s for s in wall],
        "fragment": bool(fragment),
    }


def run_child(root: Path, moves: int, cache: Path, alternate: bool, workers: int) -> dict[str, object]:
    env = dict(
        os.environ,
        RSE_PRELOAD_MODEL="0",
        RSE_WORKER_PROCESSES=str(workers),
        RSE_CACHE_DIR=str(cache),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
    )
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(root), "--moves", str(moves)]
    command += ["--alternate"] if alternate else []
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"measuring {root} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline-ref", help="also measure this git ref (e.g. main), alternating")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per checkout (default 3)")
    parser.add_argument("--moves", type=int, default=8, help="timed slider moves per round (default 8)")
    parser.add_argument("--alternate", action="store_true", help="move back and forth between 0.1 and 0.3")
    parser.add_argument("--workers", type=int, default=0, help="RSE_WORKER_PROCESSES (default 0: draw in-process)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.child.resolve(), args.moves, args.alternate)))
        return 0

    # Here, not at the top: a child measures a checkout and must import nothing of this one.
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from bench.browser_speed import export_ref

    with tempfile.TemporaryDirectory(prefix="rse-slider-bench-") as temporary:
        checkouts = {"this checkout": ROOT}
        if args.baseline_ref:
            checkouts[args.baseline_ref] = export_ref(args.baseline_ref, Path(temporary) / "baseline")
        cache = Path(temporary) / "cache"
        results: dict[str, dict[str, list]] = {name: {} for name in checkouts}
        fragments: dict[str, bool] = {}
        for number in range(args.rounds):
            for name, root in checkouts.items():
                measured = run_child(root, args.moves, cache, args.alternate, args.workers)
                fragments[name] = bool(measured.pop("fragment"))
                for field, values in measured.items():
                    results[name].setdefault(field, []).extend(values)
                print(
                    f"round {number + 1}: {name}: script {statistics.median(measured['script_ms']):.1f} ms",
                    flush=True,
                )

    how = "back and forth" if args.alternate else "a drag"
    print(f"\nOne slider move on Explore ({how}; median of {args.rounds} x {args.moves} moves, milliseconds)\n")
    print(f"| checkout | rerun | script-thread CPU | process CPU | wall | target <= {TARGET_MS:g} ms |")
    print("| --- | --- | ---: | ---: | ---: | --- |")
    baseline = results.get(args.baseline_ref or "", {})
    for name, fields in results.items():
        medians = {field: statistics.median(values) for field, values in fields.items()}
        cells = []
        for field in ("script_ms", "process_ms", "wall_ms"):
            cell = f"{medians[field]:.1f}"
            if baseline and name != args.baseline_ref:
                cell += f" ({medians[field] / statistics.median(baseline[field]):.2f}x)"
            cells.append(cell)
        met = "met" if medians["script_ms"] <= TARGET_MS else "not met"
        rerun = "fragment" if fragments[name] else "full app"
        print(f"| {name} | {rerun} | {' | '.join(cells)} | {met} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
