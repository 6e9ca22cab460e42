"""Small readability fixes: whole table headers on Evaluate, and no rounding that reads as a contradiction."""

from __future__ import annotations

import json

from app_ui.components import number_below
from tests.support.apptest_support import new_app, no_problems, open_page
from views.evaluate import header_width


def test_a_rejected_value_never_rounds_up_to_the_minimum():
    assert number_below(0.2996, 0.3) == "0.2996"
    assert number_below(0.25, 0.3) == "0.25"
    assert float(number_below(0.29999, 0.3).replace("\u2212", "-")) < 0.3
    assert number_below(0.2999999999, 0.3) == "just under 0.3"


def test_every_per_query_header_fits_its_column():
    at = open_page(new_app(docs="employee_handbook").run(), "evaluate")
    no_problems(at)
    for metric in ("recall", "chars"):
        at.segmented_control(key="ev_table_metric").set_value(metric).run()
        no_problems(at)
        table = at.dataframe(key="ev_table")
        config = json.loads(table.proto.columns)
        shown = [name for name in table.proto.column_order]
        assert len(shown) == 8  # id, kind, query, five methods
        for name in shown:
            column = config[name]
            label = column.get("label") or name
            assert column["width"] >= header_width(label) or name == "id", (label, column["width"])
        assert any(config[name].get("label") == "top-k, RSE's budget" for name in shown)
