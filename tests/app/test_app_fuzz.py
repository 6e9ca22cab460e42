"""Fuzz: random, hostile link query strings into every page; never an exception, never live markup.

Each case opens the app with a random query string (known and unknown names, repeated names,
``inf`` / ``nan`` / ``1e999``, Markdown links and images, HTML, ``$`` maths, NUL, very long
values, any Unicode), runs Explore (which shows the link's notices) and then one other page of the
catalog (``app_ui.page_catalog``), and checks that no element is an exception and that no
message, caption or Markdown element would render a link, an image, HTML, maths or a Streamlit
directive. Seeded, so a failure replays; the
seed is in the test id. About 40 app runs, well under a minute once the app is warm.
"""

from __future__ import annotations

import random

import pytest

from app_ui import query_params as qp
from app_ui.page_catalog import DEFAULT_PAGE
from app_ui.page_catalog import PAGES as CATALOG
from tests.support.apptest_support import MESSAGE_KINDS, new_app, open_page
from tests.support.markdown_check import markup_problems

PAGES = tuple(spec.url_path for spec in CATALOG)
HOSTILE = (
    "inf",
    "-inf",
    "nan",
    "1e999",
    "-1e999",
    "9" * 500,
    "-3",
    "0",
    "1.5",
    "",
    "\x00",
    "[Your session expired - sign in again](https://evil.example/login)",
    "![x](https://evil.example/p.png)",
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "https://evil.example/login",
    "www.evil.example",
    "$\\frac{a}{b}$",
    ":red[alarm] :material/warning:",
    "**bold** _x_ ~~y~~ `z`",
    "# h\n- a\n> b",
    "line\nbreak\r\n",
    "\u202eevil\u202c",
    "\u00e9\u4e2d\u6587\U0001f600",
    "annual_report",
    "tech_report",
    "bm25",
    "cross-encoder",
    "cohere",
    "balanced",
    "find_all",
    "/etc/shadow",
    "org/name",
)
NAMES = (
    "docs",
    "q",
    "q2",
    "scorer",
    "preset",
    "model",
    *qp.PARAM_FIELDS,
    "zzz",
    "embed",
    "",
    "q[]",
    "<b>x</b>",
    "[a](https://evil.example)",
    "\u00e9",
)
ALPHABET = "abc XYZ 019.,-+e[]()!<>*_`$:~#|\\&@/\n\t\x00\u00e9\u202e\U0001f600"


def random_value(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.55:
        return rng.choice(HOSTILE)
    if roll < 0.9:
        return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 40)))
    return rng.choice(HOSTILE) * rng.randint(100, 3000)  # long, up to ~200,000 characters


def random_link(rng: random.Random) -> dict[str, str | list[str]]:
    link: dict[str, str | list[str]] = {"scorer": "bm25"}  # offline and fast unless the fuzz says otherwise
    for _ in range(rng.randint(1, 9)):
        name = rng.choice(NAMES)
        link[name] = [random_value(rng) for _ in range(rng.randint(2, 3))] if rng.random() < 0.15 else random_value(rng)
    return link


FIXED = [
    {"maxlen": "inf", "chunk": "1e999", "topk": "-inf", "penalty": "nan", "overall": "9" * 400},
    {"docs": "annual_report,[Your session expired - sign in again](https://evil.example/login)"},
    {"preset": "![x](https://evil.example/p.png)", "scorer": "<b>bm25</b>", "zzz": "$x$"},
    {"scorer": "cross-encoder", "model": "/etc/shadow"},
    {"q": "why " * 25_000, "q2": "[a](https://evil.example)" * 100, "docs": ",".join(["x"] * 5000)},
    {"topk": ["3", "inf", "[a](b)"], "docs": ["annual_report", "tech_report"], "\x00": "\x00"},
]
CASES = [
    pytest.param(link, PAGES[i % len(PAGES)], id=f"fixed{i}-{PAGES[i % len(PAGES)]}") for i, link in enumerate(FIXED)
]
CASES += [
    pytest.param(
        random_link(random.Random(seed)), PAGES[seed % len(PAGES)], id=f"seed{seed}-{PAGES[seed % len(PAGES)]}"
    )
    for seed in range(30)
]


def check_page(at, link) -> None:
    assert not at.exception, (link, [e.value for e in at.exception])
    for kind in MESSAGE_KINDS:
        for element in at.get(kind):
            problems = markup_problems(str(element.value))
            assert not problems, (link, kind, element.value, problems)


@pytest.mark.parametrize(("link", "page"), CASES)
def test_any_link_opens_every_page_without_an_exception_or_live_markup(link, page):
    at = new_app()
    at.query_params.clear()
    at.query_params.update(link)
    at.run()
    check_page(at, link)
    if page != DEFAULT_PAGE.url_path:  # the first run drew it
        open_page(at, page)
        check_page(at, link)
