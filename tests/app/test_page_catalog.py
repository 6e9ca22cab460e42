"""The page catalog (``app_ui.page_catalog``) drives the app: navigation lists its pages under their
sections with their titles, icons and URL paths; the sidebar's scope and note, the presenter menu
and whether a page scores the sidebar's documents all follow a page's entry.
"""

from __future__ import annotations

import pytest
import streamlit as st

from app_ui import compute, keys
from app_ui.page_catalog import DEFAULT_PAGE, PAGES, Group, by_section, spec_at, teaching_pages
from tests.support.apptest_support import new_app, no_problems, open_page, result_of

NO_RESULT_PAGES = [spec for spec in PAGES if not spec.needs_result]


@pytest.fixture
def navigation_sections(monkeypatch) -> list[dict]:
    """Each run's sections as ``app.py`` hands them to ``st.navigation``: title, icon, the URL path
    given (a default page reports ``""`` for it) and whether it is the default."""
    seen: list[dict] = []
    real = st.navigation

    def spy(pages, **kwargs):
        seen.append(
            {
                section: [(page.title, page.icon, page._url_path, page._default) for page in section_pages]
                for section, section_pages in pages.items()
            }
        )
        return real(pages, **kwargs)

    monkeypatch.setattr(st, "navigation", spy)
    return seen


@pytest.fixture
def calls(monkeypatch) -> dict[str, int]:
    """How often this process computed the sidebar's result and scored a query (AppTest runs the
    app in this process)."""
    counts = {"compute": 0, "scores_for": 0}
    for name in counts:
        real = getattr(compute, name)

        def counted(*args, _real=real, _name=name, **kwargs):
            counts[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(compute, name, counted)
    return counts


def test_navigation_lists_every_catalog_page_under_its_section_with_its_title_icon_and_path(navigation_sections):
    at = new_app().run()
    no_problems(at)
    expected = {
        section: [(spec.title, spec.icon, spec.url_path, spec.default) for spec in specs]
        for section, specs in by_section().items()
    }
    assert navigation_sections[-1] == expected
    assert list(expected) == ["Explore", "Measure", "Learn", "Tune"]


def test_every_catalog_url_path_is_registered_under_its_title_and_opens_its_page():
    at = new_app().run()
    registered = {info["url_pathname"]: (info["page_name"], info["icon"]) for info in at._registered_pages.values()}
    assert registered == {("" if spec.default else spec.url_path): (spec.title, spec.icon) for spec in PAGES}
    assert DEFAULT_PAGE.url_path == "explore"  # shared links name it; Streamlit serves it at the root
    for spec in PAGES:
        open_page(at, spec.url_path)
        assert not at.exception, (spec.url_path, [e.value for e in at.exception])
        assert at._registered_pages[at._page_hash]["page_name"] == spec.title


def test_url_paths_and_titles_of_shared_links_stay_as_they_were():
    assert {spec.url_path: spec.title for spec in PAGES} == {
        "explore": "Explore",
        "compare": "RSE vs top-k",
        "demo": "Demo",
        "class-plan": "Class plan",
        "knowledge-base": "Knowledge base",
        "evaluate": "Evaluate",
        "worked-example": "Worked example",
        "lesson": "Lesson",
        "transform-lab": "Transform lab",
        "sweep": "Parameter sweep",
    }
    assert spec_at("") is DEFAULT_PAGE


@pytest.mark.parametrize("spec", NO_RESULT_PAGES, ids=lambda spec: spec.url_path)
def test_a_page_that_needs_no_result_computes_none(spec, calls):
    at = new_app().run()
    assert calls["compute"] == 1  # the default page reads the result
    calls.update(compute=0, scores_for=0)
    at.query_params.clear()  # as a browser's page switch does
    open_page(at, spec.url_path)
    no_problems(at)
    assert calls["compute"] == 0
    assert result_of(at) is None  # the outcome the page would find has no result
    if spec.full_screen:  # left as the page switch wrote it: a second write is a second Back press
        assert not at.query_params
    else:
        assert at.query_params["penalty"] in ("0.2", ["0.2"])  # the link still carries the sidebar's settings


def test_the_worked_example_scores_nothing_and_the_next_result_page_computes_its_result(calls):
    at = new_app(q="a query no test has scored before").run()
    calls.update(compute=0, scores_for=0)
    open_page(at, "worked-example")
    no_problems(at)
    assert calls == {"compute": 0, "scores_for": 0}
    open_page(at, "compare")
    no_problems(at)
    assert calls["compute"] == 1 and calls["scores_for"] >= 1
    assert result_of(at).queries == ("a query no test has scored before",)


def test_the_sidebar_note_and_disabled_controls_follow_the_page_entry():
    at = new_app().run()
    for spec in PAGES:
        open_page(at, spec.url_path)
        notes = [info.value for info in at.sidebar.info]
        assert notes == ([spec.sidebar_note] if spec.sidebar_note else []), spec.url_path
        assert at.sidebar.text_area(key=keys.QUERY).disabled == (Group.QUERY not in spec.scope), spec.url_path
        assert at.sidebar.selectbox(key=keys.SCORER).disabled == (Group.SCORER not in spec.scope), spec.url_path


def test_the_presenter_menu_offers_every_page():
    at = new_app(present="1").run()
    no_problems(at)
    links = [(link.proto.label, link.proto.page) for link in at.get("page_link")]
    assert [label for label, _ in links] == [spec.title for spec in PAGES]  # the sidebar is hidden: the menu is the way
    assert {spec.title for spec in teaching_pages()} == {"Lesson", "Worked example", "Demo", "Class plan"}
