"""Answers side by side: the same question and prompt, one context per column, streamed in.

Configuration (provider, base URL, model, key) is kept for the whole session by
:mod:`app_ui.llm_settings` and never in the URL; the key is a password field. The operator's
``OPENAI_API_KEY`` / ``CO_API_KEY`` (environment or ``.streamlit/secrets.toml``) go only to the
operator's endpoint: :func:`rse_core.llm.endpoints.resolve_endpoint` decides, and a typed base URL
needs a typed key. Answers are bounded (``RSE_LLM_MAX_CHARS``, ``RSE_LLM_MAX_SECONDS``) and
streamed piece by piece. With nothing configured the panel shows the exact prompts that would be
sent and how to set an endpoint up. Answers are kept per (result settings, model, context) for the
session, so a rerun does not ask again.
"""

from __future__ import annotations

import html
import queue
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import streamlit as st
from cachetools import FIFOCache

from rse_core import ExtractionResult, RSEError
from rse_core.llm.answers import (
    DEFAULT_MODELS,
    KEY_VARIABLES,
    AnswerContext,
    LLMProvider,
    LLMSettings,
    answer_contexts,
    build_messages,
    prompt_text,
)
from rse_core.llm.collect import collect_answer
from rse_core.llm.endpoints import Endpoint, resolve_endpoint

from .. import caching, keys, llm_settings
from ..safe_text import md

_STORE_ENTRIES = 40
PROVIDER_LABELS = {
    LLMProvider.OPENAI: "OpenAI-compatible (OpenAI, Ollama, llama.cpp, vLLM)",
    LLMProvider.COHERE: "Cohere chat",
}
CHIPS = {"rse": "segment", "top_k": "topk", "top_k_budget": "topk", "window": "muted"}

SETTINGS_LABEL = "LLM for answers"
HOW_TO = (
    f"No LLM is configured, so nothing is sent. To get answers, open **{SETTINGS_LABEL}** on this page and give "
    "an OpenAI-compatible base URL (for example `http://localhost:11434/v1` for Ollama), a model and, if "
    "the server needs one, a key; or choose Cohere chat with a Cohere key. Or start the app with "
    "`OPENAI_BASE_URL`, `RSE_LLM_MODEL` and `OPENAI_API_KEY` (or `CO_API_KEY`) in the environment or in "
    "`.streamlit/secrets.toml`. Keys never go into the URL, the exports or a message. A base URL typed here "
    "is contacted only at a public address unless the app was started with the host in "
    "`RSE_ALLOWED_PRIVATE_HOSTS` (for example `localhost`)."
)


@dataclass(frozen=True)
class StoredAnswer:
    text: str
    error: str | None
    input_tokens: int | None
    output_tokens: int | None
    seconds: float


def _secrets() -> dict[str, object]:
    try:
        return {name: st.secrets.get(name) for name in KEY_VARIABLES.values() if st.secrets.get(name)}
    except Exception:  # no secrets file: not an error
        return {}


def current_settings() -> tuple[LLMSettings | None, Endpoint | None, str]:
    """(settings, endpoint, problem): settings is ``None`` when nothing usable is configured.

    The endpoint carries the key the policy allows for it (the operator's only for the operator's
    endpoint); build a client with ``endpoint.client(settings)``.
    """
    provider = llm_settings.value(llm_settings.PROVIDER)
    base_url = llm_settings.value(llm_settings.BASE_URL).strip()
    model = llm_settings.value(llm_settings.MODEL).strip() or DEFAULT_MODELS[provider]
    try:
        endpoint = resolve_endpoint(provider, base_url, llm_settings.value(llm_settings.API_KEY), secrets=_secrets())
    except RSEError as error:  # a refused endpoint: the message names neither key nor credentials
        return None, None, str(error)
    if provider == LLMProvider.OPENAI and not base_url and endpoint.api_key is None:
        return None, None, "No OpenAI-compatible endpoint: give a base URL (a local server) or an API key."
    if provider == LLMProvider.COHERE and endpoint.api_key is None:
        return None, None, "No Cohere API key."
    if not model:
        return None, None, "No model name."
    try:
        return endpoint.settings(model), endpoint, ""
    except RSEError as error:
        return None, None, str(error)


def render_settings(prefix: str, *, compact: bool = False) -> None:
    """The LLM settings, folded away (they rarely change during a demo).

    ``compact``: a small button that opens them in a popover (the Demo's answers step). The values
    are the session's (:mod:`app_ui.llm_settings`): typed on one page, used on every page.
    """
    if compact:
        container = st.popover(SETTINGS_LABEL, icon=":material/settings:")
    else:
        container = st.expander(SETTINGS_LABEL, icon=":material/settings:")
    with container:
        _settings_widgets()


