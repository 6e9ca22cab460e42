"""Panels a page draws into its own container: answers, the chunk explanation, the LLM judge,
the segment on its page, and the report button. They draw only; what they compute comes from
``rse_core`` or the app's caches."""
