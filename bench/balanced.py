"""K app processes behind nginx (``deploy/nginx.conf``) on this machine, and the classroom against
them: how many students a machine holds when its cores are not shared by one Python process.

    .venv/bin/python bench/balanced.py --processes 2 --sessions 30 --seconds 60 --uploaders 10
    .venv/bin/python bench/balanced.py --processes 2 --check-pinning     # uploads through nginx

Every process is started in its own process group and stopped with it (servers and nginx alike).
Needs Debian's nginx (``apt-get install nginx``); nginx's own service need not run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.classroom import (  # noqa: E402
    QUERIES,
    SLIDER,
    UPLOADER,
    add_plan_arguments,
    emit,
    lecture_notes,
    own_server,
    plan_from,
    run_class,
)
from bench.stclient import StreamlitSession  # noqa: E402
from tests.support.streamlit_process import free_port, running_server  # noqa: E402

TEMPLATE = ROOT / "deploy" / "nginx.conf"


def nginx_config(prefix: Path, listen: str, upstreams: list[str]) -> str:
    """``deploy/nginx.conf`` with its placeholders filled."""
    servers = "\n        ".join(f"server {address};" for address in upstreams)
    text = TEMPLATE.read_text()
    return text.replace("@PREFIX@", str(prefix)).replace("@LISTEN@", listen).replace("@UPSTREAMS@", servers)


@contextlib.contextmanager
def balanced(processes: int, log_dir: Path) -> Iterator[tuple[str, list[int]]]:
    """Start ``processes`` app servers and nginx in front; yields (nginx URL, the servers' pids)."""
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        raise SystemExit("nginx is not installed (apt-get install nginx)")
    with contextlib.ExitStack() as stack:
        servers = [stack.enter_context(own_server(log_dir)) for _ in range(processes)]
        prefix = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="rse-nginx-")))
        prefix.chmod(0o755)
        for folder in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (prefix / folder).mkdir(mode=0o777)
        port = free_port()
        upstreams = [url.removeprefix("http://") for url, _ in servers]
        config = prefix / "nginx.conf"
        config.write_text(nginx_config(prefix, f"127.0.0.1:{port}", upstreams))
        url = f"http://127.0.0.1:{port}"
        command = [nginx, "-p", str(prefix), "-c", str(config), "-g", "daemon off;"]
        stack.enter_context(running_server(command, url=url, cwd=prefix, env={}, log=log_dir / "nginx.log"))
        yield url, [pid for _, pid in servers]


async def check_pinning(url: str, sessions: int) -> list[str]:
    """Each of ``sessions`` browsers opens, uploads and reruns through nginx; returns the problems."""

    async def one(number: int) -> str | None:
        session = StreamlitSession(url, timeout=180)
        try:
            await session.open()
            await session.upload(UPLOADER, f"pinned_{number}.txt", lecture_notes(number, 5))
            await session.set_slider(SLIDER, 0.3)
            await session.set_text("Query", QUERIES[number % len(QUERIES)])
            return None
        except Exception as error:  # reported, not raised: every session gets its say
            return f"session {number}: {error!r}"[:300]
        finally:
            await session.close()

    return [problem for problem in await asyncio.gather(*(one(n) for n in range(sessions))) if problem]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_plan_arguments(parser)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--check-pinning", action="store_true", help="only check that uploads reach their session")
    args = parser.parse_args()
    log_dir = ROOT / "bench" / "logs"
    log_dir.mkdir(exist_ok=True)
    with balanced(args.processes, log_dir) as (url, pids):
        if args.check_pinning:
            problems = asyncio.run(check_pinning(url, args.sessions))
            print(f"{args.sessions} sessions through nginx to {args.processes} processes: {len(problems)} problems")
            for problem in problems:
                print("  ", problem)
            raise SystemExit(1 if problems else 0)
        report = asyncio.run(run_class(url, pids, plan_from(args), settle=args.settle, processes=args.processes))
        emit(report, args.json)


if __name__ == "__main__":
    main()
