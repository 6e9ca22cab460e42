"""One way to put text the app did not write into a message: as literal text, never as Markdown.

Streamlit renders Markdown in ``st.info`` / ``st.warning`` / ``st.error`` / ``st.success``,
``st.caption``, ``st.markdown``, ``st.toast``, widget labels, radio options, help tooltips and
expander titles. Text from a link, a file name, a document, a golden set or an API error can
therefore carry a working link (``[sign in](https://evil.example)``), a remote image, raw HTML,
``$`` maths, colour directives (``:red[...]``), icon shortcodes or a line break that forges a
second message. :func:`md` turns such text into Markdown that shows exactly its characters:
every Markdown-active ASCII punctuation mark gets a backslash (CommonMark lets any ASCII
punctuation be escaped, and a backslash also breaks GitHub's bare ``https://`` and ``www.``
autolinks), line breaks become spaces, and control and bidirectional-override characters go.
"""

from __future__ import annotations

import re
import unicodedata

# Every ASCII punctuation mark Markdown, GFM or Streamlit's extensions give a meaning to.
# Left alone: ' " , ; ? / % = which start nothing once line breaks are gone.
_ACTIVE = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&@^])")
_LINE_BREAKS = re.compile(r"[\r\n\v\f\u0085\u2028\u2029]+")
_BIDI = dict.fromkeys(map(ord, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f"))
ELLIPSIS = "\u2026"


def clean(text: object, limit: int | None = None) -> str:
    """``text`` as one line of printable characters, cut to ``limit`` characters (with an ellipsis).

    For plain-text places (a selectbox option, a log line) and as the first step of :func:`md`.
    """
    value = _LINE_BREAKS.sub(" ", str(text)).translate(_BIDI).replace("\t", " ")
    value = "".join(char for char in value if unicodedata.category(char) not in ("Cc", "Cs"))
    if limit is not None and len(value) > limit:
        value = value[: max(limit - 1, 0)].rstrip() + ELLIPSIS
    return value


def md(text: object, limit: int | None = None) -> str:
    """Markdown that renders as exactly ``text`` (one line, cut to ``limit`` characters).

    Use it for every piece of a message that the app did not write itself::

        st.info(f"Unknown sample document(s) in the link: {md(name, 60)}.")
    """
    return _ACTIVE.sub(r"\\\1", clean(text, limit))


def quoted(text: object, limit: int | None = 80) -> str:
    """``md(text)`` between typographic quotes, so the reader sees where a quoted value starts and ends."""
    return f"\u201c{md(text, limit)}\u201d"
