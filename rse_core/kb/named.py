"""The documents a query names: a metadata filter read from the query and the base's file names.

Files are often named for what they hold (``3M_2018_10K.pdf``, ``handbook_2024.pdf``). When a
question names a company and a year, the same company's other filings and its peers' read almost
alike to an embedder (on FinanceBench the first stage puts the question's own filing first for
about half the questions), while the file name tells them apart. So a query may be searched
within the documents whose names it shares the rarest words with, as dsRAG's metadata filter
narrows a query to documents a caller already knows.

Words are the runs of letters and digits, lower-cased; a word that mixes both also gives its
parts (``FY2018`` gives ``fy2018``, ``fy`` and ``2018``). A name's stop words, one-character
words and numbers under four digits (a date's day, a version) are left out. A query's words also
include each pair of neighbouring words joined, so ``Best Buy`` names ``BESTBUY``. Each name word
the query has counts its rarity among the base's names (``log((N + 1) / (n + 0.5))`` for a word
in ``n`` of ``N`` names), so a company outweighs a year and a year outweighs ``10K``; the
documents with the highest total are named, all of them when tied, and none when no name shares
a word.

One shared word is weak evidence: it may be an everyday word ("expense *report*" over
``annual_report.pdf`` and ``tech_report.pdf``, "what does this rule *change*" over
``Understanding_Climate_Change.pdf``). So a naming that rests on a single word (the fewest any
named document shares, a word's parts not counted apart from it) needs the content to agree:
the named documents' best chunk must score at least :data:`NAMED_AGREEMENT` of the base's best on
the first stage's own scale (dense: within a quarter of the map's spread of the best cosine, 0.05
with the built-in map), else the name is set aside. Two or more words (a company and a year) are
a name. Measured on FinanceBench and our two sets (docs/evaluation.md): every one-word naming
of the wrong file fell 0.06-0.54 short in cosine; every right one passed, or shared two words.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import pairwise
from pathlib import PurePath

from rse_core.kb.catalog import DocumentEntry

NAMED_AGREEMENT = 0.75
"""The least share of the base's best score the named documents' best chunk must reach when the
naming rests on one word (see above)."""
FIRM_WORDS = 2
"""A naming that shares this many words or more needs no agreement from the content."""

_WORD = re.compile(r"[a-z0-9]+")
_RUN = re.compile(r"[a-z]+|[0-9]+")


@cache
def _stop_words() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN  # imported only when a query looks for names

    return frozenset(STOPWORDS_EN)


def _words(text: str) -> list[str]:
    words = []
    for word in _WORD.findall(text.lower()):
        words.append(word)
        runs = _RUN.findall(word)
        if len(runs) > 1:
            words.extend(runs)
    return words


def name_words(file_name: str) -> frozenset[str]:
    """The words of a file's name (its stem) that can name it."""
    stop = _stop_words()
    return frozenset(
        word
        for word in _words(PurePath(file_name).stem)
        if len(word) > 1 and word not in stop and not (word.isdigit() and len(word) < 4)
    )


def query_words(queries: Iterable[str]) -> frozenset[str]:
    """The queries' words, with each pair of neighbouring words joined."""
    words: set[str] = set()
    for query in queries:
        plain = _WORD.findall(query.lower())
        words.update(_words(query))
        words.update(first + second for first, second in pairwise(plain))
    return frozenset(words)


@dataclass(frozen=True)
class Naming:
    """The documents the queries name, and how many words the weakest of them shares."""

    documents: tuple[str, ...] = ()
    words: int = 0

    @property
    def firm(self) -> bool:
        """Whether the naming stands without the content's agreement (:data:`FIRM_WORDS` words)."""
        return self.words >= FIRM_WORDS


def _distinct(shared: frozenset[str]) -> int:
    """Shared words, a word's letter or digit runs not counted apart from it (``2023q2`` and ``2023``: one)."""
    parts = {run for word in shared for run in _RUN.findall(word) if run != word}
    return len(shared - parts)


@dataclass(frozen=True)
class NameIndex:
    """The base's name words, each with the documents whose names have it and its rarity, so a
    query costs only the words it shares (built once per set of names: 0.15 s for 10,000)."""

    postings: Mapping[str, tuple[str, ...]]
    rarity: Mapping[str, float]
    order: Mapping[str, int]

    @classmethod
    def of(cls, documents: Mapping[str, DocumentEntry]) -> NameIndex:
        return _index(tuple((doc_id, entry.name) for doc_id, entry in documents.items()))

    def named(self, queries: Sequence[str], allowed: Collection[str] | None = None) -> Naming:
        """The documents (hashes, of ``allowed``, default all) whose names the queries share the
        rarest words with, in the base's order; none when no name shares a word."""
        shared: dict[str, set[str]] = {}
        for word in query_words(queries) & self.postings.keys():
            for doc_id in self.postings[word]:
                if allowed is None or doc_id in allowed:
                    shared.setdefault(doc_id, set()).add(word)
        scores = {doc_id: sum(self.rarity[word] for word in words) for doc_id, words in shared.items()}
        best = max(scores.values(), default=0.0)
        if best <= 0:
            return Naming()
        tied = sorted((d for d, score in scores.items() if math.isclose(score, best)), key=self.order.__getitem__)
        return Naming(tuple(tied), min(_distinct(frozenset(shared[doc_id])) for doc_id in tied))


@lru_cache(maxsize=16)
def _index(names: tuple[tuple[str, str], ...]) -> NameIndex:
    postings: dict[str, list[str]] = {}
    for doc_id, name in names:
        for word in name_words(name):
            postings.setdefault(word, []).append(doc_id)
    count = len(names)
    return NameIndex(
        {word: tuple(ids) for word, ids in postings.items()},
        {word: math.log((count + 1) / (len(ids) + 0.5)) for word, ids in postings.items()},
        {doc_id: number for number, (doc_id, _) in enumerate(names)},
    )


def named_documents(
    documents: Mapping[str, DocumentEntry], queries: Sequence[str], allowed: Collection[str] | None = None
) -> Naming:
    """:meth:`NameIndex.named` over ``documents`` (a base's catalog)."""
    return NameIndex.of(documents).named(queries, allowed)
