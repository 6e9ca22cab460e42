"""The documents a query names: file-name words, rarest first, ties kept, none when nothing matches."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rse_core.kb.catalog import DocumentEntry
from rse_core.kb.named import Naming, name_words, named_documents, query_words


def _base(*names: str) -> dict[str, DocumentEntry]:
    return {f"h{n}": DocumentEntry(f"h{n}", name, f"/x/{name}", 1, 1, 10) for n, name in enumerate(names)}


FILINGS = _base(
    "3M_2018_10K.pdf",
    "3M_2022_10K.pdf",
    "BESTBUY_2019_10K.pdf",
    "BESTBUY_2024Q2_10Q.pdf",
    "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf",
)


def _named(query: str, allowed=None) -> list[str]:
    return [FILINGS[doc_id].name for doc_id in named_documents(FILINGS, [query], allowed).documents]


def test_name_words_keep_companies_years_and_form_codes_not_dates_or_stop_words():
    assert name_words("BESTBUY_2024Q2_10Q.pdf") == {"bestbuy", "2024q2", "2024", "10q"}
    assert name_words("FOOTLOCKER_2022_8K_dated-2022-05-20.pdf") == {"footlocker", "2022", "8k", "dated"}
    assert name_words("the_state_of_ai.md") == {"state", "ai"}


def test_query_words_join_neighbours_so_a_two_word_company_names_its_file():
    words = query_words(["What was Best Buy's FY2019 revenue?"])
    assert {"bestbuy", "fy2019", "2019", "revenue"} <= words


def test_the_company_and_year_named_pick_one_filing():
    assert _named("What is the FY2018 capital expenditure amount for 3M?") == ["3M_2018_10K.pdf"]
    assert _named("Were Best Buy's gross margins consistent in FY2019?") == ["BESTBUY_2019_10K.pdf"]


def test_the_name_sharing_the_rarest_words_wins():
    # footlocker is in one name, 2022 and 3m in two each, 10k in two.
    assert _named("Did Foot Locker pay a dividend in 2022?") == ["FOOTLOCKER_2022_8K_dated-2022-05-20.pdf"]
    assert _named("Was 3M's 2022 10-K audited?") == ["3M_2022_10K.pdf"]
    assert _named("Which 10-K filings report 2022 revenue?") == ["3M_2022_10K.pdf"]  # 2022 + 10k beat 2022 alone


def test_ties_are_all_named_and_no_shared_word_names_none():
    assert _named("How did 3M's segments grow?") == ["3M_2018_10K.pdf", "3M_2022_10K.pdf"]
    assert _named("What drove the reduction in SG&A expense?") == []
    assert _named("What happened on 05/20?") == []  # a date's parts are not name words


def test_allowed_limits_the_documents_named():
    assert _named("How did 3M's segments grow?", allowed={"h1"}) == ["3M_2022_10K.pdf"]
    assert _named("What is the FY2018 capex for 3M?", allowed={"h2", "h3"}) == []


@given(st.text(max_size=200))
def test_named_documents_are_always_a_tied_best_subset(query):
    named = named_documents(FILINGS, [query])
    assert set(named.documents) <= set(FILINGS)
    shared = query_words([query])
    assert all(name_words(FILINGS[doc_id].name) & shared for doc_id in named.documents)
    assert (named.words >= 1) == bool(named.documents)


@pytest.mark.parametrize("query", ["", "   ", "?!"])
def test_a_query_without_words_names_nothing(query):
    assert named_documents(FILINGS, [query]) == Naming()


def test_a_base_that_gains_a_file_is_indexed_again():
    assert _named("What did Boeing report for 2018?") == ["3M_2018_10K.pdf"]  # only the year matches
    grown = {**FILINGS, **_base(*(entry.name for entry in FILINGS.values()), "BOEING_2018_10K.pdf")}
    [boeing] = named_documents(grown, ["What did Boeing report for 2018?"]).documents
    assert grown[boeing].name == "BOEING_2018_10K.pdf"


def test_a_company_and_a_year_are_a_firm_naming_one_word_is_not():
    firm = named_documents(FILINGS, ["What is the FY2018 capital expenditure for 3M?"])
    assert firm.words == 2 and firm.firm  # 3m and 2018
    assert named_documents(FILINGS, ["How did 3M's segments grow?"]).words == 1
    assert not named_documents(FILINGS, ["How did 3M's segments grow?"]).firm
    # A word's parts are not counted apart from it: 2024q2 and 2024 are one word.
    assert named_documents(FILINGS, ["What changed in 2024Q2?"]).words == 1
    assert named_documents(FILINGS, ["What did Best Buy report for 2024Q2?"]).words == 2
