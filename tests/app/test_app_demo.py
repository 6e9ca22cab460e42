"""The Demo page (AppTest): three stories, five steps each, live narration, answers from a fake LLM."""

from __future__ import annotations

import html as html_module

import pytest

from app_ui import keys
from app_ui.samples import SAMPLE_DIR, list_samples
from rse_core import extract, get_scorer, load_document
from rse_core.teaching.demo_stories import STEPS, STORIES, narration, story_facts
from tests.support.apptest_support import browser_reruns, chart_specs, html_text, new_app, no_problems, open_page
from tests.support.fake_llm import FakeLLM


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CO_API_KEY", "RSE_LLM_MODEL", "RSE_LLM_PROVIDER"):
        monkeypatch.delenv(name, raising=False)


def expected_facts(story):
    sample = list_samples()[story.sample]
    golden = next(query for query in sample.golden.queries if query.id == story.query_id)
    return story_facts(
        extract(load_document(sample.path), golden.query, story.params, scorer=scorer_of(story)), golden.span
    )


def scorer_of(story):
    """The story's own scorer (minilm from the bundled embeddings, as the app loads it)."""
    if story.scorer == "minilm":
        return get_scorer("minilm", bundled_embeddings=(SAMPLE_DIR / "embeddings",))
    return get_scorer(story.scorer)


def test_three_stories_walk_step_by_step_with_live_numbers_and_answers(monkeypatch):
    with FakeLLM() as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{fake.url}/v1")
        monkeypatch.setenv("RSE_LLM_MODEL", "fake-model")
        at = open_page(new_app().run(), "demo")
        no_problems(at)
        for story in STORIES:
            at.session_state["demo_story"] = story.key
            at.session_state["demo_step"] = 0
            at.run()
            facts = expected_facts(story)
            for number, step in enumerate(STEPS):
                no_problems(at)
                page = html_text(at)
                assert f"step {number + 1} of {len(STEPS)}" in page
                assert html_module.escape(narration(step, facts)) in page
                if step != STEPS[-1]:
                    at.button(key="demo_next").click().run()
            answers = "\n".join(m.value for m in at.markdown)
            assert "According to the context" in answers
        assert fake.request_count == 2 * len(STORIES)  # RSE and top-k, once per story


def test_gapped_story_says_what_top_k_drops():
    story = next(story for story in STORIES if story.key == "gapped")
    facts = expected_facts(story)
    assert facts.gap_chunks_dropped_by_top_k >= 1 and facts.rse_recall > facts.top_k_recall
    assert "leaves out" in narration("compare", facts)


def test_without_an_llm_the_last_step_shows_prompts():
    at = open_page(new_app().run(), "demo")
    at.session_state["demo_step"] = len(STEPS) - 1
    at.run()
    no_problems(at)
    assert any("No LLM is configured" in info.value for info in at.info)


# --------------------------------------------------------------------------- presenter mode


def test_present_link_turns_presenter_mode_on_and_exit_turns_it_off():
    at = new_app(present="1").run()
    open_page(at, "worked-example")
    no_problems(at)
    assert at.session_state["present_mode"] is True
    assert not any("Ignored unknown link parameter" in str(w.value) for w in [*at.warning, *at.info])
    assert at.query_params.get("present") in ("1", ["1"])  # kept in the shareable link
    assert at.button(key="present_exit").label == "Exit presenter"
    at.button(key="present_exit").click().run()
    assert at.session_state["present_mode"] is False and "present" not in at.query_params
    assert not any(b.key == "present_exit" for b in at.button)


QUESTION = "How long is the probation period for new hires?"


