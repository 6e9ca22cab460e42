"""Who writes session state: views never do; in app_ui, only the state modules and the session caches.

Why: a page's state written from its drawing code could not be read in one place, and a widget's
value set after the widget is drawn raises in Streamlit. Views read state and draw; every write is
an initialiser or a callback in ``app_ui/page_state/`` (or the app-wide ``app_ui/state.py``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WRITE_METHODS = frozenset({"setdefault", "pop", "popitem", "update", "clear", "__setitem__", "__delitem__"})
STATE_MODULES = ("app_ui/page_state/", "app_ui/state.py", "app_ui/llm_settings.py", "app_ui/run_state.py")
"""Where session state is created and changed: each page's state module and the app-wide ones in
``page_state`` (the sidebar's callbacks, a page request, presenter mode, the uploads); ``state.py``
(the sidebar's values, the link); the session's LLM settings; this run's outcome. Each holds one piece
of state with its initialiser, its reader and its writers."""
SESSION_CACHES = frozenset({"app_ui/caching.py", "app_ui/knowledge_bases.py"})
"""Per-session caches (memos, the uploads' derived data, the uploaded knowledge base): created on
first use, never drawn by a widget."""


def _is_session_state(node: ast.AST, aliases: set[str]) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr == "session_state"
    return isinstance(node, ast.Name) and (node.id == "session_state" or node.id in aliases)


def _mutates(call: ast.Call, aliases: set[str]) -> bool:
    """``session_state.pop(...)`` and the like, or ``setattr(session_state, ...)``."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in WRITE_METHODS:
        return _is_session_state(func.value, aliases)
    if isinstance(func, ast.Name) and func.id in ("setattr", "delattr") and call.args:
        return _is_session_state(call.args[0], aliases)
    return False


def session_state_writes(source: str) -> list[int]:
    """The lines of ``source`` that write ``st.session_state``: item or attribute assignment
    (plain, augmented or annotated), ``del``, a mutating method, ``setattr``/``delattr``; also
    through a name bound to it (``state = st.session_state``)."""
    tree = ast.parse(source)
    aliases = {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and _is_session_state(node.value, set())
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        else:
            targets = []
        if any(isinstance(t, (ast.Subscript, ast.Attribute)) and _is_session_state(t.value, aliases) for t in targets):
            lines.append(node.lineno)
        if isinstance(node, ast.Call) and _mutates(node, aliases):
            lines.append(node.lineno)
    return sorted(lines)


def _writers(folder: str) -> dict[str, list[int]]:
    found = {}
    for path in sorted((ROOT / folder).rglob("*.py")):
        lines = session_state_writes(path.read_text(encoding="utf-8"))
        if lines:
            found[path.relative_to(ROOT).as_posix()] = lines
    return found


@pytest.mark.parametrize(
    "line",
    [
        "st.session_state['k'] = 1",
        "st.session_state[K.STEP] += 1",
        "st.session_state.k = 1",
        "st.session_state.setdefault('k', 1)",
        "st.session_state.pop('k', None)",
        "st.session_state.update({'k': 1})",
        "del st.session_state['k']",
        "setattr(st.session_state, 'k', 1)",
        "st.session_state.__setitem__('k', 1)",
        "state = st.session_state\nstate['k'] = 1",
    ],
)
def test_each_way_of_writing_session_state_is_found(line):
    assert session_state_writes(f"import streamlit as st\n{line}\n")


@pytest.mark.parametrize(
    "line",
    ["x = st.session_state.get('k')", "x = st.session_state['k']", "x = 'k' in st.session_state"],
)
def test_reading_session_state_is_not_a_write(line):
    assert not session_state_writes(f"import streamlit as st\n{line}\n")


def test_no_view_writes_session_state():
    assert _writers("views") == {}, "views read state and draw; move the write into app_ui/page_state/"


def test_in_app_ui_only_the_state_modules_and_the_session_caches_write_session_state():
    writers = {path for path in _writers("app_ui") if not path.startswith(STATE_MODULES)} - SESSION_CACHES
    assert writers == set(), "a helper writes session state: move the write into an app_ui/page_state module"
