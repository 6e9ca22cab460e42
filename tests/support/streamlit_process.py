"""A Streamlit server as a child process on a free loopback port, for the browser tests and
``bench/browser_speed.py``: start it, wait until it answers its health check, stop it after.

No pytest in here, so the bench can use it too.
"""

from __future__ import annotations

import contextlib
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
        process = subprocess.Popen(list(command), cwd=cwd, env=env, stdout=output, stderr=subprocess.STDOUT)
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
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
