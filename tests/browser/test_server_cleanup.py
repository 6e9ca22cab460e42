"""Tests stop what they start: a server behind a wrapper (``strace``, a shell) is stopped with its
whole process group, and the session-end check finds a server a test left behind.

No browser needed; fast (a stdlib HTTP server stands in for Streamlit).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from tests.conftest import SESSION_MARKER, leftover_servers
from tests.support.streamlit_process import free_port, group_alive, running_server


def test_a_wrapped_server_is_stopped_with_its_whole_group(tmp_path):
    health = tmp_path / "www" / "_stcore"
    health.mkdir(parents=True)
    (health / "health").write_text("ok")
    port = free_port()
    server = f"{sys.executable} -m http.server {port} --bind 127.0.0.1 --directory {tmp_path / 'www'}"
    # Like strace: the wrapper exits on SIGTERM, and its child would be left serving.
    wrapper = ["sh", "-c", f"trap 'exit 0' TERM; {server} & wait"]
    with running_server(wrapper, url=f"http://127.0.0.1:{port}", cwd=tmp_path, env=dict(os.environ),
                        log=tmp_path / "server.log", timeout=30) as process:  # fmt: skip
        group = process.pid
        assert group_alive(group)
    assert not group_alive(group), "a process of the server's group outlived running_server"


def test_the_session_end_check_finds_a_streamlit_process_left_running():
    marker = os.environ[SESSION_MARKER]  # set by tests/conftest.py for everything this pytest starts
    stray = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "streamlit", "run"])
    try:
        deadline = time.monotonic() + 10
        while stray.pid not in [pid for pid, _ in leftover_servers(marker)] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert stray.pid in [pid for pid, _ in leftover_servers(marker)]
    finally:
        stray.kill()
        stray.wait(timeout=10)
    assert stray.pid not in [pid for pid, _ in leftover_servers(marker)]
