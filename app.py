"""rse-explorer: see Relevant Segment Extraction work. Entry point and router.

Run with ``streamlit run app.py``. This file switches the Hugging Face libraries offline (unless
``RSE_ALLOW_HUB=1``), sets the page config, initialises the session state once, draws the shared
sidebar, computes the result of this run from cached scores, and hands over to the page the user
is on.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import streamlit as st

from app_ui import chart_warmup, compute, keys, models, navigation, presenter, run_state, scorers, state, upload_flow
from app_ui.sidebar import render_sidebar
from app_ui.theme import CSS, ICON
from views import explore


def lazy(module: str) -> Callable[[], None]:
    """The ``render`` of ``views.<module>``, imported on the first visit to that page: the first
    screen (Explore) does not wait for the other pages' imports (pandas, for one)."""

    def render() -> None:
        importlib.import_module(f"views.{module}").render()

    render.__name__ = render.__qualname__ = f"render_{module}"
    return render


def compute_this_run(inputs: state.Inputs) -> None:
    """This run's outcome for the page, and the URL that reopens it (a function, so no module
    global keeps a result, and with it an upload's text, alive after the session)."""
    if st.session_state.pop(keys.UPLOADS_CHANGED, False):  # a file given for a shared link's upload
        upload_flow.start()
    outcome = upload_flow.pending_outcome() or compute.compute(inputs)  # no result while a new upload is read
    run_state.store_outcome(outcome)
    if not outcome.pending_uploads:
        state.sync_url(inputs, outcome.url_uploads)


LIVE_CHART_PATHS = ("", "explore", "compare")  # pages whose chart is a live chart ("" = the default page)

# No import above loads huggingface_hub or transformers (the scorers import them lazily), so this
# runs before they read their offline switches: no model download unless RSE_ALLOW_HUB=1.
models.apply_hub_policy()

# A local icon: a ":material/...:" page icon makes the browser fetch it from a font CDN.
st.set_page_config(page_title="RSE Explorer", page_icon=str(ICON), layout="wide")
st.html(CSS)
state.init_state()
presenter.init_from_url()
pages = st.navigation(
    navigation.register(
        {
            "Explore": [
                st.Page(explore.render, title="Explore", icon=":material/bar_chart:", url_path="explore", default=True),
                st.Page(lazy("compare"), title="RSE vs top-k", icon=":material/compare_arrows:", url_path="compare"),
                st.Page(lazy("demo"), title="Demo", icon=":material/slideshow:", url_path="demo"),
                st.Page(
                    lazy("knowledge_base"),
                    title="Knowledge base",
                    icon=":material/database:",
                    url_path="knowledge-base",
                ),
            ],
            "Measure": [
                st.Page(lazy("evaluate"), title="Evaluate", icon=":material/fact_check:", url_path="evaluate"),
            ],
            "Learn": [
                st.Page(
                    lazy("worked_example"), title="Worked example", icon=":material/school:", url_path="worked-example"
                ),
                st.Page(lazy("lesson"), title="Lesson", icon=":material/menu_book:", url_path="lesson"),
                st.Page(
                    lazy("transform_lab"), title="Transform lab", icon=":material/functions:", url_path="transform-lab"
                ),
            ],
            "Tune": [
                st.Page(lazy("sweep"), title="Parameter sweep", icon=":material/grid_on:", url_path="sweep"),
            ],
        }
    )
)
navigation.follow_request()  # a page another page asked for (navigation.request), before the sidebar is drawn
warmup = chart_warmup.start(wanted=pages.url_path not in LIVE_CHART_PATHS)  # a live chart loads its own
render_sidebar(pages.url_path)
st.sidebar.toggle(
    "Presenter mode",
    key=keys.PRESENT,
    help="For a projector (1280x720): no sidebar, large type, the chart in the first screen, arrow keys step. "
    "A link with ?present=1 opens in it.",
)
inputs = state.read_inputs()
compute_this_run(inputs)
presenter.keep_in_url()
if presenter.is_on():
    presenter.toolbar(pages.title)
pages.run()
chart_warmup.finish(warmup)
upload_flow.advance(inputs)  # a reading run: read and embed the new file, then a rerun for its result
scorers.start_model_preload(inputs)  # after the page is drawn: the first screen never waits for it
