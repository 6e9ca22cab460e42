"""A killed server leaves nothing behind: its worker processes end with it
(``app_ui.worker_watchdog``) and its users' session folders are removed at the next start
(``app_ui.session_folders``), while another live server's folder is never touched.

The servers here are real processes killed with SIGKILL (nothing of theirs runs at exit): a small
Python process using the pool, a process holding a folder, and the app itself (``streamlit run``).
Waits are bounded and generous; nothing here measures time.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from app_ui import session_folders
from tests.support.streamlit_process import free_port, running_server, streamlit_command

ROOT = Path(__file__).resolve().parents[2]
WAIT = 60.0  # seconds at most for a process to go or a file to appear, on a loaded machine


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended; only its parent's reaping is left


def _descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (children, their children ...), from ``/proc``."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return [child for child in found if _alive(child)]


def _wait_for(condition: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


@contextlib.contextmanager
def _python(script: str, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen]:
    """``script`` in its own process group (its first line of output read by the test), the whole
    group killed after the test whatever happened."""
    process = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        yield process
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)


# --- workers -------------------------------------------------------------------------------------


def test_a_worker_ends_when_its_server_is_killed_though_the_thread_that_started_it_ended_long_before():
    """The pool starts workers from a session's script thread, which ends after each run: the
    worker must outlive that thread (a parent-death signal would kill it then) and not the server."""
    server = """
        import sys
        import threading
        from app_ui.worker_pool import PoolSettings, WorkerPool
        from tests.support import worker_tasks

        pool = WorkerPool(PoolSettings(processes=1, timeout=120, nice=0))
        run = threading.Thread(target=lambda: print(pool.run(worker_tasks.pid, what="a test"), flush=True))
        run.start()
        run.join()
        sys.stdin.read()  # serve until killed
    """
    with _python(server) as process:
        worker = int(process.stdout.readline())
        time.sleep(1)  # the thread that started the worker has ended; a parent-death signal would have fired by now
        assert _alive(worker), "the worker died with the thread that started it"
        assert worker in _descendants(process.pid)
        left = _descendants(process.pid)  # the worker and multiprocessing's resource tracker
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        assert _wait_for(lambda: not any(_alive(pid) for pid in left)), "a worker outlived its killed server"


# --- session folders -----------------------------------------------------------------------------

HOLD_A_FOLDER = """
    import sys
    from app_ui import session_folders

    folder = session_folders.new_session_folder("rse-kb-session-")
    (folder / "upload.pdf").write_bytes(b"a user's file")
    print(folder, flush=True)
    sys.stdin.read()  # serve until stdin closes (then a normal exit) or it is killed
