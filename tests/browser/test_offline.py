"""Zero network: a whole session (app server, browser, CLI) makes no outbound connection attempt.

Three independent witnesses:
- ``tests/support/network_guard/sitecustomize.py`` in the server and CLI processes refuses and logs any
  non-loopback DNS lookup or connect made from Python (e.g. Streamlit's external-IP look-up);
- ``strace`` (when installed) logs every connect/sendto of the server and the CLI, native code
  included (e.g. onnxruntime's telemetry, which would look up and contact a Microsoft host);
- the browser logs every request the page makes (e.g. a ``:material/...:`` page icon is fetched
  from a font CDN).
The app runs as the README says (``streamlit run app.py``, the project's ``.streamlit/config.toml``,
no ``--server.address``), with a fresh ``HOME`` so a telemetry cache folder would show up there.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.pdf_factory import make_pdf
from tests.support.streamlit_process import free_port, group_alive, running_server

from .conftest import CHROMIUM, ROOT, screenshot, wait_for_app, wait_for_value_chart

pytestmark = [pytest.mark.browser, pytest.mark.slow]

GUARD = ROOT / "tests" / "support" / "network_guard"
TIMEOUT = 240_000
SIDEBAR = "[data-testid='stSidebar']"
LOOPBACK = re.compile(r'inet_addr\("127\.|inet_pton\(AF_INET6, "::1"|inet_pton\(AF_INET6, "::ffff:127\.')


def guarded_env(tmp_path: Path, log: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(GUARD), str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "RSE_NETWORK_LOG": str(log),
        "RSE_CACHE_DIR": str(tmp_path / "rse-cache"),
        "HOME": str(home),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }


def traced(command: list[str], trace: Path) -> list[str]:
    """``command`` under strace (connect and send calls of every thread and child), if installed."""
    strace = shutil.which("strace")
    if strace is None:
        return command
    return [strace, "-f", "-qq", "-e", "trace=connect,sendto,sendmsg", "-e", "signal=none", "-o", str(trace), *command]


def outbound_calls(trace: Path) -> list[str]:
    """System calls that reach past loopback, or ask a name server (port 53) anything."""
    if not trace.exists():
        return []
    calls = []
    for line in trace.read_text(errors="replace").splitlines():
        if "AF_INET" not in line:
            continue
        if "htons(53)" in line or not LOOPBACK.search(line):
            calls.append(line)
    return calls


def test_a_whole_session_and_the_cli_stay_on_this_machine(browser, tmp_path):
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    log = tmp_path / "network.log"
    env = guarded_env(tmp_path, log)
    port = free_port()
    server_trace = tmp_path / "server.strace"
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)]  # as the README
    url = f"http://127.0.0.1:{port}"
    requests: list[str] = []
    server = running_server(traced(command, server_trace), url=url, cwd=ROOT, env=env, log=tmp_path / "server.log")
    with server as process:  # its own process group, stopped whole: strace and its streamlit child
        context = browser.new_context(viewport={"width": 1440, "height": 1200})
        page = context.new_page()
        page.on("request", lambda request: requests.append(request.url))
        page.goto(url)
        wait_for_app(page, TIMEOUT)
        wait_for_value_chart(page, TIMEOUT)

        slider = page.locator(f"{SIDEBAR} input[type='range'][aria-label='Irrelevant chunk penalty']")
        slider.focus()
        slider.press("ArrowRight")
        page.wait_for_timeout(500)
        wait_for_app(page, TIMEOUT)

        box = page.locator(f"{SIDEBAR} textarea[aria-label='Query']")  # a new query needs the model
        box.fill("Which risks does the company name for next year?")
        box.press("Control+Enter")
        page.wait_for_timeout(500)
        wait_for_app(page, TIMEOUT)

        pdf = tmp_path / "offline_upload.pdf"
        pdf.write_bytes(make_pdf(["The pump moves coolant through the loop. " * 30, "Valves open at noon. " * 30]))
        page.locator(f"{SIDEBAR} input[type='file']").set_input_files(str(pdf))
        page.wait_for_timeout(500)
        wait_for_app(page, TIMEOUT)
        page.get_by_text("offline_upload").first.wait_for(timeout=TIMEOUT)
        assert page.locator("[data-testid='stException']").count() == 0
        screenshot(page, "offline_session")
        context.close()
    assert not group_alive(process.pid), "the server (strace's child) outlived the test"

    cli_trace = tmp_path / "cli.strace"
    cli = subprocess.run(
        traced(
            [sys.executable, "-m", "rse_core", "sample_docs/tech_report.pdf", "-q", "What is measured?", "--json"],
            cli_trace,
        ),
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert cli.returncode == 0, cli.stderr
    assert cli.stderr == ""  # no model-loading bars without --verbose

    foreign = [address for address in requests if not address.startswith(url)]
    assert foreign == [], f"the page fetched from elsewhere: {foreign[:5]}"
    assert not log.exists(), f"refused lookups/connections from Python: {log.read_text()}"
    assert outbound_calls(server_trace) == [], outbound_calls(server_trace)[:5]
    assert outbound_calls(cli_trace) == [], outbound_calls(cli_trace)[:5]
    assert not (tmp_path / "home" / ".cache" / "Microsoft").exists(), "onnxruntime telemetry was set up"
