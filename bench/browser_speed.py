"""Benchmark: what a person waits for in a real browser (cold start, slider moves, an upload).

Run from the project root (needs Debian's ``chromium`` and Playwright):

    python bench/browser_speed.py                      # this checkout only
    python bench/browser_speed.py --baseline-ref main  # and a copy of ``main``, in the same run
    python bench/browser_speed.py --quick              # fewer repeats
    python bench/browser_speed.py --only-upload --rounds 4 --baseline-ref main   # the upload alone

Each measurement starts ``streamlit run app.py`` on a free 127.0.0.1 port with a fresh, empty
``RSE_CACHE_DIR`` and drives headless Chromium (Playwright with ``executable_path``):

- cold start: from spawning the server to the first chart drawn on the default view (the annual
  report, 125 chunks, the default query); then how long the server stays busy after it (this
  checkout loads the model in the background then; the warm figures below start after it), and
  a second tab on the now warm server;
- slider: focus the penalty slider, press ArrowRight, time until the chart has stopped changing
  (a MutationObserver on the Plotly chart records its last change); at 125 chunks (default view)
  and at 535 chunks (all three samples, chunk size 500, bm25 so no embedding is needed); and on
  the RSE vs top-k page (125 chunks);
- upload: a generated PDF of about 100 chunks, from ``set_input_files`` to the headline that counts
  its chunks, in a warm app; against the library's ``load_document`` + MiniLM embedding +
  ``extract`` of the same bytes in this process (model already loaded, no cache), same run;
- ``import rse_core`` in a fresh interpreter.

``--only-upload`` measures the upload alone (a warm server per round, one upload in a fresh tab)
and prints when each step of it showed in the browser: the "Reading" note, the progress bar, the
chart's frame created anew (if it was), the chart; and the CPU seconds the browser and the server
used from the choice to the chart (the browser's work slows the embedding on the same cores).

Every wait polls every 50 ms rather than on each animation frame (Playwright's default), so the
bench takes as little as possible of the browser's main thread from the page it measures.

``--baseline-ref REF`` exports ``REF`` with ``git archive`` into a temporary folder (no worktree is
registered) and measures it alternately with this checkout, so both see the same machine load.
Prints medians and maxima, the ratio new / baseline, and the issue's target for each figure.
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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.support.streamlit_process import CHART_DRAWN_JS, free_port, running_server, streamlit_command  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 240_000
BIG_VIEW = "?docs=annual_report,employee_handbook,tech_report&chunk=500&scorer=bm25"
PENALTY = "[data-testid='stSidebar'] input[type='range'][aria-label='Irrelevant chunk penalty']"
UPLOAD_WORDS = (  # noqa: SIM905 - a sentence reads better than quoted words
    "the cooling loop pumps water through a heat exchanger while sensors report pressure and flow to the "
    "controller which adjusts valve positions every second and logs each change for the audit team"
).split()

# A MutationObserver that notes the last time anything inside a Plotly chart changed (after the
# next animation frame, i.e. when the browser can paint it): in the page (``st.plotly_chart``) and
# in the same-origin frames of live charts (``app_ui.live_chart``), frames added later included.
# Times are the page's ``performance.now()``: the frames' mutations are seen by the page's observer.
OBSERVE_JS = """() => {
  if (window.__rseObserver) return;
  window.__rseLast = 0;
  const watched = new WeakSet();
  const note = () => requestAnimationFrame(() => { window.__rseLast = performance.now(); });
  const watchFrame = (frame) => {
    const attach = () => {
      const body = frame.contentDocument && frame.contentDocument.body;
      if (!body || watched.has(body)) return;
      watched.add(body);
      window.__rseObserver.observe(body, {subtree: true, childList: true, attributes: true, characterData: true});
    };
    attach();
    frame.addEventListener('load', attach);
  };
  window.__rseObserver = new MutationObserver((records) => {
    let changed = false;
    for (const r of records) {
      const node = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (!node || !node.closest) continue;
      for (const added of r.addedNodes || []) {
        if (added.nodeType !== 1) continue;
        (added.tagName === 'IFRAME' ? [added] : added.querySelectorAll('iframe')).forEach(watchFrame);
      }
      if (node.closest('[data-testid="stPlotlyChart"]') || node.closest('.js-plotly-plot')) changed = true;
    }
    if (changed) note();
  });
  window.__rseObserver.observe(document.body, {subtree: true, childList: true, attributes: true,
                                               characterData: true});
  document.querySelectorAll('iframe').forEach(watchFrame);
}"""
IDLE_JS = "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
# Waits poll every 50 ms, not on every animation frame: a check per frame (it reads innerText,
# which forces a layout) takes main-thread time from the page being measured. Adds <= 50 ms.
POLL_MS = 50


@dataclass
class Figures:
    """Every measurement of one checkout."""

    cold_start: list[float] = field(default_factory=list)
    busy_after_start: list[float] = field(default_factory=list)
    warm_tab: list[float] = field(default_factory=list)
    slider_small: list[float] = field(default_factory=list)
    slider_big: list[float] = field(default_factory=list)
    slider_compare: list[float] = field(default_factory=list)
    upload: list[float] = field(default_factory=list)
    upload_steps: list[dict[str, float]] = field(default_factory=list)
    upload_ratio: list[float] = field(default_factory=list)  # each upload / the library runs just before and after it
    library: list[float] = field(default_factory=list)
    import_core: list[float] = field(default_factory=list)


@contextmanager
def server(root: Path, log_dir: Path) -> Iterator[tuple[str, float, int]]:
    """``streamlit run app.py`` from ``root``; yields (url, the monotonic time it was spawned, pid)."""
    port = free_port()
    cache = Path(tempfile.mkdtemp(prefix="rse-cache-", dir=log_dir))
    env = {**os.environ, "RSE_CACHE_DIR": str(cache), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    url = f"http://127.0.0.1:{port}"
    started = time.monotonic()
    try:
        with running_server(
            streamlit_command(port), url=url, cwd=root, env=env, log=log_dir / f"server-{port}.log"
        ) as process:
            yield url, started, process.pid
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (all its threads), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def descendants_cpu_seconds(root: int, name: str) -> float:
    """CPU time of this process's descendants whose command line holds ``name`` (the browser's
    processes), from /proc: the browser's work competes with the server's for the same cores."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    total = 0.0
    for pid in parents:
        ancestor = parents.get(pid)
        while ancestor and ancestor != root:
            ancestor = parents.get(ancestor)
        if ancestor != root:
            continue
        try:
            if name.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                total += cpu_seconds(pid)
        except OSError:
            continue
    return total


