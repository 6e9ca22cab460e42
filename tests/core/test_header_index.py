"""Contextual headers in time linear in chunks + headings, with the same headers."""

from __future__ import annotations

import bisect
import random
from dataclasses import replace

from rse_core import chunk_document, load_document
from rse_core.chunking import MIN_CHUNK_SIZE
from rse_core.documents.headings import MAX_HEADER_CHARS, MAX_PATH, HeaderIndex, Heading, header_for


def old_header_for(title: str, headings: list[Heading], start: int, end: int) -> str:
    """The per-chunk walk used before (the reference)."""
    parts = [title.strip()] if title.strip() else []
    position = bisect.bisect_right([heading.start for heading in headings], (start + end) // 2)
    path: list[Heading] = []
    for heading in headings[:position]:
        while path and path[-1].level >= heading.level:
            path.pop()
        path.append(heading)
    titles = [heading.title for heading in path if heading.title.casefold() != title.strip().casefold()]
    parts += titles[-MAX_PATH:]
    return " > ".join(parts)[:MAX_HEADER_CHARS]


def test_same_headers_as_the_per_chunk_walk():
    rng = random.Random(4)
    for _ in range(300):
        title = rng.choice(["", " Manual ", "Intro", "x" * 300])
        starts = sorted(rng.sample(range(2000), rng.randint(0, 40)))
        names = ["Intro", "intro", "Setup", "Use", "Manual", "y" * 200]
        headings = [Heading(start, rng.randint(1, 4), rng.choice(names)) for start in starts]
        index = HeaderIndex.build(title, headings)
        for _ in range(30):
            start = rng.randint(0, 2100)
            end = start + rng.randint(1, 300)
            expected = old_header_for(title, headings, start, end)
            assert index.header(start, end) == expected
            assert header_for(title, headings, start, end) == expected


class CountingHeadings(tuple):
    """Headings that count how many times any of them is read."""

    reads = 0

    def __iter__(self):
        for heading in super().__iter__():
            CountingHeadings.reads += 1
            yield heading

    def __getitem__(self, item):
        CountingHeadings.reads += 1
        return super().__getitem__(item)


def test_chunk_headers_read_each_heading_a_bounded_number_of_times(tmp_path):
    """50,000 headings and as many chunks: the old walk read headings 10^9 times, this ~10^5."""
    path = tmp_path / "many.md"
    path.write_text("".join(f"## Section {n}\n\nBody of section {n}, a short one.\n\n" for n in range(50_000)))
    document = load_document(path)
    assert len(document.headings) == 50_000
    counted = replace(document, headings=CountingHeadings(document.headings))
    CountingHeadings.reads = 0
    chunks = chunk_document(counted, chunk_size=MIN_CHUNK_SIZE, headers=True)
    assert len(chunks) > 10_000
    assert CountingHeadings.reads <= 4 * len(document.headings)
    assert chunks[-1].header.endswith("Section 49999")
