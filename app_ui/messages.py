"""Error text for the user: one line, plain text (escaped where shown), never a traceback.

Unexpected errors go to the server log in full; the user sees what failed and what to do.
"""

from __future__ import annotations

import logging

from rse_core import AuthenticationError, RSEError, ScorerName

from .safe_text import clean

LOGGER = logging.getLogger(__name__)
NO_DOCUMENT = "No document selected: pick a sample document or upload a file."


def one_line(error: BaseException, limit: int = 200) -> str:
    """An error as one short line (its type's name if it has no text)."""
    return clean(str(error) or type(error).__name__, limit)


def failure_message(error: Exception, scorer: str) -> str:
    """One line for the user (plain text; shown escaped); unexpected errors go to the log in full."""
    if isinstance(error, RSEError):
        message = one_line(error, limit=600)
        if isinstance(error, AuthenticationError):
            message += " In the app, type the key into the sidebar's Cohere API key field."
        return message
    LOGGER.exception("scoring with %s failed", scorer)
    hint = ""
    if isinstance(error, UnicodeError) and scorer == ScorerName.COHERE:
        hint = (
            " The Cohere API key seems to hold a character a key cannot have (an invisible or no-break "
            "space, or a letter such as É): retype or paste it again."
        )
    return f"The {scorer} scorer failed ({type(error).__name__}: {one_line(error)}).{hint}"


def unreadable_upload(name: str, error: BaseException) -> str:
    return f"Could not read {clean(name, 80)!r} ({one_line(error)})."


def renamed_for_link(name: str, linked: str) -> str:
    return (
        f"{clean(name, 80)!r} has the contents the link names {clean(linked, 80)!r}: it is shown under that name, "
        "so its contextual headers, and so its scores, are the ones the link was made with."
    )


def duplicate_upload(name: str, kept: str) -> str:
    return f"{clean(name, 80)!r} has the same contents as {clean(kept, 80)!r}; kept one copy ({clean(kept, 80)!r})."
