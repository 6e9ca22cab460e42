"""Teaching aids: the explanations a teacher writes on the board, computed rather than guessed.

Kept apart from the small core (documents, chunking, scoring, values, search, pipeline, topk),
which never imports from here. One module per thing explained:

- :mod:`.board`: every candidate segment of a small example (and every run: the lesson's
  Table 1), and checking a student's answer.
- :mod:`.answers`: reading and writing a student's typed answer (one grammar for every mode).
- :mod:`.score_steps`: from raw scores to values, column by column, and a beta lookup table.
- :mod:`.classroom`: the classroom examples (value lists, a raw-scores list, two queries).
- :mod:`.search_steps`: the greedy search turn by turn, with the constraint that bound each pick.
- :mod:`.chunk_explain`: why one chunk of a real corpus is in or out, and the penalty that flips it.
- the Plotly figures of the teaching pages are in :mod:`rse_core.figures.teaching`.
- :mod:`.wording`: chunk ranges as a teacher writes them (numbers: :mod:`rse_core.numerals`).
- :mod:`.calibration`: whether a document's values look uncalibrated for RSE, and what to change.

The public names are re-exported here, so ``from rse_core.teaching import explain_search`` works.
"""

from rse_core.teaching.answers import AnswerError, AnswerKind, format_segments, parse_segments
from rse_core.teaching.board import (
    MAX_TEACHING_VALUES,
    AnswerCheck,
    CandidateSegment,
    all_runs,
    candidate_segments,
    check_answer,
    check_typed_answer,
)
from rse_core.teaching.chunk_explain import (
    PENALTY_GRID_STEP,
    PENALTY_PRECISION,
    ChunkExplanation,
    explain_chunk,
    format_penalty,
)
from rse_core.teaching.score_steps import BetaRow, ValueRow, beta_lookup, value_rows
from rse_core.teaching.search_steps import Constraint, Relaxation, StepExplanation, StepKind, explain_search
from rse_core.teaching.wording import MINIMUM_RULE

__all__ = [
    "MAX_TEACHING_VALUES",
    "MINIMUM_RULE",
    "PENALTY_GRID_STEP",
    "PENALTY_PRECISION",
    "AnswerCheck",
    "AnswerError",
    "AnswerKind",
    "BetaRow",
    "CandidateSegment",
    "ChunkExplanation",
    "Constraint",
    "Relaxation",
    "StepExplanation",
    "StepKind",
    "ValueRow",
    "all_runs",
    "beta_lookup",
    "candidate_segments",
    "check_answer",
    "check_typed_answer",
    "explain_chunk",
    "explain_search",
    "format_penalty",
    "format_segments",
    "parse_segments",
    "value_rows",
]