def _settings_widgets() -> None:
    for setting in llm_settings.FIELDS:
        llm_settings.seed(setting)
    st.radio(
        "Provider",
        tuple(LLMProvider),
        format_func=PROVIDER_LABELS.get,
        key=keys.ANSWERS_PROVIDER,
        horizontal=True,
        on_change=llm_settings.keep,
        args=(llm_settings.PROVIDER,),
    )
    provider = llm_settings.value(llm_settings.PROVIDER)
    columns = st.columns(3)
    columns[0].text_input(
        "Base URL",
        key=keys.ANSWERS_BASE_URL,
        placeholder="http://localhost:11434/v1" if provider == LLMProvider.OPENAI else "https://api.cohere.com",
        help="The API root. Empty: the server's endpoint (its operator's, else OpenAI's or Cohere's public one). "
        "Another address is contacted only if public, or if the operator allows its host.",
        on_change=llm_settings.keep,
        args=(llm_settings.BASE_URL,),
    )
    columns[1].text_input(
        "Model",
        key=keys.ANSWERS_MODEL,
        placeholder=DEFAULT_MODELS[provider] or "gpt-4o-mini",
        on_change=llm_settings.keep,
        args=(llm_settings.MODEL,),
    )
    columns[2].text_input(
        "API key",
        type="password",
        key=keys.ANSWERS_API_KEY,
        help=f"Or set {KEY_VARIABLES[provider]} in the environment or .streamlit/secrets.toml. "
        "Never put in the URL, the exports or a message.",
        on_change=llm_settings.keep,
        args=(llm_settings.API_KEY,),
    )


def render_answers(
    result: ExtractionResult,
    prefix: str,
    contexts: Sequence[AnswerContext] | None = None,
    *,
    auto_ask: bool = False,
    show_prompt: bool = True,
) -> dict[str, StoredAnswer]:
    """The answer from each context side by side; returns the answers shown (for the report).

    ``auto_ask``: ask as soon as the panel is drawn (the demo), instead of on a button.
    """
    contexts = list(contexts or answer_contexts(result))
    question = "\n".join(result.queries)
    prompts = {context.key: build_messages(question, context.text) for context in contexts}
    settings, endpoint, problem = current_settings()

    if show_prompt:
        with st.expander("The prompt (the same for every context)", icon=":material/content_copy:"):
            st.caption("Only {context} differs between the calls. Copy it with the button at the code's corner.")
            st.code(prompt_text(build_messages(question, "{context}")), language=None, wrap_lines=True)

    if settings is None:
        _render_exact_prompts(problem, contexts, prompts)
        return {}

    store = answer_store()
    identity = (result.settings_key, settings)
    total_tokens = sum(context.estimated_tokens for context in contexts)
    st.caption(
        f"{len(contexts)} calls to {html.escape(settings.describe())}, about {total_tokens:,} input tokens in all "
        "(estimated at 4 characters a token; the server's counts appear under each answer)."
    )
    ask = _ask(settings, prefix, contexts, store, identity, auto_ask)
    slots = _answer_slots(contexts)
    if ask:
        _stream_all(settings, endpoint, contexts, prompts, slots, store, identity)
    shown: dict[str, StoredAnswer] = {}
    for context in contexts:
        answer = store.get((identity, context.key))
        body, meta = slots[context.key]
        if answer is None:
            body.caption("Not asked yet.")
            continue
        shown[context.key] = answer
        _draw(body, meta, answer)
    return shown


def answer_store() -> FIFOCache:
    """This session's answers by ((result settings, LLM settings), context key), the last few kept."""
    return caching.session_fifo(keys.ANSWERS, _STORE_ENTRIES)


def _render_exact_prompts(problem: str, contexts: list[AnswerContext], prompts: dict) -> None:
    """With no LLM configured: what to set up, and the exact prompt each context would send."""
    st.info(f"{md(problem)} {HOW_TO}", icon=":material/smart_toy:")
    tabs = st.tabs([f"{context.label}: the exact prompt" for context in contexts])
    for tab, context in zip(tabs, contexts, strict=True):
        with tab:
            st.code(prompt_text(prompts[context.key]), language=None, wrap_lines=True, height=320)


