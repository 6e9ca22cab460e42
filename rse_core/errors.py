"""Exceptions the core raises on purpose.

Every one derives from :class:`RSEError` and carries a message a user can act on, so the app can
show ``str(error)`` as it is and a notebook user knows what to change.
"""

from __future__ import annotations


class RSEError(Exception):
    """Base of every deliberate error in ``rse_core``."""


class DocumentError(RSEError):
    """A document could not be loaded or used."""


class UnreadableFileError(DocumentError):
    """The file exists but could not be read (permissions, a disk error)."""


class EmptyDocumentError(DocumentError):
    """The file is empty, or has no text at all."""


class UnsupportedFormatError(DocumentError):
    """The file type is not supported, or the content is not what its extension says."""


class CorruptDocumentError(DocumentError):
    """The file is damaged or truncated and cannot be parsed."""


class EncryptedDocumentError(DocumentError):
    """The PDF is password protected."""


class NoTextLayerError(DocumentError):
    """The PDF has pages but no extractable text (a scan)."""


class DocumentTooLargeError(DocumentError):
    """The file is over a configured limit: size, pages, characters, drawn content or time."""


class ParameterError(RSEError, ValueError):
    """A parameter is out of its valid range."""


class SearchTooLargeError(ParameterError):
    """The segment search would need more memory than allowed (too many chunks x max_length)."""


class EmbedderMismatchError(ParameterError):
    """A knowledge base was asked to use another embedder than the one its vectors came from."""


class QueryError(RSEError, ValueError):
    """The query cannot be used (for example, it is empty)."""


class ScorerError(RSEError):
    """A scorer could not be created or failed to score."""


class ScorerUnavailableError(ScorerError):
    """The scorer's model or package cannot be loaded here."""


class AuthenticationError(ScorerError):
    """The API key is missing or was rejected."""


class RateLimitError(ScorerError):
    """The scoring service kept answering 'too many requests' after the allowed retries."""


class ScoringServiceError(ScorerError):
    """The scoring service could not be reached, timed out, or answered something unusable."""


class EmbeddingServiceError(ScoringServiceError):
    """An embedding endpoint failed, or answered with vectors that cannot be stored (wrong count or
    dimension, NaN)."""


class EmbeddingTimeoutError(EmbeddingServiceError):
    """An embedding endpoint did not answer a request in time. A build halves the request and asks
    again (a slow local server queues the requests in flight), so this reaches the caller only for
    a request of one text."""


class TooManyChunksError(ScorerError):
    """More chunks to embed than the scorer's chunk budget allows."""


class InvalidScoresError(ScorerError):
    """A scorer returned NaN, infinite or mis-shaped scores."""


class LLMError(RSEError):
    """The LLM that writes answers (not the scorer) failed or is not configured."""


class LLMAuthenticationError(LLMError):
    """The LLM endpoint rejected the API key."""


class LLMRateLimitError(LLMError):
    """The LLM endpoint is still rate-limiting after the allowed retries."""


class LLMServiceError(LLMError):
    """Timeout, no connection, a server error, a dropped stream, or an unreadable answer."""


class LLMEndpointError(LLMError):
    """The endpoint or key is not allowed here (the operator's policy for a shared server)."""


class LLMAnswerLimitError(LLMError):
    """The answer went over its character or time bound (``RSE_LLM_MAX_CHARS`` / ``RSE_LLM_MAX_SECONDS``)."""


class PageViewTooLargeError(DocumentTooLargeError):
    """A page view or rendering would need more glyphs or pixels than allowed (``RSE_MAX_GLYPHS`` /
    ``RSE_MAX_PAGE_PIXELS``)."""


class MissingExtraError(RSEError):
    """An optional backend's package is not installed; the message names the extra that installs it."""


class EmptySetError(RSEError):
    """A named evaluation set resolved to no golden files or no queries (its data is missing)."""


class AddressRefusedError(RSEError):
    """A URL someone typed points at an address the server does not contact (private, loopback, metadata),
    and the operator has not allowed that host (``RSE_ALLOWED_PRIVATE_HOSTS``)."""
