"""A classroom against the real server: N students at once, each a websocket session
(``bench/stclient.py``), moving a slider every 2-4 s, sometimes asking a new query or switching
page, some uploading a text; reports p50/p95 per kind of rerun, errors, server CPU and RSS before,
at the peak, and after the sessions end.

Why a protocol client and not N browsers: 100 Chromiums would need more CPU than the server under
test; the server cannot tell this client from a browser (same messages, same HTTP upload).

    .venv/bin/python bench/classroom.py --sessions 10 --seconds 60           # starts its own server
    .venv/bin/python bench/classroom.py --sessions 30 --url http://127.0.0.1:8080 --pids 123,456
    .venv/bin/python bench/balanced.py --processes 2 --sessions 30            # behind nginx

Every loop is bounded: each student stops at ``--seconds`` (and after ``--max-actions``), and a run
that takes longer than ``--timeout`` counts as an error.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.stclient import ProtocolError, RunTiming, StreamlitSession  # noqa: E402

SLIDER = "Irrelevant chunk penalty"
QUERY = "Query"
UPLOADER = "Upload PDFs or text files"
PAGES = ("compare", "")  # "" is the default page, Explore
QUERIES = (
    "Which risks does the company name for next year?",
    "How did revenue change?",
    "What is measured in the experiments?",
    "Who is on the board?",
    "What does the warranty cover?",
    "How is the pump maintained?",
)
TOPICS = ("glaciers", "krill", "penguins", "sea ice", "whales", "ocean currents", "seals", "albatross")


@dataclass(frozen=True)
class ClassPlan:
    """What the class does: how many students, for how long, and how often each kind of action."""

    sessions: int
    seconds: float = 60.0
    uploaders: int = 0  # the first this many students each upload one text
    upload_kb: int = 100
    query_share: float = 0.1
    page_share: float = 0.1
    max_actions: int = 200  # per student, a bound besides the time
    timeout: float = 120.0
    seed: int = 23


@dataclass
class Student:
    """One student's timings and errors."""

    number: int
    uploader: bool
    timings: list[RunTiming] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def lecture_notes(student: int, kilobytes: int) -> bytes:
    """A text of about ``kilobytes`` KB, different per student (the same bytes would share a doc id)."""
    rng = random.Random(student)
    parts, size = [], 0
    while size < kilobytes * 1024:
        topic = rng.choice(TOPICS)
        line = f"## Note {len(parts)} by student {student}\n\nObservations on {topic}: " + " ".join(
            rng.choice(TOPICS) for _ in range(60)
        )
        parts.append(line)
        size += len(line) + 2
    return "\n\n".join(parts).encode()


async def attend(url: str, student: Student, plan: ClassPlan, start_gate: float) -> None:
    """One student: open the app, then act every 2-4 s until the lesson is over."""
    rng = random.Random(plan.seed * 1000 + student.number)
    session = StreamlitSession(url, timeout=plan.timeout)
    await asyncio.sleep(max(0.0, start_gate - time.monotonic()) + rng.uniform(0, 3))  # students arrive over 3 s
    end = time.monotonic() + plan.seconds
    upload_at = time.monotonic() + rng.uniform(5, max(6.0, plan.seconds / 2)) if student.uploader else None
    try:
        student.timings.append(await session.open())
        page = ""
        for _ in range(plan.max_actions):
            await asyncio.sleep(rng.uniform(2, 4))
            if time.monotonic() > end:
                break
            try:
                if upload_at is not None and time.monotonic() >= upload_at:
                    upload_at = None
                    notes = lecture_notes(student.number, plan.upload_kb)
                    student.timings.append(await session.upload(UPLOADER, f"notes_{student.number}.txt", notes))
                    continue
                roll = rng.random()
                if roll < plan.page_share:
                    page = PAGES[0] if page == PAGES[1] else PAGES[1]
                    student.timings.append(await session.switch_page(page))
                elif roll < plan.page_share + plan.query_share:
                    student.timings.append(await session.set_text(QUERY, rng.choice(QUERIES)))
                else:
                    value = rng.choice([0.1, 0.15, 0.2, 0.25, 0.3])
                    student.timings.append(await session.set_slider(SLIDER, value))
            except ProtocolError as error:
                student.errors.append(str(error)[:200])
                if "connection" in str(error):
                    break
    except (TimeoutError, ProtocolError, OSError) as error:
        student.errors.append(f"open: {error!r}"[:200])
    finally:
        with contextlib.suppress(Exception):
            await session.close()


# --- the server's side: CPU and memory, read from /proc --------------------------------------------


