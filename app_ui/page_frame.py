"""Every page runs in one fragment with the sidebar's parameter controls, so a slider move reruns
only that fragment.

Why: a slider move recomputes values from cached scores and redraws the page. The documents,
query and scorer controls, the theme, the navigation and the presenter switch stay as they are,
yet a full rerun rebuilt them all (a fifth of a slider move's server time). Streamlit
reruns a fragment alone when a widget inside it changes; so the fragment draws the parameter
controls (into the sidebar), computes the result, syncs the URL and draws the page.

What this asks of code inside the fragment: a widget callback that changes a control drawn
outside it (documents, query, scorer, presenter mode) must rerun the whole app
(:func:`app_ui.page_state.reruns.reruns_app`), or that control keeps showing its old value; a link to
another page (:func:`app_ui.navigation.request`) reruns the whole app by itself. A full run (any
widget outside, a page switch) runs the fragment as part of it, as before.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import streamlit as st
from streamlit.navigation.page import StreamlitPage
from streamlit.runtime.scriptrunner import get_script_run_ctx

from . import compute, link_uploads, presenter, run_state, state, widgets
from .page_catalog import PageSpec
from .run_state import RunOutcome
from .sidebar import render_parameters


def page(spec: PageSpec, render: Callable[[], None]) -> StreamlitPage:
    """``st.Page`` for ``spec`` whose body is ``render`` inside the page fragment."""

    def body() -> None:
        page_fragment(spec, render)

    body.__name__ = body.__qualname__ = getattr(render, "__name__", spec.url_path)
    return st.Page(body, title=spec.title, icon=spec.icon, url_path=spec.url_path, default=spec.default)


@widgets.guarded_fragment
def page_fragment(spec: PageSpec, render: Callable[[], None]) -> None:
    """The presenter toolbar, the parameter controls (in the toolbar's popover in presenter mode), this
    run's result (if the page reads one) and URL, and the page. (A new upload was read before:
    :mod:`app_ui.upload_flow`.)"""
    settings = presenter.toolbar(spec)  # in presenter mode the parameters go in its popover, not the hidden sidebar
    with settings or st.sidebar, _app_scope():
        render_parameters(spec.url_path)
    inputs = state.read_inputs()
    if spec.needs_result:
        compute_this_run(inputs)
    else:
        no_result_this_run(inputs, write_url=not spec.full_screen)
    if not spec.full_screen:  # a full-screen page leaves the address as the page switch wrote it
        presenter.keep_in_url()
    render()


@contextlib.contextmanager
def _app_scope() -> Iterator[None]:
    """Widgets drawn here belong to the app, not to the page running the fragment.

    Streamlit puts the hash of the page that draws a widget into the widget's id. The sidebar's
    controls used to be drawn by ``app.py``; drawn inside a page they would be another widget on
    each page, and lose their values on every page switch. So they are drawn under the app
    script's hash, as before (Streamlit's own ``Page.run`` scopes a page the same way).
    """
    ctx = get_script_run_ctx()
    if ctx is None:  # bare mode: no ids to keep
        yield
        return
    with ctx.run_with_active_hash(ctx.pages_manager.main_script_hash):
        yield


def compute_this_run(inputs: state.Inputs) -> None:
    """This run's outcome for the page, and the URL that reopens it (a function, so no module
    global keeps a result, and with it an upload's text, alive after the session)."""
    outcome = compute.compute(inputs)  # a new upload was read before this run drew anything (upload_flow)
    run_state.store_outcome(outcome)
    state.sync_url(inputs, outcome.url_uploads)


def no_result_this_run(inputs: state.Inputs, *, write_url: bool = True) -> None:
    """For a page that reads no result: nothing is scored, and the page's outcome has no result.

    The URL still carries the sidebar's settings for the other pages, with the uploads the last
    run named (a page without a result draws no upload box that could change them) or, on a
    session's first page, the link's own; unless ``write_url`` is false (a full-screen page, whose
    address stays as the page switch wrote it, so Back leaves it in one press).
    """
    try:
        uploads = run_state.current_outcome().url_uploads
    except KeyError:  # the session's first run
        uploads = link_uploads.wanted()
    run_state.store_outcome(RunOutcome(url_uploads=uploads))
    if write_url:
        state.sync_url(inputs, uploads)
