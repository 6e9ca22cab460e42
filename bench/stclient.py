"""A headless Streamlit client: one browser tab's protocol, without the browser, for the load bench.

Streamlit 1.67's browser (read from ``streamlit/web/server/starlette`` and ``streamlit/proto``):

1. ``GET /_stcore/health`` sets the ``_streamlit_xsrf`` cookie.
2. A websocket at ``/_stcore/stream`` with subprotocols ``streamlit, <xsrf cookie>``; the browser
   sends ``BackMsg.rerun_script`` (a ``ClientState``: query string, widget states, page hash).
3. The server answers with ``ForwardMsg``\\s: ``new_session`` (the session id), ``navigation``
   (the pages' hashes), ``delta``\\s (elements; a widget carries the id the server gave it) and
   ``script_finished`` when the run is over. A rerun is timed from its BackMsg to that message.
4. A widget change is another ``rerun_script`` with the ``WidgetState`` of every widget on the page
   (the browser's values: without them a page switch resets the sidebar); a widget in a fragment
   names the fragment (``fragment_id``).
5. An upload: ``BackMsg.file_urls_request`` -> ``ForwardMsg.file_urls_response`` (a file id and a
   URL), a multipart ``PUT`` to that URL with the XSRF token as ``X-Xsrftoken``, then a rerun whose
   file uploader state lists the file.

One job: speak the protocol and time runs. What to do and what to report is ``bench/classroom.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx
import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Common_pb2 import FileURLs, UploadedFileInfo
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

# A run is over at one of these; FINISHED_EARLY_FOR_RERUN means another run follows.
_DONE = {
    ForwardMsg.FINISHED_SUCCESSFULLY,
    ForwardMsg.FINISHED_WITH_COMPILE_ERROR,
    ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY,
}


class ProtocolError(RuntimeError):
    """The server closed the connection, refused a request or did not finish a run in time."""


@dataclass
class Widget:
    """A widget as the last run drew it: its server-given id and its element proto."""

    id: str
    kind: str
    label: str
    fragment_id: str
    proto: Any


@dataclass
class RunTiming:
    """One rerun as the user would feel it: from sending it to the server's ``script_finished``."""

    kind: str
    seconds: float
    exceptions: int  # st.exception elements drawn by the run (uncaught errors)
    error_alerts: int  # st.error messages drawn by the run (the app's handled errors)


@dataclass
class _RunWatch:
    want_full_run: bool
    finished: asyncio.Future
    exceptions: int = 0
    error_alerts: int = 0
    texts: list[str] = field(default_factory=list)


