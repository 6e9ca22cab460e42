"""The class plan and presenter mode in AppTest: a 90-minute class clicked through without typing a
URL, each block opening its page staged for predict-then-reveal; the presenter menu reaches every
page; the parameters stay reachable with the sidebar hidden; each quoted figure names its source."""

from __future__ import annotations

import pytest

from app_ui import keys
from app_ui.page_catalog import PAGES
from rse_core.teaching.class_plan import CLASS_MINUTES, CLASS_PLAN, start_minutes, total_minutes
from rse_core.teaching.classroom import EXAMPLES
from rse_core.teaching.quotes import QUOTES, Source
from tests.support.apptest_support import html_text, new_app, no_problems, open_page

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_the_plan_fills_the_period_and_every_block_opens_a_real_view():
    from views.lesson import SECTIONS
    from views.worked_example import MODES

    assert total_minutes() == CLASS_MINUTES == 90
    assert start_minutes()[0] == 0 and start_minutes()[-1] + CLASS_PLAN[-1].minutes == 90
    paths = {spec.url_path for spec in PAGES}
    for block in CLASS_PLAN:
        assert block.page in paths and block.minutes > 0
        if block.page == "lesson":
            assert block.view in SECTIONS
        if block.page == "worked-example":
            assert block.view in MODES
            assert not block.example or block.example in EXAMPLES


def on_screen(at) -> str:
    return html_text(at) + "\n" + "\n".join(m.value for m in at.markdown) + "\n".join(i.value for i in at.info)


def assert_nothing_revealed(at, block) -> None:
    """The block's page at its prediction: no pick drawn, no column or best run shown."""
    text = on_screen(at)
    if block.page == "lesson" and block.view == "steps":
        assert "Turn 0: predict the first pick" in text and "taken as S1" not in text
        assert at.slider(key="ls_step").value == 0
    if block.page == "worked-example" and block.view == "segments":
        assert at.session_state["we_step"] == 0 and "Turn 0: predict the first pick" in text
        assert "overall, minimum" in text  # the limits are on screen at turn 0
    if block.view == "runs":
        table = next(d.value for d in at.dataframe if "Run" in d.value.columns)
        assert set(table["Best"]) == {"?"} and set(table["Note"]) == {"?"}
    if block.view == "board":
        assert at.slider(key="we_board_reveal").value == 0
    if block.view == "round_robin":
        table = next(d.value for d in at.dataframe if "turn" in d.value.columns)
        assert table.empty and "Turn 0: predict query 1" in text


def test_the_class_plan_walks_every_block_in_presenter_mode_without_a_typed_url():
    at = new_app().run()
    open_page(at, "class-plan")
    no_problems(at)
    assert not at.session_state[keys.PRESENT]
    at.button(key="cp_start").click().run()
    for index, block in enumerate(CLASS_PLAN):
        no_problems(at)
        assert at.session_state[keys.PRESENT] and at.session_state["cp_block"] == index
        assert f"Block {index + 1} of {len(CLASS_PLAN)}" in html_text(at)
        if block.page == "lesson":
            assert at.session_state["ls_section"] == block.view
        if block.page == "worked-example":
            assert at.radio(key="we_mode").value == block.view
            if block.example:
                assert at.session_state["we_example"] == block.example
        assert_nothing_revealed(at, block)
        if index + 1 < len(CLASS_PLAN):
            at.button(key="cp_next").click().run()
    assert not [b for b in at.button if b.key == "cp_next"]  # the last block has no next


def test_the_presenter_menu_reaches_every_page_and_the_parameters_stay_on_the_page():
    at = new_app(present="1").run()
    open_page(at, "lesson")
    no_problems(at)
    links = [link.proto.label for link in at.get("page_link")]
    assert links == [spec.title for spec in PAGES]
    assert {"Class plan", "Transform lab", "RSE vs top-k", "Explore", "Evaluate", "Knowledge base"} <= set(links)
    penalty = keys.param_key("irrelevant_chunk_penalty")
    assert penalty not in {w.key for w in at.sidebar.slider}  # not in the hidden sidebar...
    slider = at.slider(key=penalty)  # ...but on the page, in the presenter bar's Settings
    assert at.selectbox(key=keys.PRESET).value
    slider.set_value(0.3).run()
    no_problems(at)
    assert at.slider(key=penalty).value == 0.3 and at.session_state[penalty] == 0.3


def test_every_quoted_figure_on_the_lesson_names_its_source():
    at = new_app(scorer="minilm").run()
    open_page(at, "lesson")
    no_problems(at)
    text = "\n".join(m.value for m in at.markdown) + "\n".join(m.help or "" for m in at.metric)
    for quote in QUOTES:
        assert quote.label in text or quote.source.value in text, quote.what
    # The FinanceBench figures and the "bonus chunks" come from another course text, not the lesson.
    finance = next(line for line in text.splitlines() if "FinanceBench" in line and "83%" in line)
    assert Source.COURSE_TEXT.value in finance and "The lesson reports" not in text
    bonus = next(line for line in text.splitlines() if "bonus chunks" in line)
    assert Source.COURSE_TEXT.value in bonus


def test_presenter_lesson_shows_the_nike_case_with_its_sources_beside_the_zoomed_chart():
    at = new_app(scorer="minilm", present="1").run()
    open_page(at, "lesson")
    no_problems(at)
    text = "\n".join(m.value for m in at.markdown)
    assert "**320-339**" in text and "**7** are marked relevant" in text and "**323-333**" in text
    assert "**323-336**" in text and Source.LESSON.value in text
    assert Source.MEASURED.value in html_text(at)


def test_presenter_worked_example_keeps_its_notes_on_the_slide():
    from rse_core.teaching.class_plan import GAP_WORTH_CROSSING

    at = new_app(present="1").run()
    open_page(at, "worked-example")
    at.selectbox(key="we_example").set_value(GAP_WORTH_CROSSING).run()
    example = EXAMPLES[GAP_WORTH_CROSSING]
    assert "its chunks 3-7" in html_text(at)  # the numbering note, from the first screen on
    assert example.point not in html_text(at)  # the point gives the answer: not before the stop
    while not at.button(key="we_next").disabled:
        at.button(key="we_next").click().run()
    assert f"The point of this example: {example.point}" in html_text(at)


def test_table_one_in_the_normal_layout_hides_the_best_run_until_the_reveal():
    at = new_app().run()
    open_page(at, "worked-example")
    no_problems(at)
    table = next(d.value for d in at.dataframe if "Run" in d.value.columns)
    assert set(table["Best"]) == {"?"} and "best" not in " ".join(table["Note"])
    at.toggle(key="we_reveal").set_value(True).run()
    table = next(d.value for d in at.dataframe if "Run" in d.value.columns)
    assert table[table["Best"] == "best"]["Run"].tolist() == ["2 to 3"]


def test_presenter_css_keeps_captions_and_wraps_the_narration():
    from app_ui.presenter import CSS

    assert "ellipsis" not in CSS and "nowrap" not in CSS  # a long narration line wraps, never cut with "…"
    assert '[data-testid="stCaptionContainer"] { display: none' not in CSS  # captions stay on the slide