@pytest.mark.parametrize("present", ["0", "1"])
def test_every_demo_step_has_a_menu_and_an_exit_back_to_explore_with_the_sidebar_and_the_work(present):
    with browser_reruns() as reruns:
        at = new_app(docs="employee_handbook", q=QUESTION, present=present).run()
        open_page(at, "demo")
        link = dict(at.query_params)
        for number in range(len(STEPS)):
            at.session_state["demo_step"] = number
            at.run()
            no_problems(at)
            assert at.button(key=keys.FULL_SCREEN_EXIT).label == "Exit demo"
            assert any(popover.proto.popover.label == "Menu" for popover in at.get("popover"))
            assert not any(button.key == keys.PRESENT_EXIT for button in at.button)  # one exit, not two
            assert dict(at.query_params) == link  # the Demo never writes the address: Back leaves in one press
        at = reruns.run(at.button(key=keys.FULL_SCREEN_EXIT).click())
        no_problems(at)
        assert [title.value for title in at.title] == ["Explore"]
        assert at.session_state["present_mode"] is False  # the exit brings the sidebar back
        assert at.session_state[keys.QUERY] == QUESTION
        assert "employee_handbook" in at.session_state[keys.SAMPLES]


def test_the_answers_step_restates_the_question_and_each_contexts_recall_and_characters():
    story = STORIES[0]
    at = open_page(new_app().run(), "demo")
    at.session_state["demo_story"] = story.key
    at.session_state["demo_step"] = len(STEPS) - 1
    at.run()
    no_problems(at)
    golden = next(q for q in list_samples()[story.sample].golden.queries if q.id == story.query_id)
    facts = expected_facts(story)
    page = html_text(at)
    assert html_module.escape(golden.query) in page
    assert f"<b>{facts.rse_recall:.0%}</b>RSE ({facts.rse_characters:,} characters)" in page
    assert f"<b>{facts.top_k_recall:.0%}</b>Top-k (k={facts.k}) ({facts.top_k_characters:,} characters)" in page


def test_presenter_toggle_in_the_sidebar():
    at = new_app().run()
    assert at.sidebar.toggle(key="present_mode").value is False
    at.sidebar.toggle(key="present_mode").set_value(True).run()
    assert any(b.key == "present_exit" for b in at.button)


def test_keyboard_actions_move_the_step_within_bounds():
    from app_ui.hotkeys import moved

    assert moved(0, "next", 0, 4) == 1 and moved(4, "next", 0, 4) == 4
    assert moved(0, "prev", 0, 4) == 0 and moved(3, "prev", 0, 4) == 2
    assert moved(2, "first", 0, 4) == 0 and moved(2, "last", 0, 4) == 4 and moved(2, None, 0, 4) == 2


# --------------------------------------------------------------------------- projector zoom


def _story_chunks(story):
    """Corpus chunks the story is about: its segments and its gold answer."""
    sample = list_samples()[story.sample]
    golden = next(query for query in sample.golden.queries if query.id == story.query_id)
    result = extract(load_document(sample.path), golden.query, story.params, scorer=scorer_of(story))
    chunks = {i for segment in result.segments for i in range(segment.start, segment.end)}
    chunks |= {
        i for i, chunk in enumerate(result.corpus.chunks) if chunk.start < golden.span[1] and chunk.end > golden.span[0]
    }
    return chunks, len(result.corpus.chunks)


@pytest.mark.parametrize("story", STORIES, ids=lambda story: story.key)
def test_each_chart_step_is_zoomed_to_the_story_with_the_whole_document_beneath(story):
    at = new_app(present="1").run()
    open_page(at, "demo")
    at.session_state["demo_story"] = story.key
    chunks, total = _story_chunks(story)
    for step in ("values", "compare"):
        at.session_state["demo_step"] = STEPS.index(step)
        at.run()
        no_problems(at)
        specs = chart_specs(at)
        main = specs[0]
        low, high = main["layout"]["xaxis"]["range"]
        assert low <= min(chunks) - 0.5 and max(chunks) + 0.5 <= high, (step, low, high, sorted(chunks))
        assert high - low < total / 2, (step, low, high, total)  # zoomed: not the whole document
        assert "rangeslider" not in main["layout"]["xaxis"]
        assert len(specs) == 2, step  # and the overview beneath
        overview = specs[1]
        assert overview["layout"]["xaxis"]["range"] == [-0.5, total - 0.5]  # the whole document, small
        assert overview["layout"]["height"] <= 120
        window = [s for s in overview["layout"]["shapes"] if s.get("layer") == "above"]
        assert [(s["x0"], s["x1"]) for s in window] == [(low, high)]  # the zoomed window, marked