@dataclass
class StreamlitSession:
    """One tab: connect, rerun with new widget values, upload, switch page, close."""

    base_url: str  # e.g. http://127.0.0.1:8501 (a load balancer's address works the same)
    timeout: float = 120.0
    session_id: str = ""
    query_string: str = ""
    page_hash: str = ""
    widgets: dict[str, Widget] = field(default_factory=dict)  # by label
    pages: dict[str, str] = field(default_factory=dict)  # url path -> page script hash
    _states: dict[str, WidgetState] = field(default_factory=dict)
    _http: httpx.AsyncClient | None = None
    _ws: Any = None
    _reader: asyncio.Task | None = None
    _watch: _RunWatch | None = None
    _file_urls: dict[str, asyncio.Future] = field(default_factory=dict)
    last_texts: list[str] = field(default_factory=list)  # markdown and messages the last run drew

    async def open(self, query_string: str = "") -> RunTiming:
        """Load the page as a browser would and wait for the first run to finish."""
        start = time.perf_counter()
        self._http = httpx.AsyncClient(base_url=self.base_url, timeout=self.timeout)
        (await self._http.get("/_stcore/health")).raise_for_status()  # sets the XSRF (and a balancer's) cookie
        xsrf = self._http.cookies.get("_streamlit_xsrf", "")
        cookies = "; ".join(f"{name}={value}" for name, value in self._http.cookies.items())
        ws_url = self.base_url.replace("http", "ws", 1) + "/_stcore/stream"
        self._ws = await websockets.connect(
            ws_url,
            subprotocols=["streamlit", xsrf] if xsrf else ["streamlit"],
            additional_headers={"Cookie": cookies, "Origin": self.base_url},
            max_size=None,
            open_timeout=self.timeout,
            ping_interval=None,  # a browser sends no pings (it answers the server's); a busy server is slow, not gone
        )
        self._reader = asyncio.create_task(self._read())
        self.query_string = query_string
        timing = await self._rerun("open", want_full_run=True)
        timing.seconds = time.perf_counter() - start
        return timing

    async def close(self) -> None:
        """Close the tab: the websocket (the server ends the session) and the HTTP client."""
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        if self._http is not None:
            await self._http.aclose()

    def widget(self, label: str) -> Widget:
        if label not in self.widgets:
            raise ProtocolError(f"no widget labelled {label!r} on the page (have: {sorted(self.widgets)[:40]})")
        return self.widgets[label]

    async def set_slider(self, label: str, value: float) -> RunTiming:
        """Move a number slider to ``value`` (clamped to its range), as dragging it would."""
        widget = self.widget(label)
        value = min(max(value, widget.proto.min), widget.proto.max)
        state = WidgetState(id=widget.id, double_array_value={"data": [value]})
        return await self._change("slider", widget, state)

    async def set_text(self, label: str, text: str, kind: str = "query") -> RunTiming:
        """Type ``text`` into a text area or input and submit it (Ctrl+Enter / leaving the box)."""
        widget = self.widget(label)
        return await self._change(kind, widget, WidgetState(id=widget.id, string_value=text))

    async def switch_page(self, url_path: str) -> RunTiming:
        """Click a page in the navigation."""
        if url_path not in self.pages:
            raise ProtocolError(f"no page {url_path!r} (have: {sorted(self.pages)})")
        self.page_hash = self.pages[url_path]
        return await self._rerun("page", want_full_run=True, page_name=url_path)

    async def upload(self, label: str, name: str, data: bytes, mime: str = "text/plain") -> RunTiming:
        """Add a file to a file uploader, timed until the full run after it is over."""
        widget = self.widget(label)
        start = time.perf_counter()
        request_id = uuid.uuid4().hex
        waiter = self._file_urls[request_id] = asyncio.get_running_loop().create_future()
        back = BackMsg()
        back.file_urls_request.request_id = request_id
        back.file_urls_request.file_names.append(name)
        back.file_urls_request.session_id = self.session_id
        await self._ws.send(back.SerializeToString())
        try:
            response = await asyncio.wait_for(waiter, self.timeout)
        except TimeoutError:
            raise ProtocolError(f"no file_urls_response within {self.timeout:.0f} s") from None
        finally:
            self._file_urls.pop(request_id, None)
        if response.error_msg:
            raise ProtocolError(f"file_urls_request refused: {response.error_msg}")
        urls: FileURLs = response.file_urls[0]
        put = await self._http.put(
            urls.upload_url,
            files={"file": (name, data, mime)},
            headers={"X-Xsrftoken": self._http.cookies.get("_streamlit_xsrf", "")},
        )
        if put.status_code not in (200, 204):
            raise ProtocolError(f"upload PUT answered {put.status_code}: {put.text[:200]}")
        previous = self._states.get(widget.id)
        files = list(previous.file_uploader_state_value.uploaded_file_info) if previous else []
        files.append(UploadedFileInfo(name=name, size=len(data), file_id=urls.file_id, file_urls=urls))
        state = WidgetState(id=widget.id)
        state.file_uploader_state_value.uploaded_file_info.extend(files)
        timing = await self._change("upload", widget, state, want_full_run=True)
        timing.seconds = time.perf_counter() - start
        return timing

    async def _change(self, kind: str, widget: Widget, state: WidgetState, want_full_run: bool = False) -> RunTiming:
        self._states[widget.id] = state
        return await self._rerun(kind, want_full_run=want_full_run, fragment_id=widget.fragment_id)

    async def _rerun(self, kind: str, *, want_full_run: bool, fragment_id: str = "", page_name: str = "") -> RunTiming:
        back = BackMsg()
        client = back.rerun_script
        client.query_string = self.query_string
        client.page_script_hash = self.page_hash
        client.page_name = page_name
        client.fragment_id = fragment_id
        client.widget_states.widgets.extend(self._states.values())
        watch = _RunWatch(want_full_run, asyncio.get_running_loop().create_future())
        self._watch = watch
        start = time.perf_counter()
        await self._ws.send(back.SerializeToString())
        try:
            await asyncio.wait_for(asyncio.shield(watch.finished), self.timeout)
        except TimeoutError:
            raise ProtocolError(f"{kind}: no script_finished within {self.timeout:.0f} s") from None
        finally:
            self._watch = None
        self.last_texts = watch.texts
        return RunTiming(kind, time.perf_counter() - start, watch.exceptions, watch.error_alerts)

    async def _read(self) -> None:
        """Every ForwardMsg: remember widgets, pages and the URL; end the watched run."""
        try:
            async for raw in self._ws:
                message = ForwardMsg()
                message.ParseFromString(raw)
                self._handle(message)
        except Exception as error:  # the connection is gone: whoever waits must hear it
            if self._watch is not None and not self._watch.finished.done():
                self._watch.finished.set_exception(ProtocolError(f"connection lost: {error!r}"))
            raise
        if self._watch is not None and not self._watch.finished.done():
            self._watch.finished.set_exception(ProtocolError("the server closed the connection"))

    def _handle(self, message: ForwardMsg) -> None:
        kind = message.WhichOneof("type")
        if kind == "new_session":
            self.session_id = message.new_session.initialize.session_id
        elif kind == "navigation":
            self.pages = {page.url_pathname: page.page_script_hash for page in message.navigation.app_pages}
            self.page_hash = message.navigation.page_script_hash
        elif kind == "page_info_changed":
            self.query_string = message.page_info_changed.query_string
        elif kind == "file_urls_response":
            waiter = self._file_urls.get(message.file_urls_response.response_id)
            if waiter is not None and not waiter.done():
                waiter.set_result(message.file_urls_response)
        elif kind == "delta" and message.delta.WhichOneof("type") == "new_element":
            self._element(message.delta.new_element, message.delta.fragment_id)
        elif kind == "script_finished":
            watch, status = self._watch, message.script_finished
            if watch is None or watch.finished.done() or status not in _DONE:
                return
            if watch.want_full_run and status == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY:
                return  # an upload's fragment ran; the full run it asked for follows
            watch.finished.set_result(status)

    def _element(self, element: Any, fragment_id: str) -> None:
        kind = element.WhichOneof("type")
        watch = self._watch
        if kind == "exception" and watch is not None:
            watch.exceptions += 1
        elif kind == "alert" and watch is not None:
            watch.error_alerts += element.alert.format == element.alert.ERROR
            watch.texts.append(element.alert.body)
        elif kind == "markdown" and watch is not None:
            watch.texts.append(element.markdown.body)
        proto = getattr(element, kind) if kind else None
        widget_id = getattr(proto, "id", "") if proto is not None and hasattr(proto, "id") else ""
        label = getattr(proto, "label", "") if proto is not None and hasattr(proto, "label") else ""
        if widget_id and label:
            self.widgets[label] = Widget(widget_id, kind, label, fragment_id, proto)
            if widget_id not in self._states or getattr(proto, "set_value", False):
                state = browser_value(kind, proto)
                if state is not None:
                    self._states[widget_id] = state


