"""LLM answers from each method's context, and an LLM judge of them (the ``llm`` extra).

The small core never imports this package; only the app, the CLI and the judge do.
"""