def with_workers(pids: Sequence[int]) -> list[int]:
    """``pids`` and every live process they started, down the tree: the app's worker processes
    (``app_ui.worker_pool``) embed and draw for the server, so their CPU and memory are the server's."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], list(pids)
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


def rss_mb(pids: Sequence[int]) -> float:
    """Resident memory of the servers and their workers."""
    total = 0
    for pid in with_workers(pids):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total / 1024


def cpu_seconds(pids: Sequence[int]) -> float:
    """CPU of the servers and their workers (live ones, and those that ended and were waited for)."""
    total = 0.0
    for pid in with_workers(pids):
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(field) for field in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    return total


async def until_quiet(pids: Sequence[int], most: float = 90.0) -> None:
    """Wait (at most ``most`` s) until the servers use under a tenth of a core over 2 s: the model
    preload (in the server and in its embedding worker) has ended, so "before" counts it."""
    deadline = time.monotonic() + most
    while time.monotonic() < deadline:
        before = cpu_seconds(pids)
        await asyncio.sleep(2.0)
        if cpu_seconds(pids) - before < 0.2:
            return


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


@dataclass
class KindStats:
    kind: str
    count: int
    p50: float
    p95: float
    max: float


@dataclass
class Report:
    """A class's numbers, for a table in docs/speed.md."""

    sessions: int
    processes: int
    seconds: float
    stats: list[KindStats]
    errors: list[str]
    exceptions: int
    error_alerts: int
    rss_before_mb: float
    rss_peak_mb: float
    rss_after_mb: float
    rss_after_visit_mb: float
    server_cpu_s: float
    reruns: int
    load_before: str
    load_after: str
    client_cpu_s: float  # this bench's own CPU: it shares the machine's cores with the server

    def table(self) -> str:
        lines = [
            f"N={self.sessions} sessions, {self.processes} process(es), {self.seconds:.0f} s; "
            f"load average before {self.load_before}, after {self.load_after}",
            "| kind | count | p50 s | p95 s | max s |",
            "|---|---:|---:|---:|---:|",
        ]
        lines += [f"| {s.kind} | {s.count} | {s.p50:.2f} | {s.p95:.2f} | {s.max:.2f} |" for s in self.stats]
        lines.append(
            f"errors {len(self.errors)} (exceptions drawn {self.exceptions}, error messages {self.error_alerts}); "
            f"server CPU {self.server_cpu_s:.1f} s for {self.reruns} reruns "
            f"({self.server_cpu_s / max(self.reruns, 1):.2f} s each), bench client CPU {self.client_cpu_s:.1f} s; "
            f"RSS before {self.rss_before_mb:.0f} MB, peak {self.rss_peak_mb:.0f} MB, "
            f"after {self.rss_after_mb:.0f} MB, after one more visitor {self.rss_after_visit_mb:.0f} MB"
        )
        lines += [f"  error: {error}" for error in self.errors[:10]]
        return "\n".join(lines)


def percentile(values: list[float], share: float) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(share * 100) - 1]


def summarise(students: list[Student]) -> list[KindStats]:
    by_kind: dict[str, list[float]] = {}
    for student in students:
        for timing in student.timings:
            by_kind.setdefault(timing.kind, []).append(timing.seconds)
            if timing.kind == "slider" and not student.uploader:
                by_kind.setdefault("slider (bystander)", []).append(timing.seconds)
    return [
        KindStats(kind, len(values), percentile(values, 0.5), percentile(values, 0.95), max(values))
        for kind, values in sorted(by_kind.items())
    ]


async def _sample_peak(pids: Sequence[int], peak: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        peak[0] = max(peak[0], rss_mb(pids))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.5)


async def warm_up(url: str, timeout: float) -> None:
    """One session doing each thing once, so the class is measured against a loaded server (models,
    shared caches), as a class meets a server its teacher has opened."""
    session = StreamlitSession(url, timeout=timeout)
    try:
        await session.open()
        await session.set_slider(SLIDER, 0.25)
        await session.set_text(QUERY, QUERIES[0])
        await session.upload(UPLOADER, "warmup.txt", lecture_notes(999, 20))
        await session.switch_page("compare")
        await session.switch_page("")
    finally:
        await session.close()


async def slider_cpu(url: str, pids: Sequence[int], moves: int, timeout: float) -> tuple[float, float]:
    """(server CPU s, wall s) per slider rerun of one session alone: the cost a class multiplies."""
    await warm_up(url, timeout)
    await until_quiet(pids)  # the model preload, in the server and its worker, is not a slider's cost
    session = StreamlitSession(url, timeout=timeout)
    try:
        await session.open()
        cpu, wall = cpu_seconds(pids), 0.0
        for move in range(moves):
            wall += (await session.set_slider(SLIDER, (0.1, 0.3)[move % 2])).seconds
        return (cpu_seconds(pids) - cpu) / moves, wall / moves
    finally:
        await session.close()


