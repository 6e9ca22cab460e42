"""A URL as it may be shown: in a widget, a caption, a link, a message or a log line.

An operator may configure an endpoint as ``http://user:password@host/v1?api_key=...``; the
password and the query string are for the server's requests only, so everything a person can see
goes through :func:`display_url` (one URL) or :func:`redact_urls` (free text such as a log line).
"""

from __future__ import annotations

import logging
import re
from urllib.parse import parse_qsl, urlsplit, urlunsplit

MAX_SHOWN_CHARS = 200
"""A shown URL is cut to this many characters (a typed URL is hostile text)."""
MIN_SECRET_CHARS = 4
"""A query value shorter than this is not scrubbed from text (``v=1`` would scrub every "1")."""

# scheme://[userinfo@]rest[?query][#fragment]; userinfo may hold ":" and "/"-free text only.
_URL = re.compile(
    r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.\-]*://)(?:[^\s/@?#]*@)?(?P<rest>[^\s?#\"'<>]*)(?:[?#][^\s\"'<>]*)?"
)
_LOGGERS_THAT_PRINT_URLS = ("httpx", "httpx2", "openai._base_client")


def display_url(url: str) -> str:
    """``url`` without ``user:password@``, query or fragment: safe to show to anyone."""
    text = (url or "").strip()
    parts = urlsplit(text)
    if not parts.netloc:  # not a URL ("user:password@host" has no "//"): keep what follows any "@"
        return re.split(r"[?#]", text.rpartition("@")[2], maxsplit=1)[0][:MAX_SHOWN_CHARS]
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    shown = urlunsplit((parts.scheme, f"{host}:{port}" if port else host, parts.path, "", ""))
    return shown[:MAX_SHOWN_CHARS]


def url_secrets(url: str) -> tuple[str, ...]:
    """The parts of ``url`` to scrub from any text passed on (a server may echo its request's URL in
    an error): the password and every query value of at least :data:`MIN_SECRET_CHARS` characters."""
    parts = urlsplit((url or "").strip())
    values = [value for _, value in parse_qsl(parts.query, keep_blank_values=False)]
    found = [parts.password or "", parts.query, *values]
    return tuple(dict.fromkeys(secret for secret in found if len(secret) >= MIN_SECRET_CHARS))


def redact_urls(text: str) -> str:
    """``text`` with every URL in it stripped of ``user:password@``, query and fragment, as
    :func:`display_url` strips one URL (the host keeps its case here, and the URL its length)."""
    return _URL.sub(lambda match: f"{match['scheme']}{match['rest']}", text)


class RedactUrls(logging.Filter):
    """Rewrites a log record's message with :func:`redact_urls` (httpx logs every request's full URL)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact_urls(message)
        if redacted != message:
            record.msg, record.args = redacted, ()
        return True


def redact_urls_in_client_logs() -> None:
    """Install :class:`RedactUrls` on the HTTP clients' loggers (once; called before a client is made)."""
    for name in _LOGGERS_THAT_PRINT_URLS:
        logger = logging.getLogger(name)
        if not any(isinstance(existing, RedactUrls) for existing in logger.filters):
            logger.addFilter(RedactUrls())
