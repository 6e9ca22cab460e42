"""The command lines' parameter options, made from the parameters' specs (:mod:`rse_core.param_specs`).

Every option defaults to ``None``, "keep the preset's value", so :func:`param_changes` returns only
what the user typed; a command applies it with ``preset(...).with_changes(**changes)``.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable

from rse_core.param_specs import PARAM_SPECS, ParamSpec


def add_param_options(parser: argparse.ArgumentParser, specs: Iterable[ParamSpec] = PARAM_SPECS) -> None:
    """One option per spec with a flag (a switch gets its on and off flags), stored under the field's name."""
    for spec in specs:
        if spec.kind is bool:
            _add_switch(parser, spec)
        elif spec.cli is not None:
            kind = {"choices": spec.choices} if spec.choices else {"type": spec.kind}
            metavar = None if spec.choices else spec.cli.removeprefix("--").replace("-", "_").upper()
            parser.add_argument(spec.cli, dest=spec.name, metavar=metavar, help=spec.help.replace("%", "%%"), **kind)


def _add_switch(parser: argparse.ArgumentParser, spec: ParamSpec) -> None:
    flags = [(flag, value) for flag, value in ((spec.cli, True), (spec.cli_off, False)) if flag is not None]
    group = parser.add_mutually_exclusive_group()
    for flag, value in flags:
        action = "store_true" if value else "store_false"
        shown = spec.help if len(flags) == 1 or value else f"the opposite of {spec.cli}"
        group.add_argument(flag, dest=spec.name, action=action, default=None, help=shown.replace("%", "%%"))


def param_changes(args: argparse.Namespace, specs: Iterable[ParamSpec] = PARAM_SPECS) -> dict[str, object]:
    """The parameters the user set on the command line (field -> value)."""
    return {spec.name: value for spec in specs if (value := getattr(args, spec.name, None)) is not None}