"""


def test_a_killed_server_s_session_folders_go_at_the_next_start_and_a_live_server_s_stay(tmp_path):
    root = tmp_path / "sessions"
    env = {session_folders.ROOT_ENV: str(root)}
    with _python(HOLD_A_FOLDER, env) as killed, _python(HOLD_A_FOLDER, env) as live:
        killed_upload = Path(killed.stdout.readline().strip()) / "upload.pdf"
        live_upload = Path(live.stdout.readline().strip()) / "upload.pdf"
        killed.send_signal(signal.SIGKILL)
        killed.wait(timeout=30)
        assert killed_upload.is_file()  # nothing ran at its death

        assert session_folders.remove_dead_servers_folders(root) == 1  # what the next server does at its start
        assert not killed_upload.parent.parent.exists()
        assert live_upload.read_bytes() == b"a user's file"

        live.stdin.close()  # a normal exit removes its own folder
        assert live.wait(timeout=30) == 0
        assert not live_upload.parent.parent.exists()


def test_servers_starting_and_sweeping_at_once_never_remove_each_other_s_folders(tmp_path):
    """Each of four processes claims a folder, puts a file in it and sweeps the shared root, many
    times over, while the others do the same: every sweep finds every live folder whole."""
    claim_and_sweep = f"""
        from pathlib import Path
        from app_ui import session_folders

        root = Path({str(tmp_path)!r})
        for turn in range(40):
            own = session_folders.claim_folder(root)
            (own.path / "upload.pdf").write_bytes(b"x")
            session_folders.remove_dead_servers_folders(root)
            assert (own.path / "upload.pdf").read_bytes() == b"x", "a live server's file was removed"
            session_folders.release(own)
        print("done", flush=True)
    """
    with contextlib.ExitStack() as stack:
        servers = [stack.enter_context(_python(claim_and_sweep)) for _ in range(4)]
        outputs = [server.communicate(timeout=WAIT)[0] for server in servers]
    assert outputs == ["done\n"] * 4
    assert not list(tmp_path.iterdir())


def test_a_folder_without_a_lock_is_removed_only_when_empty(tmp_path):
    """A server makes its folder before it locks it; a sweep in between may take only an empty folder
    (the server then makes another), never one with files in it."""
    being_made = tmp_path / f"{session_folders.SERVER_PREFIX}1-a"
    being_made.mkdir()
    odd = tmp_path / f"{session_folders.SERVER_PREFIX}2-b"
    odd.mkdir()
    (odd / "upload.pdf").write_bytes(b"x")
    not_ours = tmp_path / "something-else"
    not_ours.mkdir()

    assert session_folders.remove_dead_servers_folders(tmp_path) == 0
    assert not being_made.exists() and (odd / "upload.pdf").exists() and not_ours.exists()


def test_this_server_s_own_folder_is_never_taken_for_a_dead_one(tmp_path):
    own = session_folders.claim_folder(tmp_path)
    try:
        (own.path / "upload.pdf").write_bytes(b"x")
        assert session_folders.remove_dead_servers_folders(tmp_path) == 0
        assert (own.path / "upload.pdf").exists()
    finally:
        session_folders.release(own)
    assert not own.path.exists()


def test_a_root_that_is_a_link_is_not_used(tmp_path, monkeypatch):
    """The default root sits in the shared temporary folder: a link planted under its name is refused."""
    target = tmp_path / "elsewhere"
    target.mkdir()
    (tmp_path / "root").symlink_to(target)
    monkeypatch.setenv(session_folders.ROOT_ENV, str(tmp_path / "root"))
    root = session_folders.session_root()
    try:
        assert root.resolve() != target.resolve() and root.is_dir() and not root.is_symlink()
    finally:
        root.rmdir()


# --- the app -------------------------------------------------------------------------------------


def test_a_killed_app_server_leaves_no_process_and_its_users_files_go_at_the_next_start(tmp_path):
    """``streamlit run app.py`` with one worker per pool, a session opened (its first run starts a
    worker), SIGKILL: every process it started ends, and the next server removes its folder."""
    from bench.stclient import StreamlitSession

    root = tmp_path / "sessions"
    env = {
        **os.environ,
        "RSE_WORKER_PROCESSES": "1",
        session_folders.ROOT_ENV: str(root),
        "RSE_CACHE_DIR": str(tmp_path / "cache"),
        "HF_HUB_OFFLINE": "1",
    }

    async def session_opened(url: str) -> None:
        session = StreamlitSession(url)
        try:
            assert (await session.open()).exceptions == 0
        finally:
            await session.close()

    def open_session(url: str) -> None:
        # In a thread of its own: Playwright's sync API, used by the browser tests of the same
        # pytest process, leaves an event loop running in this one.
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, session_opened(url)).result()

    def server_folder(pid: int) -> Path | None:
        return next(iter(root.glob(f"{session_folders.SERVER_PREFIX}{pid}-*")), None)

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = streamlit_command(port, ROOT / "app.py")
    with running_server(command, url=url, cwd=ROOT, env=env, log=tmp_path / "killed.log") as killed:
        open_session(url)
        assert _wait_for(lambda: any(b"spawn_main" in _command(pid) for pid in _descendants(killed.pid)))
        left = _descendants(killed.pid)  # its workers and multiprocessing's resource tracker
        folder = server_folder(killed.pid)
        assert folder is not None
        upload = folder / "rse-kb-session-test" / "upload.pdf"  # where a session's uploads go
        upload.parent.mkdir()
        upload.write_bytes(b"a user's file")
        killed.send_signal(signal.SIGKILL)
        killed.wait(timeout=30)
        assert _wait_for(lambda: not any(_alive(pid) for pid in left)), "a process outlived its killed server"
        assert upload.exists()

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = streamlit_command(port, ROOT / "app.py")
    with running_server(command, url=url, cwd=ROOT, env=env, log=tmp_path / "next.log") as following:
        open_session(url)
        assert server_folder(following.pid) is not None
        assert not folder.exists()


def _command(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""
