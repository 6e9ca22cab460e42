"""Every page of the app, described once: what draws it, how it is named and reached, which of the
sidebar's controls it uses, and whether it needs the sidebar's result.

Why one list: a page's title, icon, URL path, section, sidebar scope and flags used to be spelled
in the router, the sidebar, the presenter menu and the tests, each with its own copy. Navigation
(``app.py``), the sidebar's scope and note, the presenter menu, the page frame, the chart
warm-up and the page tests all read :data:`PAGES`; adding a page is one entry here and its view.

Not a folder named ``pages/`` beside ``app.py``: Streamlit would switch to its legacy
multipage mode.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Group(StrEnum):
    """A group of sidebar controls that a page either uses or does not (:mod:`app_ui.sidebar`)."""

    DOCUMENTS = "documents"
    QUERY = "query"
    SCORER = "scorer"
    VALUES = "values"  # preset, chunk size, penalty, decay, beta, length adjustment
    SEARCH = "search"  # max chunks per segment, max chunks overall, minimum segment value
    TOP_K = "top_k"


ALL_GROUPS = frozenset(Group)


class Section(StrEnum):
    """A heading of the navigation, in the order the sidebar lists them."""

    EXPLORE = "Explore"
    MEASURE = "Measure"
    LEARN = "Learn"
    TUNE = "Tune"


@dataclass(frozen=True)
class PageSpec:
    """One page. ``url_path`` and ``title`` are part of every shared link: never change them."""

    module: str  # views.<module>, whose render() draws the page
    title: str
    icon: str
    url_path: str
    section: Section
    scope: frozenset[Group] = ALL_GROUPS  # the sidebar controls it uses; the others are drawn disabled
    sidebar_note: str = ""  # shown atop the sidebar: what of it does not apply here, and why
    live_chart: bool = False  # its chart is a live chart, which loads its own plotly.js (app_ui.chart_warmup)
    teaching: bool = False  # a page a class is taught from (presenter mode's menu lists every page)
    default: bool = False  # the page at the app's root (its URL path there is "")
    # Its own full-screen layout with no sidebar: a menu and an exit at its top, and an address it never
    # rewrites (a write after the page switch's own history entry would be a second one: Back twice to leave).
    full_screen: bool = False

    @property
    def needs_result(self) -> bool:
        """Whether the page reads the sidebar's result (so the page frame scores its documents first):
        exactly when it uses the sidebar's documents or query. Derived, so it cannot drift from the scope."""
        return bool(self.scope & {Group.DOCUMENTS, Group.QUERY})


PAGES: tuple[PageSpec, ...] = (
    PageSpec("explore", "Explore", ":material/bar_chart:", "explore", Section.EXPLORE, live_chart=True, default=True),
    PageSpec("compare", "RSE vs top-k", ":material/compare_arrows:", "compare", Section.EXPLORE, live_chart=True),
    PageSpec(
        "demo",
        "Demo",
        ":material/slideshow:",
        "demo",
        Section.EXPLORE,
        scope=frozenset(),  # its stories run at fixed settings on their own samples; its sidebar is hidden
        teaching=True,
        full_screen=True,
    ),
    PageSpec(
        "knowledge_base",
        "Knowledge base",
        ":material/database:",
        "knowledge-base",
        Section.EXPLORE,
        scope=frozenset(),
        sidebar_note="The Knowledge base page has its own query, first-stage and RSE settings (a base fixes its "
        "chunk size); nothing in this sidebar applies there.",
    ),
    PageSpec("evaluate", "Evaluate", ":material/fact_check:", "evaluate", Section.MEASURE),
    PageSpec(
        "worked_example",
        "Worked example",
        ":material/school:",
        "worked-example",
        Section.LEARN,
        scope=frozenset(),
        sidebar_note="Nothing in this sidebar applies on Worked example: the page uses its own chunk values and "
        "limits (set them on the page). The controls are kept for the other pages.",
        teaching=True,
    ),
    PageSpec(
        "class_plan",
        "Class plan",
        ":material/event_note:",
        "class-plan",
        Section.LEARN,
        scope=frozenset(),
        sidebar_note="The class plan opens each block's page in presenter mode; nothing in this sidebar applies here.",
        teaching=True,
    ),
    PageSpec(
        "lesson",
        "Lesson",
        ":material/menu_book:",
        "lesson",
        Section.LEARN,
        scope=frozenset({Group.SCORER, Group.VALUES, Group.SEARCH, Group.TOP_K}),
        sidebar_note="On the Lesson page the cases always run on the bundled technical report and annual report "
        "with their golden queries; documents and query below do not apply here. Scorer and parameters do.",
        teaching=True,
    ),
    PageSpec(
        "transform_lab",
        "Transform lab",
        ":material/functions:",
        "transform-lab",
        Section.LEARN,
        scope=frozenset({Group.DOCUMENTS, Group.QUERY, Group.SCORER, Group.VALUES, Group.SEARCH}),
        sidebar_note="The Transform lab shows how scores become values; the baselines and the context order "
        "do not apply here.",
    ),
    PageSpec("sweep", "Parameter sweep", ":material/grid_on:", "sweep", Section.TUNE),
)

DEFAULT_PAGE = next(spec for spec in PAGES if spec.default)
CLASS_PLAN_PAGE = next(spec for spec in PAGES if spec.module == "class_plan")
_BY_PATH = {spec.url_path: spec for spec in PAGES} | {"": DEFAULT_PAGE}


def spec_at(url_path: str) -> PageSpec:
    """The page at ``url_path`` as Streamlit reports it (``""``: the default page)."""
    return _BY_PATH[url_path]


def by_section() -> dict[Section, list[PageSpec]]:
    """The pages under each navigation heading, in :data:`PAGES`' order."""
    sections: dict[Section, list[PageSpec]] = {}
    for spec in PAGES:
        sections.setdefault(spec.section, []).append(spec)
    return sections


def teaching_pages() -> tuple[PageSpec, ...]:
    """The pages presenter mode's menu offers."""
    return tuple(spec for spec in PAGES if spec.teaching)
