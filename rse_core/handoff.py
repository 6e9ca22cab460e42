"""One view of the app as code to take away: rse_core Python, a ``rse`` command line and dsRAG's ``rse_params``.

Why one source: the three snippets must reproduce the same segments, so they are written from one
record of what produced them (parameters, scorer, file names, queries) and nothing else. Only file
names are written, never a server path: the reader runs the code beside their own copies.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, fields
from enum import Enum
from pathlib import PurePath

from rse_core.param_specs import PARAM_SPECS, ParamSpec
from rse_core.params import RSEParams
from rse_core.scoring.base import ScorerName

PLACEHOLDER_FILE = "your.pdf"
PLACEHOLDER_QUERY = "your query"
_MODEL_SCORERS = (ScorerName.COHERE, ScorerName.CROSS_ENCODER, ScorerName.EMBEDDER)
"""The scorers whose model the command line takes as ``--model`` (the others have one model); the
embedder scorer's is an embedder name (``mpnet``, ``openai:MODEL``), never an endpoint's URL."""


def literal(value: object) -> str:
    """``value`` as Python source: an enum by its plain value, never its ``<Enum.X: 'x'>`` repr."""
    return repr(value.value if isinstance(value, Enum) else value)


@dataclass(frozen=True)
class HandOff:
    """What reproduces one result outside the app.

    Attributes:
        params: every RSE parameter of the result.
        scorer: the scorer's name as ``get_scorer`` and ``rse --scorer`` take it.
        files: the documents' file names, in the app's order (a path keeps only its last part).
        queries: the queries, in order.
        model: the scorer's model, written only for the scorers that take one.
    """

    params: RSEParams
    scorer: str
    files: tuple[str, ...] = (PLACEHOLDER_FILE,)
    queries: tuple[str, ...] = (PLACEHOLDER_QUERY,)
    model: str | None = None

    @classmethod
    def of(
        cls,
        params: RSEParams,
        scorer: str | ScorerName,
        files: Sequence[str] = (),
        queries: Sequence[str] = (),
        model: str | None = None,
    ) -> HandOff:
        """A hand-off with placeholders for what is not known (the Evaluate page tunes over many files)."""
        scorer_name = ScorerName.parse(scorer)
        return cls(
            params=params,
            scorer=scorer_name.value,
            files=tuple(PurePath(name).name for name in files) or (PLACEHOLDER_FILE,),
            queries=tuple(queries) or (PLACEHOLDER_QUERY,),
            model=model if scorer_name in _MODEL_SCORERS and model else None,
        )

    def python(self) -> str:
        """rse_core code that reruns the result: every parameter, the same documents, queries and scorer."""
        fields_text = "".join(
            f"    {field.name}={literal(getattr(self.params, field.name))},\n" for field in fields(RSEParams)
        )
        documents = ", ".join(f"load_document({name!r})" for name in self.files)
        model = f", model={self.model!r}" if self.model else ""
        imports = "from rse_core import RSEParams, extract, get_scorer, load_document\n"
        if self.scorer == ScorerName.EMBEDDER and self.model:  # an object, not a name: the embedder the app scored with
            model = f", embedder=embedder_from_name({self.model!r})"
            imports += (
                "from rse_core.embedders import embedder_from_name  # an endpoint's URL and key: from the environment\n"
            )
        return (
            imports + "\n"
            f"params = RSEParams(\n{fields_text})\n"
            f"documents = [{documents}]\n"
            f"queries = {list(self.queries)!r}\n"
            f"result = extract(documents, queries, params, get_scorer({self.scorer!r}{model}))\n"
            "print(result.rse_context())\n"
        )

    def command(self) -> str:
        """The ``rse`` command line: the default preset plus a flag for each parameter that differs."""
        words = ["rse", *self.files]
        for query in self.queries:
            words += ["--query", query]
        words += ["--scorer", self.scorer]
        if self.model:
            words += ["--model", self.model]
        default = RSEParams()
        for spec in PARAM_SPECS:
            value = getattr(self.params, spec.name)
            if value != getattr(default, spec.name):
                words += _flag(spec, value)
        return shlex.join(words)

    def dsrag(self) -> str:
        """Python that passes these parameters to dsRAG's knowledge base query."""
        body = "".join(f"    {name!r}: {literal(value)},\n" for name, value in self.params.to_dsrag().items())
        return (
            "# dsRAG: the parameters tuned in rse-explorer (see the note on the scorer they were tuned with)\n"
            f"rse_params = {{\n{body}}}\n"
            f"results = kb.query({list(self.queries)!r}, rse_params=rse_params)\n"
        )


def _flag(spec: ParamSpec, value: object) -> list[str]:
    """The command-line words that set ``spec`` to ``value``."""
    if spec.kind is bool:
        flag = spec.cli if value else spec.cli_off
        if flag is None:
            raise ValueError(f"The command line cannot set {spec.name} to {value!r}.")
        return [flag]
    if spec.cli is None:
        raise ValueError(f"The command line has no flag for {spec.name}.")
    return [spec.cli, str(value.value if isinstance(value, Enum) else value)]