def _ask(settings: LLMSettings, prefix: str, contexts: list[AnswerContext], store, identity, auto_ask: bool) -> bool:
    """Whether to ask now: at once when ``auto_ask`` and answers are missing, else on the button
    (which asks again, dropping the stored answers, when every context has one)."""
    missing = [context for context in contexts if (identity, context.key) not in store]
    if auto_ask:
        return bool(missing)
    ask = st.button(
        f"Ask {settings.model} with each context" if missing else "Ask again",
        key=f"{prefix}_ask",
        icon=":material/forum:",
        type="primary",
    )
    if ask and not missing:
        for context in contexts:
            store.pop((identity, context.key), None)
    return ask


def _answer_slots(contexts: list[AnswerContext]) -> dict[str, tuple]:
    """One column per context: its label and size, then empty slots for the answer and its numbers."""
    columns = st.columns(len(contexts))
    slots = {}
    for column, context in zip(columns, contexts, strict=True):
        with column:
            st.html(
                f'<span class="rse-chip {CHIPS.get(context.key, "muted")}">{html.escape(context.label)}</span> '
                f"{context.document_characters:,} characters of document text · "
                f"≈{context.estimated_tokens:,} tokens sent"
            )
            slots[context.key] = (st.empty(), st.empty())
    return slots


def stored_answers(result: ExtractionResult) -> tuple[dict[str, StoredAnswer], str]:
    """Answers already fetched for this result with the current settings, and the model's name."""
    settings, _, _ = current_settings()
    if settings is None:
        return {}, ""
    store = answer_store()
    identity = (result.settings_key, settings)
    found = {key: answer for (owner, key), answer in store.items() if owner == identity}
    order = [context.key for context in answer_contexts(result)]  # the page's order, not the finishing order
    found = dict(sorted(found.items(), key=lambda item: order.index(item[0]) if item[0] in order else len(order)))
    return found, settings.model if found else ""


def _draw(body, meta, answer: StoredAnswer) -> None:
    if answer.error:
        body.error(md(answer.error, 500), icon=":material/error:")
    else:
        body.markdown(_escape_markdown(answer.text) or "_(empty answer)_")
    tokens = (
        f" · {answer.input_tokens:,} tokens in, {answer.output_tokens:,} out (server's count)"
        if answer.input_tokens is not None and answer.output_tokens is not None
        else ""
    )
    meta.caption(f"{answer.seconds:.1f} s{tokens}")


def _stream_all(settings, endpoint: Endpoint, contexts, prompts, slots, store, identity) -> None:
    """Ask for every context at once (one thread each) and draw the pieces as they arrive.

    Threads send only new pieces; this thread keeps one growing list per context, so an answer is
    held once however many pieces it has (bounded by ``RSE_LLM_MAX_CHARS``).
    """
    updates: queue.Queue = queue.Queue()

    def work(context: AnswerContext) -> None:
        try:
            client = endpoint.client(settings)
            answer = collect_answer(client, prompts[context.key], lambda piece: updates.put((context.key, piece, None)))
            final = StoredAnswer(
                answer.text, answer.error, answer.usage.input_tokens, answer.usage.output_tokens, answer.seconds
            )
        except RSEError as error:  # every message from the LLM modules is already scrubbed of the key
            final = StoredAnswer("", str(error), None, None, 0.0)
        except Exception as error:  # a bug must not leave the column spinning
            final = StoredAnswer("", f"The answer failed ({type(error).__name__}).", None, None, 0.0)
        updates.put((context.key, None, final))

    threads = [threading.Thread(target=work, args=(context,), daemon=True) for context in contexts]
    for thread in threads:
        thread.start()
    pending = {context.key for context in contexts}
    shown: dict[str, list[str]] = {context.key: [] for context in contexts}
    for context in contexts:
        slots[context.key][0].caption("Waiting for the first words...")
    while pending:
        try:
            context_key, piece, final = updates.get(timeout=0.1)
        except queue.Empty:
            continue
        if final is not None:
            store[(identity, context_key)] = final
            pending.discard(context_key)
            shown.pop(context_key, None)
            continue
        pieces = shown[context_key]
        pieces.append(piece)
        if updates.empty():  # draw when caught up, not once per piece
            slots[context_key][0].markdown(_escape_markdown("".join(pieces)) + " ▌")


def _escape_markdown(text: str) -> str:
    """An LLM's answer shown as text: HTML escaped, Markdown's special characters neutralised."""
    escaped = html.escape(text, quote=False)
    for char in "\\`*_{}[]()#+-!|~>$":
        escaped = escaped.replace(char, "\\" + char)
    return escaped
