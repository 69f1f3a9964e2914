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
    html = report_html(p.result, p.run_ledger, params={"note": "<b>x</b>"})
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


def _rows(html):
    """{first cell: second cell} of every table row in the report's expected-error section."""
    section = html[html.index("<h2>Expected error"):html.index("<h2>Post-processing")]
    return {a: b for a, b in re.findall(r"<tr><td[^>]*>([^<]*)</td><td[^>]*>([^<]*)</td>", section)}


def test_cli_report_describes_the_non_default_split_that_ran(tmp_path):
    """--count-share 3/4 at epsilon 2, h = 3, one numeric attribute: every selection and split-point call gets
    2 (1 - 3/4) / (1 + 2*3) = 1/14, the counts 3/2 (the default split would give them 1)."""
    from dpstudio.cli import main

    data = tmp_path / "d.csv"
    data.write_text("age,sex,y\n" + "".join(f"{20 + i % 50},{'MF'[i % 2]},{'ab'[i % 3 == 0]}\n" for i in range(200)))
    tax = tmp_path / "sex.csv"
    tax.write_text("M;Any\nF;Any\n")
    out = tmp_path / "r.csv"
    assert main(["release", "--data", str(data), "--class", "y", "--classes", "a,b", "--taxonomy", f"sex={tax}",
                 "--bounds", "age=0:100", "--algorithm", "diffgen", "--epsilon", "2", "--steps", "3",
                 "--count-share", "3/4", "--out", str(out), "--report", str(tmp_path / "r.html")]) == 0
    rows = _rows((tmp_path / "r.html").read_text())
    assert float(rows["selection"]) == pytest.approx(3 / 14, rel=1e-5)
    assert float(rows["split points"]) == pytest.approx(4 / 14, rel=1e-5)
    assert float(rows["counts"]) == pytest.approx(3 / 2)
    assert float(rows["epsilon per selection step"]) == pytest.approx(1 / 14, rel=1e-5)
    assert float(rows["epsilon per split-point choice"]) == pytest.approx(1 / 14, rel=1e-5)
    assert float(rows["count noise variance per cell"]) == pytest.approx(2 / (3 / 2) ** 2, rel=1e-5)


def test_studio_report_describes_the_split_drawn_in_the_algorithm_panel():
    """A custom split (1/10 selection, 1/10 split points, 8/10 over the levels) is what the report shows."""
    from fractions import Fraction

    from dpstudio.model import budget_plan as bp
    from tests.gui.export_fixtures import run, table_project

    p = table_project(steps=3)
    p.set_mode("release")
    params = {**p.params, "numeric_attributes": 1}
    plan = bp.default_plan(p.algorithm, params, p.epsilon)
    levels = len(plan.level_shares())
    shares = [Fraction(1, 10), Fraction(1, 10)] + [Fraction(8, 10) / levels] * levels
    p.set_algorithm(p.algorithm, {**p.params, **plan.with_shares(shares).to_params()})
    run(p)
    rows = _rows(report_html(p.result, p.run_ledger))
    assert float(rows["selection"]) == pytest.approx(0.1) and float(rows["split points"]) == pytest.approx(0.1)
    assert float(rows["epsilon per selection step"]) == pytest.approx(0.1 / 3)
    assert float(rows["leaf-only release: variance per cell"]) == pytest.approx(2 / 0.8 ** 2)
    for level in range(levels):
        assert float(rows[f"node variance at level {level}"]) == pytest.approx(2 / (0.8 / levels) ** 2)
