"""Which addresses the server may contact for a URL a user typed, how it enforces that on each
connection, and how a URL is shown without its secrets (``addresses``, ``http``, ``urls``)."""