def browser_value(kind: str, proto: Any) -> WidgetState | None:
    """The value a browser holds for a widget just drawn: the server's ``value`` if it set one, else
    the default; options as their shown strings (Streamlit's serde). None for kinds it sends only
    when used (buttons, uploaders, components)."""
    state = WidgetState(id=proto.id)
    chosen = getattr(proto, "set_value", False)
    if kind == "slider" and proto.options:  # a select_slider
        picked = list(proto.raw_value) if chosen else [proto.options[int(i)] for i in proto.default]
        state.string_array_value.data.extend(picked)
    elif kind == "slider":
        state.double_array_value.data.extend(proto.value if chosen else proto.default)
    elif kind in ("selectbox", "radio"):
        if chosen:
            state.string_value = proto.raw_value
        elif _has_default(proto) and proto.options:
            state.string_value = proto.options[proto.default]
        else:
            return None
    elif kind == "multiselect":
        picked = list(proto.raw_values) if chosen else [proto.options[i] for i in proto.default]
        state.string_array_value.data.extend(picked)
    elif kind == "checkbox":
        state.bool_value = proto.value if chosen else proto.default
    elif kind in ("text_area", "text_input"):
        state.string_value = proto.value if chosen else proto.default
    else:
        return None
    return state


def _has_default(proto: Any) -> bool:
    """Whether a selectbox or radio has a default option (``index=None`` leaves it unset)."""
    try:
        return proto.HasField("default")
    except ValueError:  # not an optional field in this proto version
        return True
