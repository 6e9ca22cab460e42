"""Normalise extracted text so chunks read cleanly and offsets stay meaningful.

PDF text layers and uploaded text files carry characters that hurt retrieval or display: soft
hyphens inside words, typographic ligatures (the "fi" glyph), NUL and other control characters, and
Windows line endings. A soft hyphen that ends a line is the typesetter's hyphenation of one word
("Com\u00ad" / "pact"): the hyphen and the line break go, so the word is whole in the text that is
scored and sent ("Compact", not "Com pact"). A hard hyphen at a line's end is kept: "water-" /
"glycol" cannot be told from "sys-" / "tems" without a dictionary (the display's reflow joins it
without a space). Cleaning happens once, at load time, so every offset the core reports refers
to the cleaned text that users see.
"""

from __future__ import annotations

import re

_LIGATURES = {
    "\ufb00": "ff",
    "\ufb01": "fi",
    "\ufb02": "fl",
    "\ufb03": "ffi",
    "\ufb04": "ffl",
    "\ufb05": "st",
    "\ufb06": "st",
}
# C0 controls except tab and newline, DEL, C1 controls, the BOM, soft hyphen, lone surrogates.
_DROPPED = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f\u00ad\ufeff\ud800-\udfff]")
# NEL (U+0085) is a C1 control but also a line break: it must become one, not glue two lines.
_LINE_BREAKS = re.compile("\r\n?|[\x0b\x0c\x85\u2028\u2029]")
SOFT_HYPHEN = "\u00ad"
_ANY_BREAK = re.compile("\r\n?|[\n\x0b\x0c\x85\u2028\u2029]")
_LIGATURE_RE = re.compile("[" + "".join(_LIGATURES) + "]")
_ANY_CHANGE = re.compile(f"{_DROPPED.pattern}|{_LINE_BREAKS.pattern}|{_LIGATURE_RE.pattern}")


def clean_text(text: str) -> str:
    """Return ``text`` with line endings unified and invisible or broken characters removed.

    Right-to-left and CJK text pass through unchanged; only characters that carry no meaning for
    a reader (controls, soft hyphens, byte-order marks) are removed, and ligatures are expanded so
    that "ﬁnance" matches a query for "finance".
    """
    text = _LINE_BREAKS.sub("\n", text).replace(SOFT_HYPHEN + "\n", "")
    text = _LIGATURE_RE.sub(lambda match: _LIGATURES[match.group()], text)
    return _DROPPED.sub("", text)


def clean_text_with_origins(text: str) -> tuple[str, list[int]]:
    """:func:`clean_text`, plus for every output character the index of the input character it
    came from.

    The page view needs this to find a cleaned character's glyph on the PDF page: cleaning joins
    ``\\r\\n``, expands ligatures (both letters of "fi" point at the one glyph), drops
    invisible characters and joins words hyphenated at a line's end (both halves keep their own
    glyphs), so offsets in the cleaned text and in PyMuPDF's text differ.
    """
    if not _ANY_CHANGE.search(text):  # the usual case: nothing to clean
        return text, list(range(len(text)))
    out: list[str] = []
    origins: list[int] = []
    index = 0
    while index < len(text):
        char = text[index]
        hyphenation = _ANY_BREAK.match(text, index + 1) if char == SOFT_HYPHEN else None
        if hyphenation:  # a word hyphenated at a line's end: joined, leaving no character behind
            index = hyphenation.end()
            continue
        if char == "\r" and text[index + 1 : index + 2] == "\n":
            out.append("\n")
            origins.append(index)
            index += 2
            continue
        if _LINE_BREAKS.fullmatch(char):
            out.append("\n")
            origins.append(index)
        elif char in _LIGATURES:
            for letter in _LIGATURES[char]:
                out.append(letter)
                origins.append(index)
        elif not _DROPPED.fullmatch(char):
            out.append(char)
            origins.append(index)
        index += 1
    return "".join(out), origins
