"""Teaching aids: the explanations a teacher writes on the board, computed rather than guessed.

Kept apart from the small core (documents, chunking, scoring, values, search, pipeline, topk),
which never imports from here. One module per thing explained:

- :mod:`.board`: every candidate segment of a small example, and checking a student's answer.
- :mod:`.search_steps`: the greedy search turn by turn, with the constraint that bound each pick.
- :mod:`.chunk_explain`: why one chunk of a real corpus is in or out, and the penalty that flips it.
- :mod:`.charts`: the Plotly figures of the teaching pages (worked example, transform lab, sweep).
- :mod:`.wording`: numbers and chunk ranges as a teacher writes them.

The public names are re-exported here, so ``from rse_core.teaching import explain_search`` works.
"""

from .board import MAX_TEACHING_VALUES, AnswerCheck, CandidateSegment, candidate_segments, check_answer
from .chunk_explain import PENALTY_GRID_STEP, PENALTY_PRECISION, ChunkExplanation, explain_chunk
from .search_steps import Constraint, Relaxation, StepExplanation, StepKind, explain_search

__all__ = [
    "MAX_TEACHING_VALUES",
    "PENALTY_GRID_STEP",
    "PENALTY_PRECISION",
    "AnswerCheck",
    "CandidateSegment",
    "ChunkExplanation",
    "Constraint",
    "Relaxation",
    "StepExplanation",
    "StepKind",
    "candidate_segments",
    "check_answer",
    "explain_chunk",
    "explain_search",
]
