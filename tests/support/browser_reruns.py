"""AppTest reruns sent as a browser sends them, for tests and ``bench/slider_rerun.py``.

Only Streamlit is imported here, so the bench can load this file to drive another checkout.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator

from streamlit.testing.v1 import AppTest, local_script_runner


class BrowserReruns:
    """AppTest reruns sent the way a browser sends them: a widget drawn inside a fragment names its
    fragment, and the server reruns only that fragment.

    AppTest itself always asks for a full run. This reads each run's messages (a widget's
    fragment is on the delta that drew it) and, for :meth:`run`, puts that fragment's id on the
    rerun request, as the browser's ``fragment_id`` does. Use it through :func:`browser_reruns`.
    After a fragment run, the AppTest holds only the fragment's elements (the browser keeps the
    rest on screen).
    """

    def __init__(self) -> None:
        self.messages: list = []  # the last run's ForwardMsgs
        self._fragment: str = ""

    def fragment_of(self, widget) -> str:
        """The id of the fragment that drew ``widget`` in the last run ("" if none)."""
        for message in self.messages:
            if not (message.HasField("delta") and message.delta.HasField("new_element")):
                continue
            element = message.delta.new_element
            kind = element.WhichOneof("type")
            if kind and getattr(getattr(element, kind), "id", None) == widget.id:
                return message.delta.fragment_id
        raise LookupError(f"no element with id {widget.id!r} in the last run")

    def run(self, widget) -> AppTest:
        """``widget.run()`` as the browser sends it (a fragment rerun if the widget is in one)."""
        self._fragment = self.fragment_of(widget)
        try:
            return widget.run()
        finally:
            self._fragment = ""


@contextlib.contextmanager
def browser_reruns() -> Iterator[BrowserReruns]:
    """Patch AppTest's script runner for :class:`BrowserReruns` while the block runs."""
    runner = local_script_runner.LocalScriptRunner
    reruns = BrowserReruns()
    forward_msgs, request_rerun = runner.forward_msgs, runner.request_rerun

    def keep_messages(self):
        reruns.messages = list(forward_msgs(self))
        return reruns.messages

    def rerun_fragment(self, rerun_data):
        accepted = request_rerun(self, rerun_data)
        if reruns._fragment:  # a new runner starts with a full-run request: narrow it to the fragment
            pending = self._requests._rerun_data
            self._requests._rerun_data = dataclasses.replace(pending, fragment_id_queue=[reruns._fragment])
        return accepted

    runner.forward_msgs, runner.request_rerun = keep_messages, rerun_fragment
    try:
        yield reruns
    finally:
        runner.forward_msgs, runner.request_rerun = forward_msgs, request_rerun
