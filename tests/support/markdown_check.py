"""What a Markdown source would turn into a link, an image, HTML, maths or a Streamlit directive.

Streamlit renders message bodies with CommonMark plus GitHub's extensions (bare ``https://``,
``www.`` and e-mail autolinks, strikethrough), KaTeX ``$`` maths and its own ``:color[...]`` and
``:material/icon:`` directives. ``markdown-it-py`` (a CommonMark parser, installed with rich)
finds links, images and HTML. Bare autolinks are looked for in the rendered text, after escapes
are resolved, because that is where Streamlit's renderer finds them (a backslash does not stop
them). Maths and directives are syntax, so they are matched on the source with escapes taken
into account. A message built with ``app_ui.safe_text.md`` has none of them.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

_PARSER = MarkdownIt("commonmark").enable(["table", "strikethrough"])
_ACTIVE_TOKENS = {"link_open": "a link", "image": "an image", "html_inline": "HTML", "html_block": "HTML"}
_BARE_LINK = re.compile(r"(?i)(?:https?|ftp)://|www\.[-\w]|(?:mailto|xmpp):|[-.\w+]@[-\w]+\.[-\w]", re.ASCII)
_DIRECTIVE = re.compile(r":[a-z-]+\[|:material/|:[a-z0-9_+-]+:")


def _walk(tokens):
    for token in tokens:
        yield token
        yield from _walk(token.children or ())


def unescaped_source(source: str) -> str:
    """``source`` with every backslash-escaped character replaced by a space (what stays active)."""
    out, index = [], 0
    while index < len(source):
        if source[index] == "\\" and index + 1 < len(source) and not source[index + 1].isalnum():
            out.append("  ")
            index += 2
        else:
            out.append(source[index])
            index += 1
    return "".join(out)


def markup_problems(source: str) -> list[str]:
    """What in ``source`` would render as more than text (empty list: it is literal text)."""
    problems = [
        f"{_ACTIVE_TOKENS[token.type]}: {token.attrs or token.content!r}"
        for token in _walk(_PARSER.parse(source))
        if token.type in _ACTIVE_TOKENS
    ]
    text = "".join(token.content for token in _walk(_PARSER.parse(source)) if token.type == "text")
    problems += [f"a bare link at {match.group()!r}" for match in _BARE_LINK.finditer(text)]
    active = unescaped_source(source)
    problems += [f"a Streamlit directive at {match.group()!r}" for match in _DIRECTIVE.finditer(active)]
    if "$" in active:
        problems.append("an unescaped $ (KaTeX maths)")
    return problems
