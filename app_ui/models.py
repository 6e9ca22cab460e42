"""Which models a user of this server may load: only the local folders the operator lists.

A link or a sidebar field must never make the server open a path or download a model. So the
cross-encoder scorer offers a fixed list, read from ``RSE_CROSS_ENCODER_MODELS`` (folders joined
with ``os.pathsep``) or the ``RSE_CROSS_ENCODER_MODELS`` entry of ``.streamlit/secrets.toml`` (a
list or one string), and users pick a model by its folder's name. Any other name gets one
message that does not depend on the name, so nobody can probe which server paths exist. The app
also switches the Hugging Face libraries to offline mode unless the operator sets
``RSE_ALLOW_HUB=1`` (:func:`apply_hub_policy`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import MutableMapping
from pathlib import Path

import streamlit as st

MODELS_ENV = "RSE_CROSS_ENCODER_MODELS"
ALLOW_HUB_ENV = "RSE_ALLOW_HUB"
OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")


def apply_hub_policy(environ: MutableMapping[str, str] = os.environ) -> bool:
    """Set ``HF_HUB_OFFLINE=1`` and ``TRANSFORMERS_OFFLINE=1`` unless ``RSE_ALLOW_HUB=1``; return
    whether the hub stays reachable.

    ``huggingface_hub`` reads the variable when it is imported; if something imported it
    already, its constant is switched too.
    """
    if environ.get(ALLOW_HUB_ENV, "").strip() == "1":
        return True
    for name in OFFLINE_VARIABLES:
        environ[name] = "1"
    constants = sys.modules.get("huggingface_hub.constants")
    if constants is not None and environ is os.environ:
        constants.HF_HUB_OFFLINE = True
    return False


def offered_cross_encoders() -> dict[str, Path]:
    """Name shown to users -> local folder, in the operator's order (names made unique)."""
    entries = [entry for entry in os.environ.get(MODELS_ENV, "").split(os.pathsep) if entry.strip()]
    entries += _from_secrets()
    offered: dict[str, Path] = {}
    for entry in entries:
        path = Path(entry.strip()).expanduser()
        name = path.name or str(path)
        unique, number = name, 2
        while unique in offered and offered[unique] != path:
            unique, number = f"{name}-{number}", number + 1
        offered[unique] = path
    return offered


def _from_secrets() -> list[str]:
    try:
        value = st.secrets.get(MODELS_ENV)
    except Exception:  # no secrets file, or one that does not parse: nothing configured there
        return []
    if isinstance(value, str):
        return [entry for entry in value.split(os.pathsep) if entry.strip()]
    if isinstance(value, (list, tuple)):
        return [str(entry) for entry in value if str(entry).strip()]
    return []


def not_offered_message() -> str:
    """The answer to any model name that is not offered: the same words for every name."""
    if not offered_cross_encoders():
        return (
            "No cross-encoder model is offered on this server (the operator lists local model folders "
            f"in {MODELS_ENV}); choose another scorer."
        )
    return "That cross-encoder model is not offered on this server; pick one of the offered models in the sidebar."
