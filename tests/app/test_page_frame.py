"""The page fragment (``app_ui.page_frame``): a slider move reruns only the parameters, the result
and the page, as a browser sends it; what the fragment changes outside it reruns the whole app.

AppTest alone always runs the whole app, so these tests send reruns as the browser does
(``tests.support.browser_reruns``): a widget drawn inside a fragment names the fragment.
"""

from __future__ import annotations

from app_ui import keys
from app_ui.page_state import evaluate as evaluate_state
from tests.support.apptest_support import browser_reruns, new_app, no_problems, open_page, result_of

PENALTY = keys.PARAM_KEYS["irrelevant_chunk_penalty"]


def keys_drawn(at) -> set[str]:
    return {getattr(element, "key", None) for element in at} - {None}


def test_a_slider_move_reruns_only_the_page_fragment_and_keeps_the_link_and_preset():
    with browser_reruns() as reruns:
        at = new_app().run()
        slider = at.slider(key=PENALTY)
        assert reruns.fragment_of(slider)  # the parameters are drawn by the page fragment
        assert not reruns.fragment_of(at.text_area(key=keys.QUERY))  # the query box is not
        at = reruns.run(slider.set_value(0.31))
        no_problems(at)
        drawn = keys_drawn(at)
        assert PENALTY in drawn and keys.PRESET in drawn  # redrawn: the preset now reads custom
        assert keys.QUERY not in drawn and keys.SAMPLES not in drawn  # left as they are in the browser
        assert result_of(at).params.irrelevant_chunk_penalty == 0.31
        assert at.query_params["penalty"] == "0.31"
        assert at.selectbox(key=keys.PRESET).value == "custom"
        assert at.metric  # the page itself was drawn again


def test_the_parameters_keep_their_values_across_pages():
    at = new_app(penalty="0.42", minval="0.9").run()
    for page in ("compare", "sweep", ""):
        open_page(at, page)
        no_problems(at)
        assert at.slider(key=PENALTY).value == 0.42
        assert result_of(at).params.minimum_value == 0.9


def test_a_button_in_the_page_that_changes_the_scorer_reruns_the_whole_app():
    with browser_reruns() as reruns:
        at = new_app(scorer="cohere").run()  # no key: the scorer fails and the page offers the offline one
        button = at.button(key=keys.SWITCH_TO_OFFLINE)
        assert reruns.fragment_of(button)
        at = reruns.run(button.click())
        no_problems(at)
        assert keys.SCORER in keys_drawn(at)  # a full run: the sidebar's scorer box shows the switch
        assert at.selectbox(key=keys.SCORER).value == "minilm"
        assert result_of(at).scorer == "minilm"


def test_leaving_presenter_mode_from_the_page_reruns_the_whole_app():
    with browser_reruns() as reruns:
        at = new_app(present="1").run()
        assert at.toggle(key=keys.PRESENT).value is True
        at = reruns.run(at.button(key=keys.PRESENT_EXIT).click())
        no_problems(at)
        assert at.toggle(key=keys.PRESENT).value is False  # the sidebar's switch, outside the fragment
        assert "present" not in at.query_params


def test_a_link_to_another_page_from_inside_the_page_reruns_the_whole_app():
    """``navigation.request`` reruns the app itself: a callback inside the page fragment that only
    asked for the page left the fragment's own rerun, which never reached ``app.py``'s switch
    ("Open in Explore" on the Knowledge base page did nothing)."""
    with browser_reruns() as reruns:
        at = open_page(new_app(docs="annual_report").run(), "evaluate")
        at.selectbox(key=evaluate_state.Keys.OPEN).set_value("ar-07").run()
        button = at.button(key=evaluate_state.Keys.OPEN_EXPLORE)
        assert reruns.fragment_of(button)  # drawn by the page fragment
        at = reruns.run(button.click())
        no_problems(at)
        assert [title.value for title in at.title] == ["Explore"]
        assert keys.QUERY in keys_drawn(at)  # a full run: the sidebar shows the row's query
