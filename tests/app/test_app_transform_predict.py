"""Transform lab's predict step in AppTest: the transform hidden until Reveal, the run's scores beside
scores that bunch near 0 and 1 (labelled an illustration on screen), and the measured answer."""

from __future__ import annotations

from rse_core.teaching.transform_cases import Prediction, bunched_illustration, prediction_answer, run_case
from tests.app.test_app_teaching import figures, start
from tests.support.apptest_support import result_of


def names(figure: dict) -> list[str]:
    return [trace["name"] for trace in figure["data"]]


def test_the_transform_is_hidden_until_reveal_then_the_measured_answer_shows():
    at = start("transform-lab")
    run, bunched = figures(at)[:2]
    assert names(run) == names(bunched) == ["calibrated"]  # before Reveal: no transformed bars
    assert "Illustration" in bunched["layout"]["title"]["text"]
    assert any("Illustration, not a reranker's output" in caption.value for caption in at.caption)
    assert not [m for m in [*at.success, *at.warning, *at.info] if "Answer:" in m.value]

    result = result_of(at)
    values = result.values[0]
    bunched_case = bunched_illustration(result.params, len(values))
    at.radio(key="tl_prediction").set_value(Prediction.SPREAD).run()
    at.toggle(key="tl_reveal").set_value(True).run()
    assert not at.exception
    run, bunched = figures(at)[:2]
    assert names(run) == names(bunched) == ["calibrated", "beta-transformed"]
    assert prediction_answer(bunched_case) is Prediction.SPREAD
    assert any(m.value.startswith("Your prediction was right.") for m in at.success)
    run_answer = prediction_answer(run_case(values, "bm25"))
    answers = [m.value for m in [*at.success, *at.warning]]
    assert sum(f"Answer: {run_answer.label}" in text.replace("\\", "") for text in answers) >= 1
