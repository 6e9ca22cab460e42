r"""One way to put text the app did not write into a message: as literal text, never as Markdown.

Streamlit renders Markdown in ``st.info`` / ``st.warning`` / ``st.error`` / ``st.success``,
``st.caption``, ``st.markdown``, ``st.toast``, widget labels, radio options, help tooltips and
expander titles. Text from a link, a file name, a document, a golden set or an API error can
therefore carry a working link (``[sign in](https://evil.example)``), a remote image, raw HTML,
``$`` maths, colour directives (``:red[...]``), icon shortcodes or a line break that forges a
second message. :func:`md` turns such text into Markdown that shows exactly its characters:
every Markdown-active ASCII punctuation mark gets a backslash (CommonMark lets any ASCII
punctuation be escaped), line breaks become spaces, and control and bidirectional-override
characters go. Escapes do not stop GitHub's bare-URL autolinks in Streamlit (they are found in
the text after escapes are resolved: ``https\://evil.example`` still became a live link in
Chromium), so a zero-width space goes after a URL scheme, ``www`` and ``@``: invisible, but no
autolink pattern matches across it.
"""

from __future__ import annotations

import re
import unicodedata

# Every ASCII punctuation mark Markdown, GFM or Streamlit's extensions give a meaning to.
# Left alone: ' " , ; ? / % = which start nothing once line breaks are gone.
_ACTIVE = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&@^])")
_AUTOLINK_STARTS = re.compile(r"(?i)(?:https?|ftp|mailto|xmpp)(?=:)|www(?=\.)|@")
ZERO_WIDTH_SPACE = "\u200b"
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
    unlinked = _AUTOLINK_STARTS.sub(lambda match: match.group() + ZERO_WIDTH_SPACE, clean(text, limit))
    return _ACTIVE.sub(r"\\\1", unlinked)
