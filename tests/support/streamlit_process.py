"""A Streamlit server as a child process on a free loopback port, for the browser tests and
``bench/browser_speed.py``: start it, wait until it answers its health check, stop it after.

No pytest in here, so the bench can use it too.

A server runs in its own process group (``start_new_session``) and the whole group is stopped: a
wrapper such as ``strace`` would otherwise exit on SIGTERM and leave ``streamlit run`` serving on its
port after the tests. Every group started here is recorded in :data:`STARTED_GROUPS` so the test
session can check, at its end, that none outlived it (``tests/conftest.py``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path

# A drawn Plotly chart, in the page (``st.plotly_chart``) or in a same-origin frame (a live chart,
# ``app_ui.live_chart``): its SVG has a size and is not hidden (Streamlit draws a new chart hidden
# first). For Playwright's ``page.wait_for_function``.
CHART_DRAWN_JS = """() => [document, ...[...document.querySelectorAll('iframe')].map(f => f.contentDocument)]
  .filter(Boolean)
  .some(doc => [...doc.querySelectorAll('.js-plotly-plot .main-svg')]
    .some(svg => svg.getBoundingClientRect().width > 0 && getComputedStyle(svg).visibility !== 'hidden'))"""


# Process group ids of the servers started by this process, for the session-end check.
STARTED_GROUPS: list[int] = []


class ServerStartError(RuntimeError):
    """The server exited, or did not answer its health check in time."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def streamlit_command(port: int, app: str | Path = "app.py") -> list[str]:
    """``streamlit run`` headless on 127.0.0.1 without telemetry or a file watcher."""
    return [
        sys.executable, "-m", "streamlit", "run", str(app), "--server.address", "127.0.0.1",
        "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false",
        "--server.fileWatcherType", "none",
    ]  # fmt: skip


@contextlib.contextmanager
def running_server(
    command: Sequence[str], *, url: str, cwd: Path, env: dict[str, str], log: Path, timeout: float = 120
) -> Iterator[subprocess.Popen]:
    """Run ``command`` (its output to ``log``) until it answers ``url``'s health check; stop it on exit.

    Raises:
        ServerStartError: it exited or did not answer within ``timeout`` seconds.
    """
    with log.open("w") as output:
        process = subprocess.Popen(
            list(command), cwd=cwd, env=env, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        )
        STARTED_GROUPS.append(process.pid)  # its own group: group id == its pid
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                        if response.status == 200:
                            break
                except OSError:
                    if time.monotonic() > deadline or process.poll() is not None:
                        raise ServerStartError(f"streamlit did not start; see {log}") from None
                    time.sleep(0.05)
            yield process
        finally:
            stop_group(process)


def group_alive(group: int) -> bool:
    """Whether any process of this process group is still running (zombies count as gone)."""
    return bool(group_members(group))


def group_members(group: int) -> list[int]:
    """Pids of the live (not zombie) processes of a process group, read from ``/proc``."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # exited meanwhile
            continue
        state, pgrp = fields[0], int(fields[2])
        if pgrp == group and state != "Z":
            members.append(int(entry.name))
    return members


def stop_group(process: subprocess.Popen, timeout: float = 15) -> None:
    """SIGTERM the process's whole group, SIGKILL what is left after ``timeout`` seconds, reap it."""
    group = process.pid
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while group_alive(group) and time.monotonic() < deadline:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=0.1)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)
