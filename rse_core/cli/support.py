"""What every command line shares: one-line errors, exit status 2, a quiet broken pipe.

A command line's user sees stderr, often through a pipe or a log line: a traceback, or an error
split over two lines by a newline in a file name, is noise. Every failure is therefore printed as
one ``error: ...`` line and the process exits with status 2; a reader that stops early
(``| head``) ends the run quietly with status 0.

Golden-set ids, queries, file names and document text reach the terminal, and a raw escape
sequence in any of them could rewrite the screen or the window title; so everything printed goes
through :func:`terminal_safe` (or :func:`say`), which drops C0 and C1 control characters.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Sequence

EXIT_ERROR = 2
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""C0 controls but tab and line feed, DEL, and C1 controls (CSI, OSC... as single characters)."""


class OneLineParser(argparse.ArgumentParser):
    """argparse, with usage errors as one line (argparse prints the usage block too)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        fail(f"{message} (see {self.prog} --help)")


def terminal_safe(text: str) -> str:
    """``text`` without control characters other than ``\\n`` and ``\\t``: nothing in it can move
    the cursor, clear the screen, set the title or start an escape sequence."""
    return _CONTROL.sub("", text)


def json_terminal_safe(text: str) -> str:
    """JSON text with DEL and C1 controls written as ``\\u00XX`` escapes (``json.dumps`` escapes
    C0 already, but not these with ``ensure_ascii=False``): the same data, safe to print."""
    return _CONTROL.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def say(*parts: object, file=None, flush: bool = False) -> None:
    """``print`` for the command lines: the text made :func:`terminal_safe` first."""
    print(terminal_safe(" ".join(str(part) for part in parts)), file=file or sys.stdout, flush=flush)


def one_line(message: str) -> str:
    """``message`` without line breaks, control characters or undecodable characters, safe for any
    terminal."""
    message = message.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    message = message.replace("\u2028", " ").replace("\u2029", " ")
    return terminal_safe(message.encode("utf-8", "backslashreplace").decode("utf-8"))


def fail(message: str) -> None:
    """Print ``error: message`` on one line to stderr and exit with status 2."""
    print(f"error: {one_line(message)}", file=sys.stderr)
    raise SystemExit(EXIT_ERROR)


def run(main: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None = None) -> int:
    """Run a command's ``main`` so that no failure shows a traceback.

    ``RSEError`` and usage errors are handled by ``main`` (one line, status 2); here anything
    else (an OSError, a MemoryError, a bug) becomes one line too, and a closed stdout ends quietly.
    """
    try:
        code = main(argv)
        sys.stdout.flush()  # a closed pipe raises here, not at interpreter exit
        return code
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return EXIT_ERROR
    except SystemExit as exit_request:  # from fail() or argparse (--help exits 0): a status to return
        code = exit_request.code
        return 0 if code is None else code if isinstance(code, int) else EXIT_ERROR
    except Exception as error:  # last resort: say what happened in one line
        print(f"error: {one_line(f'{type(error).__name__}: {error}')}", file=sys.stderr)
        return EXIT_ERROR


def write_stdout(text: str) -> None:
    """Write ``text`` to stdout, :func:`terminal_safe`; characters its encoding cannot take are
    escaped, not fatal."""
    stream = sys.stdout
    encoding = getattr(stream, "encoding", None) or "utf-8"
    stream.write(terminal_safe(text).encode(encoding, "backslashreplace").decode(encoding))
    stream.flush()  # a closed pipe raises here, inside run(), not at interpreter exit


def _silence_stdout() -> None:
    """Point stdout at /dev/null: Python flushes it at exit and would complain again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