def wait_until_idle(pid: int, limit: float = 180.0, at_least: float = 5.0) -> float:
    """Seconds until the server uses under 10% of a core over a second (e.g. a background model
    load is over), so "warm" figures are not measured against start-up work. Not before
    ``at_least`` seconds: an app may start its background work a few seconds after the first
    screen (so that it does not compete with the browser drawing it)."""
    started = time.monotonic()
    before = cpu_seconds(pid)
    while time.monotonic() - started < limit:
        time.sleep(1.0)
        now = cpu_seconds(pid)
        if now - before < 0.1 and time.monotonic() - started >= at_least:
            break
        before = now
    return time.monotonic() - started


def wait_for_chart(page, total_chunks: int | None = None) -> None:
    """Until a chart is drawn, the script has finished and (optionally) the headline counts
    ``total_chunks`` chunks."""
    page.wait_for_function(CHART_DRAWN_JS, timeout=TIMEOUT_MS, polling=POLL_MS)
    if total_chunks is not None:
        page.wait_for_function(
            "(n) => [...document.querySelectorAll('[data-testid=\"stMetricValue\"]')]"
            ".some(m => m.innerText.trim().endsWith(' of ' + n))",
            arg=total_chunks,
            timeout=TIMEOUT_MS,
            polling=POLL_MS,
        )


