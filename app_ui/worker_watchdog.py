"""A worker process ends when the server that started it ends, even a server killed with SIGKILL.

Why not the kernel's parent-death signal (Linux ``prctl(PR_SET_PDEATHSIG)``): it fires when the
*thread* that started the worker ends, not the process, and the pool starts its workers from a
session's script thread (or the model preload thread), which ends after every run. Measured: a
worker so armed was gone as soon as the thread that submitted its first task returned.

Instead a daemon thread in the worker waits on the pipe ``multiprocessing`` gives every child it
spawns (``multiprocessing.parent_process().sentinel``): only the server holds the other end, and
the kernel closes it when the server dies, however it dies, so the pipe reads end-of-file exactly
then. The thread ends the worker with ``os._exit`` (nothing to flush: a worker keeps no state the
next server needs). Waiting costs nothing (no polling), and it works wherever ``multiprocessing``
does; a process that was not started by ``multiprocessing`` has nothing to watch.

Limit: a task inside a C call that keeps the interpreter lock (PyMuPDF drawing a page) finishes
that call first, so a worker outlives its server by at most the rest of one task.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import threading

WATCHDOG_THREAD = "rse-server-watchdog"
SERVER_GONE_EXIT = 0  # nobody is left to read it


def exit_with_server() -> bool:
    """In a worker: end this process when its server ends; ``False`` when there is no server to watch."""
    server = multiprocessing.parent_process()
    if server is None:
        return False
    threading.Thread(target=_exit_when_closed, args=(server.sentinel,), name=WATCHDOG_THREAD, daemon=True).start()
    return True


def _exit_when_closed(sentinel: int) -> None:
    multiprocessing.connection.wait([sentinel])  # ready only at end-of-file: nothing is ever written to it
    os._exit(SERVER_GONE_EXIT)
