"""Class plan: the 90-minute class, block by block, each opening its page staged in presenter mode.

The teacher clicks "Start the class" (or a block's Open) and then "Next block" in the presenter
bar: each block opens its page on its section or mode with the answer still hidden, so the whole
class runs without typing a URL. The blocks and their minutes are
:data:`rse_core.teaching.class_plan.CLASS_PLAN`; widget keys start with ``cp_``.
"""

from __future__ import annotations

import html

import streamlit as st

from app_ui import components, page_catalog, presenter
from app_ui.page_state import class_plan as class_plan_state
from rse_core.teaching.class_plan import CLASS_MINUTES, CLASS_PLAN, start_minutes, total_minutes

K = class_plan_state.Keys


@components.guarded
def render() -> None:
    st.title("Class plan")
    current = class_plan_state.current()
    st.markdown(
        f"A {total_minutes()}-minute class in {len(CLASS_PLAN)} blocks. Each opens its page in presenter mode with "
        "the answer hidden: the class predicts, then you reveal. **Next block** in the presenter bar moves on."
    )
    st.button(
        "Start the class" if current is None else f"Go on: block {min(current + 2, len(CLASS_PLAN))}",
        key=K.START,
        type="primary",
        icon=":material/play_arrow:",
        on_click=class_plan_state.next_block if current is not None else class_plan_state.open_block,
        args=() if current is not None else (0,),
    )
    titles = {spec.url_path: spec.title for spec in page_catalog.PAGES}
    for index, (block, start) in enumerate(zip(CLASS_PLAN, start_minutes(), strict=True)):
        when, what, go = st.columns([1.1, 7, 1.3], vertical_alignment="center")
        marker = " ◀ now" if index == current else ""
        when.markdown(f"**{start}–{start + block.minutes}′**")
        what.html(
            f"<div><b>{index + 1}. {html.escape(block.title)}</b>{html.escape(marker)} "
            f'<span style="color:#475569">· {block.minutes} min · {html.escape(titles[block.page])}</span><br>'
            f"{html.escape(block.activity)}</div>"
        )
        go.button(
            "Open",
            key=f"{K.OPEN}_{index}",
            icon=":material/open_in_new:",
            on_click=class_plan_state.open_block,
            args=(index,),
            width="stretch",
        )
    if not presenter.is_on():
        st.caption(f"{CLASS_MINUTES} minutes in all; opening a block turns presenter mode on (Exit presenter ends it).")