def slider_moves(page, moves: int) -> list[float]:
    """Press ArrowRight on the penalty slider ``moves`` times; ms until the chart stops changing."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    page.evaluate(OBSERVE_JS)
    slider = page.locator(PENALTY)
    times = []
    for move in range(moves):
        if move == moves // 2:  # don't run off the end of the slider's range
            slider.focus()
            slider.press("Home")
            settle(page)
        slider.focus()
        start = page.evaluate("() => { window.__rseLast = 0; return performance.now(); }")
        slider.press("ArrowRight")
        try:  # the chart starts changing (a move that changes nothing is not counted)
            page.wait_for_function("(t) => window.__rseLast > t", arg=start, timeout=15_000, polling=20)
        except PlaywrightTimeout:
            continue
        settle(page)
        times.append(page.evaluate("() => window.__rseLast") - start)
    return times


def settle(page, quiet_ms: int = 600) -> None:
    """Until the rerun is over and the chart has not changed for ``quiet_ms``."""
    page.wait_for_timeout(150)
    page.wait_for_function(IDLE_JS, timeout=TIMEOUT_MS, polling=POLL_MS)
    page.wait_for_function(
        f"() => performance.now() - (window.__rseLast || 0) > {quiet_ms}", timeout=TIMEOUT_MS, polling=50
    )


def upload_pdf(target_chunks: int = 100) -> tuple[bytes, int]:
    """A text PDF that chunks into about ``target_chunks`` chunks at the default chunk size."""
    import random

    from rse_core import chunk_document, load_document
    from rse_core.documents.pymupdf_import import import_pymupdf

    pymupdf = import_pymupdf()

    rng = random.Random(12)
    sentences = [" ".join(rng.choice(UPLOAD_WORDS) for _ in range(18)).capitalize() + "." for _ in range(690)]
    pdf = pymupdf.open()
    per_page = 20
    for first in range(0, len(sentences), per_page):
        page = pdf.new_page(width=595, height=842)
        page.insert_textbox(pymupdf.Rect(40, 40, 555, 810), " ".join(sentences[first : first + per_page]), fontsize=8)
    data = pdf.tobytes()
    pdf.close()
    chunks = len(chunk_document(load_document(data, name="bench_upload.pdf")))
    if abs(chunks - target_chunks) > 15:
        raise RuntimeError(f"the upload PDF has {chunks} chunks, expected about {target_chunks}")
    return data, chunks


# What an upload shows on its way to the chart, noted by a MutationObserver at the time it first
# appears (``performance.now()``, ms): the "Reading" note, a progress bar, a live chart frame added
# after the upload started (the old one removed and a new one loading plotly.js), the headline.
UPLOAD_STEPS_JS = """(total) => {
  window.__rseSteps = {start: performance.now()};
  const steps = window.__rseSteps;
  const frames = new Set(document.querySelectorAll('iframe'));
  const seen = (name) => { if (!(name in steps)) steps[name] = performance.now() - steps.start; };
  const check = () => {
    if ([...document.querySelectorAll('[data-testid="stAlert"]')].some(a => a.innerText.includes('Reading')))
      seen('note');
    if (document.querySelector('[data-testid="stProgress"]')) seen('progress');
    if ([...document.querySelectorAll('iframe')].some(f => !frames.has(f) && f.title.includes('live_chart')))
      seen('new chart frame');
    if ([...document.querySelectorAll('[data-testid="stMetricValue"]')]
        .some(m => m.innerText.trim().endsWith(' of ' + total))) seen('headline');
  };
  new MutationObserver(check).observe(document.body, {subtree: true, childList: true, characterData: true});
}"""


def upload_once(page, path: Path, total_chunks: int) -> tuple[float, dict[str, float]]:
    """Seconds from choosing the file to its chart, and when each step showed (s after the choice)."""
    page.evaluate(UPLOAD_STEPS_JS, total_chunks)
    page.locator("[data-testid='stSidebar'] input[type='file']").set_input_files(str(path))
    started = time.monotonic()
    wait_for_chart(page, total_chunks)
    elapsed = time.monotonic() - started
    steps = page.evaluate("() => window.__rseSteps")
    return elapsed, {name: value / 1000 for name, value in steps.items() if name != "start"}


def measure_upload(root: Path, figures: Figures, browser, upload: tuple[bytes, int, Path], logs: Path, scorer) -> None:
    """The upload alone: a warm server (model loaded), a fresh tab, one upload to its chart, with a
    library run just before and just after it (the server idle), for a ratio on a machine whose
    load changes from minute to minute."""
    data, chunks, path = upload
    with server(root, logs) as (url, _spawned, pid):
        context = browser.new_context(viewport={"width": 1440, "height": 1000})
        first = context.new_page()
        first.goto(url)
        wait_for_chart(first)
        wait_until_idle(pid)
        first.close()
        page = context.new_page()
        page.goto(url)
        wait_for_chart(page, 125)
        page.wait_for_function(IDLE_JS, timeout=TIMEOUT_MS, polling=POLL_MS)
        page.wait_for_timeout(1000)
        before = library_run(data, scorer)
        browser_cpu, server_cpu = descendants_cpu_seconds(os.getpid(), "chromium"), cpu_seconds(pid)
        elapsed, steps = upload_once(page, path, 125 + chunks)
        steps["browser CPU"] = descendants_cpu_seconds(os.getpid(), "chromium") - browser_cpu
        steps["server CPU"] = cpu_seconds(pid) - server_cpu
        page.wait_for_function(IDLE_JS, timeout=TIMEOUT_MS, polling=POLL_MS)
        wait_until_idle(pid, at_least=1.0)
        after = library_run(data, scorer)
        figures.upload.append(elapsed)
        figures.upload_steps.append(steps)
        figures.library.extend((before, after))
        figures.upload_ratio.append(elapsed / ((before + after) / 2))
        print(
            f"    upload {elapsed:.2f} s (library {before:.2f} s before, {after:.2f} s after: "
            f"{figures.upload_ratio[-1]:.2f}x); steps: " + ", ".join(f"{k} {v:.2f}" for k, v in steps.items()),
            flush=True,
        )
        context.close()


def library_run(data: bytes, scorer) -> float:
    """Seconds for load + embed (no cache) + extract, as a script using the library does it."""
    from rse_core import RSEParams, extract, load_document

    scorer.cache._memory.clear()
    started = time.perf_counter()
    document = load_document(data, name="bench_upload.pdf")
    extract(document, "How often are valve positions adjusted?", RSEParams(), scorer=scorer)
    return time.perf_counter() - started


def import_time(root: Path) -> float:
    code = "import time; t = time.perf_counter(); import rse_core; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def measure(root: Path, figures: Figures, browser, upload: tuple[bytes, int, Path], quick: bool, logs: Path) -> None:
    """One full round on the checkout in ``root``: cold start, slider, upload, import."""
    figures.import_core.append(import_time(root))
    with server(root, logs) as (url, spawned, pid):
        context = browser.new_context(viewport={"width": 1440, "height": 1000})
        page = context.new_page()
        page.goto(url)
        wait_for_chart(page)
        figures.cold_start.append(time.monotonic() - spawned)
        page.wait_for_function(IDLE_JS, timeout=TIMEOUT_MS, polling=POLL_MS)
        figures.busy_after_start.append(wait_until_idle(pid))

        second = context.new_page()
        opened = time.monotonic()
        second.goto(url)
        wait_for_chart(second)
        figures.warm_tab.append(time.monotonic() - opened)
        second.close()

        settle(page)
        figures.slider_small.extend(slider_moves(page, 6 if quick else 12))

        _data, chunks, path = upload
        elapsed, steps = upload_once(page, path, 125 + chunks)
        figures.upload.append(elapsed)
        figures.upload_steps.append(steps)

        big = context.new_page()
        big.goto(url + BIG_VIEW)
        wait_for_chart(big, 535)
        settle(big)
        figures.slider_big.extend(slider_moves(big, 4 if quick else 8))

        compare = context.new_page()
        compare.goto(url + "/compare")
        wait_for_chart(compare)
        settle(compare)
        figures.slider_compare.extend(slider_moves(compare, 4 if quick else 8))
        context.close()


def summary(values: list[float], scale: float = 1.0, unit: str = "s") -> str:
    if not values:
        return "n/a"
    digits = 0 if unit == "ms" else 2
    median = statistics.median(values) * scale
    return f"median {median:.{digits}f} {unit}, max {max(values) * scale:.{digits}f} {unit} (n={len(values)})"


def report(new: Figures, base: Figures | None, ref: str) -> None:
    rows: list[tuple[str, Callable[[Figures], list[float]], float, str, str]] = [
        ("cold start: server spawn -> first chart", lambda f: f.cold_start, 1.0, "s", "<= 5 s median"),
        ("server busy after the first chart (background work)", lambda f: f.busy_after_start, 1.0, "s", ""),
        ("new tab on a warm server -> first chart", lambda f: f.warm_tab, 1.0, "s", "(for information)"),
        ("slider move -> chart redrawn, 125 chunks", lambda f: f.slider_small, 1.0, "ms", "<= 250 ms median"),
        ("slider move -> chart redrawn, 535 chunks", lambda f: f.slider_big, 1.0, "ms", "<= 400 ms median"),
        ("slider move -> chart redrawn, RSE vs top-k page", lambda f: f.slider_compare, 1.0, "ms", "(for information)"),
        ("upload 100-chunk PDF -> its chart (warm app)", lambda f: f.upload, 1.0, "s", "<= 1.2x library"),
        ("library: load + embed + extract, same PDF", lambda f: f.library, 1.0, "s", ""),
        ("import rse_core (fresh interpreter)", lambda f: f.import_core, 1.0, "s", "<= 0.4 s"),
    ]
    for name, pick, scale, unit, target in rows:
        print(f"{name}   target {target}" if target else name)
        print(f"    this checkout: {summary(pick(new), scale, unit)}")
        if base is not None:
            print(f"    {ref:<13}: {summary(pick(base), scale, unit)}")
            if pick(new) and pick(base):
                ratio = statistics.median(pick(new)) / statistics.median(pick(base))
                print(f"    ratio new / {ref}: {ratio:.2f}")
    for label, figures in (("this checkout", new), (ref, base)):
        if figures is not None and figures.upload_steps:
            names = dict.fromkeys(name for steps in figures.upload_steps for name in steps)
            medians = {
                name: statistics.median(steps[name] for steps in figures.upload_steps if name in steps)
                for name in names
            }
            print(
                f"upload steps, {label} (median s after the choice): "
                + ", ".join(f"{name} {value:.2f}" for name, value in medians.items())
            )
    for label, figures in (("this checkout", new), (ref, base)):
        if figures is not None and figures.upload_ratio:
            ratios = ", ".join(f"{ratio:.2f}" for ratio in figures.upload_ratio)
            print(
                f"upload / library runs beside it, {label}: median {statistics.median(figures.upload_ratio):.2f}x "
                f"({ratios})"
            )
    for label, figures in (("this checkout", new), (ref, base)):
        if figures is not None and figures.upload and figures.library:
            ratio = statistics.median(figures.upload) / statistics.median(figures.library)
            print(f"upload / library, {label}: {ratio:.2f}x (target <= 1.2x)")


def export_ref(ref: str, folder: Path) -> Path:
    """``git archive REF`` unpacked into ``folder`` (no worktree or branch is created)."""
    archive = subprocess.run(["git", "archive", ref], cwd=ROOT, capture_output=True, check=True).stdout
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline-ref", help="also measure this git ref (e.g. main), alternating")
    parser.add_argument("--rounds", type=int, default=2, help="full rounds per checkout (default 2)")
    parser.add_argument("--quick", action="store_true", help="one round, fewer slider moves")
    parser.add_argument("--only-upload", action="store_true", help="measure the upload alone (with its steps)")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from playwright.sync_api import sync_playwright

    from rse_core import get_scorer

    rounds = 1 if args.quick and not args.only_upload else args.rounds
    with tempfile.TemporaryDirectory(prefix="rse-bench-") as tmp:
        tmp_path = Path(tmp)
        data, chunks = upload_pdf()
        pdf_path = tmp_path / "bench_upload.pdf"
        pdf_path.write_bytes(data)
        scorer = get_scorer("minilm", disk_cache=False)
        scorer.score("warm up", [])  # load the model: the app under test is warm too
        checkouts: list[tuple[str, Path, Figures]] = [("this checkout", ROOT, Figures())]
        if args.baseline_ref:
            base_root = export_ref(args.baseline_ref, tmp_path / "baseline")
            checkouts.append((args.baseline_ref, base_root, Figures()))
        print(f"upload PDF: {chunks} chunks; {rounds} round(s) per checkout; logs in {tmp_path}", flush=True)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for number in range(rounds):
                order = checkouts if number % 2 == 0 else checkouts[::-1]
                for label, root, figures in order:
                    print(f"round {number + 1}: {label}", flush=True)
                    if args.only_upload:
                        measure_upload(root, figures, browser, (data, chunks, pdf_path), tmp_path, scorer)
                        continue
                    measure(root, figures, browser, (data, chunks, pdf_path), args.quick, tmp_path)
                    for _ in range(2):
                        figures.library.append(library_run(data, scorer))
            browser.close()
        base = checkouts[1][2] if len(checkouts) > 1 else None
        report(checkouts[0][2], base, args.baseline_ref or "")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
