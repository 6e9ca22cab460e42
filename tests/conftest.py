"""Shared by every test folder.

Tests mirror the package: ``core/`` (documents, chunking, scoring, values, search, pipeline, the
extract CLI), ``evaluation/``, ``teaching/``, ``figures/``, ``llm/``, ``app/`` (Streamlit's
AppTest), ``browser/`` (headless Chromium) and ``support/`` (fakes, factories, helpers; no tests).
"""

from __future__ import annotations

import contextlib
import os
import signal
import uuid
from pathlib import Path

import pytest


def pytest_collection_modifyitems(config, items):
    """Mark every test under ``browser/`` ``browser``, so ``-m "not browser"`` skips them all."""
    for item in items:
        if "tests/browser/" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.browser)


# --- No server outlives the test session ---------------------------------------------------------
# Every process this pytest starts inherits this marker in its environment; at the session's end
# any ``streamlit`` process still carrying it was left running by a test. It is reported, stopped,
# and the session fails, so a stray server on a port is a red run instead of a surprise later.
SESSION_MARKER = "RSE_PYTEST_SESSION"

# The app's worker processes (app_ui.worker_pool) are off unless a test asks for them: pages and
# servers started by tests embed and draw in their own process, as the app does with
# RSE_WORKER_PROCESSES=0. tests/app/test_worker_pool.py starts its own pools.
os.environ.setdefault("RSE_WORKER_PROCESSES", "0")

# The third-party documents are never shipped: the library reads them only from these variables.
# This checkout keeps them beside the project (../shared), so the tests that need them run here.
_SHARED = Path(__file__).resolve().parents[2] / "shared"
os.environ.setdefault("RSE_CORPUS_DIR", str(_SHARED / "corpus"))
os.environ.setdefault("RSE_FINANCEBENCH_DIR", str(_SHARED / "financebench"))


def pytest_configure(config):
    os.environ.setdefault(SESSION_MARKER, f"{os.getpid()}-{uuid.uuid4().hex[:12]}")


def pytest_sessionfinish(session, exitstatus):
    leftovers = leftover_servers(os.environ.get(SESSION_MARKER, ""))
    if not leftovers:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    lines = [f"  pid {pid}: {command}" for pid, command in leftovers]
    if reporter is not None:
        reporter.write_line("")
        reporter.write_line("FAILED: servers or workers left running by this test session (now stopped):", red=True)
        for line in lines:
            reporter.write_line(line, red=True)
    for pid, _ in leftovers:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


def leftover_servers(marker: str) -> list[tuple[int, str]]:
    """Live ``streamlit`` processes and worker processes (``multiprocessing``'s spawned children,
    as ``app_ui.worker_pool`` starts them) whose environment carries ``marker``: (pid, command line)."""
    if not marker:
        return []
    needle = f"{SESSION_MARKER}={marker}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            if state == "Z" or not any(b"streamlit" in part or b"spawn_main" in part for part in command):
                continue
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                found.append((int(entry.name), b" ".join(command).decode(errors="replace")[:200]))
        except OSError:  # exited meanwhile, or not ours to read
            continue
    return found