async def run_class(url: str, pids: Sequence[int], plan: ClassPlan, *, settle: float, processes: int = 1) -> Report:
    """Warm up, measure RSS, run the class, then wait ``settle`` s for the sessions to be dropped."""
    # Behind a balancer each session lands on a process by a random cookie: 4 per process warm
    # every one of them but with odds of 1 in 2**7 (two processes).
    for _ in range(4 if processes > 1 else 1):
        await asyncio.gather(*(warm_up(url, plan.timeout) for _ in range(processes)))
    await asyncio.sleep(settle)
    await until_quiet(pids)
    rss_before, load_before, cpu_before = rss_mb(pids), load_average(), cpu_seconds(pids)
    students = [Student(number, number < plan.uploaders) for number in range(plan.sessions)]
    peak, stop = [rss_before], asyncio.Event()
    sampler = asyncio.create_task(_sample_peak(pids, peak, stop))
    gate = time.monotonic() + 0.5
    client_before = resource.getrusage(resource.RUSAGE_SELF)
    await asyncio.gather(*(attend(url, student, plan, gate) for student in students))
    cpu = cpu_seconds(pids) - cpu_before
    client_after = resource.getrusage(resource.RUSAGE_SELF)
    client_cpu = (client_after.ru_utime + client_after.ru_stime) - (client_before.ru_utime + client_before.ru_stime)
    stop.set()
    await sampler
    load_after = load_average()
    await asyncio.sleep(settle)  # a closed session is kept server.disconnectedSessionTTL s for a reconnect
    rss_after = rss_mb(pids)
    # Streamlit drops expired sessions (and their uploads) only on its session store's next write,
    # e.g. the next disconnect: one visitor per process comes and goes, then the same wait.
    for _ in range(max(processes, 1) * 2):
        visitor = StreamlitSession(url, timeout=plan.timeout)
        with contextlib.suppress(Exception):
            await visitor.open()
        await visitor.close()
    await asyncio.sleep(settle)
    return Report(
        sessions=plan.sessions,
        processes=processes,
        seconds=plan.seconds,
        stats=summarise(students),
        errors=[f"student {s.number}: {e}" for s in students for e in s.errors],
        exceptions=sum(t.exceptions for s in students for t in s.timings),
        error_alerts=sum(t.error_alerts for s in students for t in s.timings),
        rss_before_mb=rss_before,
        rss_peak_mb=peak[0],
        rss_after_mb=rss_after,
        rss_after_visit_mb=rss_mb(pids),
        server_cpu_s=cpu,
        reruns=sum(len(s.timings) for s in students),
        load_before=load_before,
        load_after=load_after,
        client_cpu_s=client_cpu,
    )


# --- running it ------------------------------------------------------------------------------------

SESSION_TTL = 10  # s; Streamlit's default is 120 (a dropped connection may come back to its session)


def server_args() -> list[str]:
    """Extra ``streamlit run`` options for a measured server: closed sessions dropped after 10 s,
    so "after" is measured within a bench run rather than two minutes later."""
    return ["--server.disconnectedSessionTTL", str(SESSION_TTL)]


@contextlib.contextmanager
def own_server(log_dir: Path, port: int | None = None) -> Iterator[tuple[str, int]]:
    """``streamlit run app.py`` on a loopback port in its own process group; yields (URL, pid)."""
    from tests.support.streamlit_process import free_port, running_server, streamlit_command

    port = port or free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    command = streamlit_command(port, ROOT / "app.py") + server_args()
    with running_server(command, url=url, cwd=ROOT, env=env, log=log_dir / f"server-{port}.log") as process:
        yield url, process.pid


def plan_from(args: argparse.Namespace) -> ClassPlan:
    return ClassPlan(
        sessions=args.sessions,
        seconds=args.seconds,
        uploaders=args.uploaders,
        upload_kb=args.upload_kb,
        timeout=args.timeout,
    )


def add_plan_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--uploaders", type=int, default=0, help="how many students upload a text")
    parser.add_argument("--upload-kb", type=int, default=100)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--settle", type=float, default=SESSION_TTL + 10, help="s to wait before measuring RSS")
    parser.add_argument("--json", type=Path, help="also write the report here")


def emit(report: Report, path: Path | None) -> None:
    print(report.table(), flush=True)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as out:
            out.write(json.dumps(asdict(report)) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_plan_arguments(parser)
    parser.add_argument("--url", help="a running server (or load balancer); else one is started")
    parser.add_argument("--pids", default="", help="the server processes to measure, comma-separated")
    parser.add_argument("--slider-cpu", type=int, metavar="MOVES", help="only: server CPU per slider rerun, alone")
    args = parser.parse_args()
    plan = plan_from(args)
    if args.url:
        pids = [int(pid) for pid in args.pids.split(",") if pid]
        emit(asyncio.run(run_class(args.url, pids, plan, settle=args.settle, processes=len(pids))), args.json)
        return
    log_dir = ROOT / "bench" / "logs"
    log_dir.mkdir(exist_ok=True)
    with own_server(log_dir) as (url, pid):
        if args.slider_cpu:
            cpu, wall = asyncio.run(slider_cpu(url, [pid], args.slider_cpu, args.timeout))
            print(f"slider rerun alone: server CPU {cpu:.3f} s, wall {wall:.3f} s (load average {load_average()})")
            return
        emit(asyncio.run(run_class(url, [pid], plan, settle=args.settle)), args.json)


if __name__ == "__main__":
    main()
