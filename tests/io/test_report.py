"""HTML report: parameters, ledger, data-independent errors, guarantees; no true counts; no overwrite."""

import math
import re

import numpy as np
import pytest

from dpstudio.algorithms.interval_trees import IntervalTreeParams, run_interval_tree
from dpstudio.core.budget import Ledger
from dpstudio.core.events import NodeCreated
from dpstudio.core.noise import SecureNoise, SimulationNoise
from dpstudio.io.atomic import OutputPathError
from dpstudio.io.report import report_html, write_report
from dpstudio.model.budget_plan import default_plan


def histogram_run(noise, teaching, counts):
    ledger = Ledger(1)
    events = list(run_interval_tree(counts, IntervalTreeParams("hb", 1, 4), noise, ledger, teaching=teaching))
    return events, events[-1].result, ledger


def test_release_report_holds_ledger_guarantee_and_analytic_error():
    counts = np.full(16, 1000)
    _, result, ledger = histogram_run(SecureNoise(), False, counts)
    html = report_html(result, ledger)
    assert "1-differential privacy" in html and "add/remove one record" in html
    assert "NOT A RELEASE" not in html
    assert ledger.entries[0].step in html
    mse = result.plan.expected_consistent_mse
    assert f"{mse:.6g}" in html
    assert f"{math.sqrt(mse):.6g}" in html
    assert "<script" not in html


def test_teaching_report_is_marked_and_has_no_true_counts():
    counts = np.full(16, 123457)  # distinctive true counts
    events, result, ledger = histogram_run(SimulationNoise(1), True, counts)
    trues = {e.true_count for e in events if isinstance(e, NodeCreated)}
    assert 123457 in trues and 123457 * 16 in trues
    html = report_html(result, ledger)
    assert "NOT A RELEASE" in html
    numbers = set(re.findall(r"\d+", html))
    for t in trues:
        assert str(t) not in numbers


def test_table_report_includes_split_and_escapes_labels():
    from tests.gui.export_fixtures import run, table_project

    p = table_project()
    p.set_mode("release")
    run(p)
    plan = default_plan(p.algorithm, {"steps": 3, "numeric_attributes": 1}, p.epsilon)
    html = report_html(p.result, p.run_ledger, plan=plan, params={"note": "<b>x</b>"})
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html
    assert "epsilon per selection step" in html
    assert "consistency" in html.lower()


def test_write_report_is_atomic_and_refuses_overwrite(tmp_path):
    _, result, ledger = histogram_run(SimulationNoise(0), False, np.arange(16))
    path = write_report(tmp_path / "r.html", result, ledger)
    assert path.read_text().startswith("<!DOCTYPE html>")
    with pytest.raises(OutputPathError):
        write_report(tmp_path / "r.html", result, ledger)
    assert [x.name for x in tmp_path.iterdir()] == ["r.html"]
