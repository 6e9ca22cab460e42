"""rse-explorer: see Relevant Segment Extraction work. Entry point and router.

Run with ``streamlit run app.py``. This file switches the Hugging Face libraries offline (unless
``RSE_ALLOW_HUB=1``), sets the page config, initialises the session state once, draws the shared
sidebar's documents, query and scorer, and runs the page the user is on inside the page fragment
(``app_ui.page_frame``), which draws the parameter controls, computes the result from cached
scores (for a page that reads it) and draws the page: a slider move reruns only that fragment.
The pages, their sections and what each uses are listed once, in ``app_ui.page_catalog``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import streamlit as st

from app_ui import (
    built_html,
    chart_warmup,
    keys,
    models,
    navigation,
    page_catalog,
    page_frame,
    presenter,
    scorers,
    session_folders,
    state,
    upload_flow,
)
from app_ui.sidebar import render_sidebar
from app_ui.theme import CSS, ICON


def lazy(module: str) -> Callable[[], None]:
    """The ``render`` of ``views.<module>``, imported on the first visit to that page: the first
    screen does not wait for the other pages' imports (pandas, for one). Here, not in ``app_ui``:
    the layers contract keeps ``app_ui`` from importing ``views``."""

    def render() -> None:
        importlib.import_module(f"views.{module}").render()

    render.__name__ = render.__qualname__ = f"render_{module}"
    return render


# No import above loads huggingface_hub or transformers (the scorers import them lazily), so this
# runs before they read their offline switches: no model download unless RSE_ALLOW_HUB=1.
models.apply_hub_policy()
session_folders.start()  # once per process: this server's folder for users' files; those of dead servers go

# A local icon: a ":material/...:" page icon makes the browser fetch it from a font CDN.
st.set_page_config(page_title="RSE Explorer", page_icon=str(ICON), layout="wide")
built_html.html(CSS)
state.init_state()
presenter.init_from_url()
pages = st.navigation(
    navigation.register(
        {
            section: [page_frame.page(spec, lazy(spec.module)) for spec in specs]
            for section, specs in page_catalog.by_section().items()
        }
    )
)
navigation.follow_request()  # a page another page asked for (navigation.request), before the sidebar is drawn
upload_flow.read_before_drawing(page_catalog.spec_at(pages.url_path).needs_result)  # a new upload: read, rerun
warmup = chart_warmup.start(page_catalog.spec_at(pages.url_path))
render_sidebar(pages.url_path)  # documents, query, scorer; the parameters are the page fragment's
pages.run()  # the page in its fragment (app_ui.page_frame): parameters, result, URL, the page itself
st.sidebar.toggle(
    "Presenter mode",
    key=keys.PRESENT,
    help="For a projector (1280x720): no sidebar, large type, the chart in the first screen, arrow keys step. "
    "A link with ?present=1 opens in it.",
)
chart_warmup.finish(warmup)
scorers.start_model_preload(state.read_inputs())  # after the page is drawn: the first screen never waits for it
