"""rse-explorer: see Relevant Segment Extraction work. Entry point and router.

Run with ``streamlit run app.py``. This file switches the Hugging Face libraries offline (unless
``RSE_ALLOW_HUB=1``), sets the page config, initialises the session state once, draws the shared
sidebar, computes the result of this run from cached scores, and hands over to the page the user
is on.
"""

from __future__ import annotations

import streamlit as st

from app_ui import backend, models, navigation, state
from app_ui.sidebar import render_sidebar
from app_ui.theme import CSS, ICON
from views import compare, demo, evaluate, explore, lesson, sweep, transform_lab, worked_example

# No import above loads huggingface_hub or transformers (the scorers import them lazily), so this
# runs before they read their offline switches: no model download unless RSE_ALLOW_HUB=1.
models.apply_hub_policy()

# A local icon: a ":material/...:" page icon makes the browser fetch it from a font CDN.
st.set_page_config(page_title="RSE Explorer", page_icon=str(ICON), layout="wide")
st.html(CSS)

state.init_state()
pages = st.navigation(
    navigation.register(
        {
            "Explore": [
                st.Page(explore.render, title="Explore", icon=":material/bar_chart:", url_path="explore", default=True),
                st.Page(compare.render, title="RSE vs top-k", icon=":material/compare_arrows:", url_path="compare"),
                st.Page(demo.render, title="Demo", icon=":material/slideshow:", url_path="demo"),
            ],
            "Measure": [
                st.Page(evaluate.render, title="Evaluate", icon=":material/fact_check:", url_path="evaluate"),
            ],
            "Learn": [
                st.Page(
                    worked_example.render, title="Worked example", icon=":material/school:", url_path="worked-example"
                ),
                st.Page(lesson.render, title="Lesson", icon=":material/menu_book:", url_path="lesson"),
                st.Page(
                    transform_lab.render, title="Transform lab", icon=":material/functions:", url_path="transform-lab"
                ),
            ],
            "Tune": [
                st.Page(sweep.render, title="Parameter sweep", icon=":material/grid_on:", url_path="sweep"),
            ],
        }
    )
)
render_sidebar(pages.url_path)
inputs = state.read_inputs()
st.session_state["_outcome"] = backend.compute(inputs)
state.sync_url(inputs)
pages.run()
backend.start_model_preload(inputs)  # after the page is drawn: the first screen never waits for it
