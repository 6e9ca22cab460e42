"""Shared by every test folder.

Tests mirror the package: ``core/`` (documents, chunking, scoring, values, search, pipeline, the
extract CLI), ``evaluation/``, ``teaching/``, ``figures/``, ``llm/``, ``app/`` (Streamlit's
AppTest), ``browser/`` (headless Chromium) and ``support/`` (fakes, factories, helpers; no tests).
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config, items):
    """Mark every test under ``browser/`` ``browser``, so ``-m "not browser"`` skips them all."""
    for item in items:
        if "tests/browser/" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.browser)
