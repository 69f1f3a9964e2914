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
from dpstudio.model.release.report_facts import report_facts


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
    html = report_html(p.result, p.run_ledger, params={"note": "<b>x</b>"}, facts=report_facts(p.result))
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
    section = html[html.index("<h2>Expected error") : html.index("<h2>Post-processing")]
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
    assert (
        main(
            [
                "release",
                "--data",
                str(data),
                "--class",
                "y",
                "--classes",
                "a,b",
                "--taxonomy",
                f"sex={tax}",
                "--bounds",
                "age=0:100",
                "--algorithm",
                "diffgen",
                "--epsilon",
                "2",
                "--steps",
                "3",
                "--count-share",
                "3/4",
                "--out",
                str(out),
                "--report",
                str(tmp_path / "r.html"),
            ]
        )
        == 0
    )
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

    from dpstudio.model.release import budget_plan as bp
    from tests.gui.export_fixtures import run, table_project

    p = table_project(steps=3)
    p.set_mode("release")
    params = {**p.params, "numeric_attributes": 1}
    plan = bp.default_plan(p.algorithm, params, p.epsilon)
    levels = len(plan.level_shares())
    shares = [Fraction(1, 10), Fraction(1, 10)] + [Fraction(8, 10) / levels] * levels
    p.set_algorithm(p.algorithm, {**p.params, **plan.with_shares(shares).to_params()})
    run(p)
    rows = _rows(report_html(p.result, p.run_ledger, facts=report_facts(p.result)))
    assert float(rows["selection"]) == pytest.approx(0.1) and float(rows["split points"]) == pytest.approx(0.1)
    assert float(rows["epsilon per selection step"]) == pytest.approx(0.1 / 3)
    assert float(rows["leaf-only release: variance per cell"]) == pytest.approx(2 / 0.8**2)
    # an equal split of the levels is not what runs (the engine chooses the levels' shares for the tree's
    # shape): the report gives the bound a run can land on, not an equal per-level variance that never ran
    assert float(rows["node variance on any level: at least"]) == pytest.approx(2 / 0.8**2)
    assert not any(k.startswith("node variance at level") for k in rows)


# -- the summary a non-expert reads first (issue 9, item 8) ----------------------------------------------------
def _gls_variance(parents, node_var, leaves, query):
    """Variance of the least-squares estimate of sum(query over leaves), by brute-force GLS (independent of
    the bottom-up recursions): Sigma = (A^T D^-1 A)^-1 with A the node-by-leaf incidence."""
    parents = np.asarray(parents)
    A = np.zeros((parents.size, len(leaves)))
    for j, leaf in enumerate(leaves):
        node = leaf
        while node >= 0:
            A[node, j] = 1
            node = parents[node]
    w = np.where(np.isfinite(node_var), 1 / np.asarray(node_var, dtype=float), 0.0)
    sigma = np.linalg.inv(A.T @ (w[:, None] * A))
    q = np.asarray(query, dtype=float)
    return float(q @ sigma @ q)


def _summary(html):
    return html[html.index("<div class='summary'>") : html.index("</div>")]


def test_summary_comes_first_in_plain_words_with_inline_charts():
    from dpstudio.model.release.report_facts import report_facts
    from tests.gui.export_fixtures import run, table_project

    p = table_project(steps=3)
    p.set_mode("release")
    run(p)
    budget = {
        "tracked": True,
        "dataset": "survey",
        "charged": "1",
        "dataset_total": "5/2",
        "dataset_spent": "3/2",
        "dataset_remaining": "1",
    }
    html = report_html(p.result, p.run_ledger, facts=report_facts(p.result, budget))
    assert html.index("<h2>Summary") < html.index("<h2>Guarantee") < html.index("<h2>Budget ledger")
    summary = _summary(html)
    parts, k = p.result.leaf_values.shape[0], len(p.result.classes)
    assert f"{parts} groups of records" in summary and f"{parts * k} counts in all" in summary
    assert f"at most a factor of e<sup>&epsilon;</sup> = {math.exp(float(p.run_ledger.spent)):.3g}" in summary
    assert "dataset survey (2.5)" in summary and "1.5 has been spent" in summary and "<b>1 remains</b>" in summary
    assert summary.count("<svg") == 2
    assert "src=" not in html and "href=" not in html and "<script" not in html  # nothing fetched
    # the chart of the spends sums to what the ledger spent
    from dpstudio.io.report import spent_by_step

    assert sum(v for _, v in spent_by_step(p.run_ledger)) == pytest.approx(float(p.run_ledger.spent))
    assert sum(v for _, v in spent_by_step(p.run_ledger, max_bars=1)) == pytest.approx(float(p.run_ledger.spent))


def test_expected_error_by_size_of_a_consistent_table_equals_brute_force_least_squares():
    from dpstudio.model.release.report_facts import report_facts
    from tests.gui.export_fixtures import run, table_project

    p = table_project(steps=3)
    p.set_mode("release")
    r = run(p).result
    facts = report_facts(r)
    leaves = list(r.leaf_nodes)
    k, rmse = facts.error_by_size[-1]
    assert k == len(leaves)
    assert rmse**2 == pytest.approx(_gls_variance(r.tree.parents, r.tree.noise_variances, leaves, [1] * k))
    k1, rmse1 = facts.error_by_size[0]
    assert k1 == 1
    single = np.mean(
        [
            _gls_variance(r.tree.parents, r.tree.noise_variances, leaves, np.eye(len(leaves))[j])
            for j in range(len(leaves))
        ]
    )
    assert rmse1**2 == pytest.approx(single)
    assert f"&plusmn;{rmse1:.3g}" in _summary(report_html(r, p.run_ledger, facts=facts))


def test_expected_error_by_size_of_leaf_counts_and_of_a_histogram():
    from dpstudio.core.range_error import laplace_variance
    from dpstudio.model.release.report_facts import report_facts
    from tests.gui.export_fixtures import run, table_project

    p = table_project(steps=2, algorithm="diffgen")
    p.set_mode("release")
    r = run(p).result
    count = [e for e in p.run_ledger.entries if e.step.startswith("counts")][0]
    v = laplace_variance(count.scale)
    for k, rmse in report_facts(r).error_by_size:
        assert rmse**2 == pytest.approx(k * v)
    _, h, ledger = histogram_run(SecureNoise(), False, np.full(16, 10))
    t = h.plan.tree
    leaves = [int(np.flatnonzero((t.lo == b) & (t.hi == b + 1) & (t.depth == t.depth.max()))[0]) for b in range(16)]
    n, rmse = report_facts(h).error_by_size[-1]
    assert n == 16
    assert rmse**2 == pytest.approx(_gls_variance(t.parents, h.plan.variances, leaves, [1] * 16))


def test_fractions_print_as_decimals():
    _, result, ledger = histogram_run(SecureNoise(), False, np.full(16, 10))
    long = "123456789012345678901/987654321098765432109"
    html = report_html(result, ledger, params={"level_epsilons": [long, "1/3"], "budget_split": {"a": long}})
    assert not re.search(r"\d{6,}/\d{6,}", html)
    assert "[0.125, 0.333333]" in html


def test_small_epsilons_print_as_plain_decimals():
    """A deep tree's count levels get tiny shares: the report said "5.24052e-05", which a reader of a release
    report should not have to decode. Six significant digits, written out."""
    _, result, ledger = histogram_run(SecureNoise(), False, np.full(16, 10))
    html = report_html(result, ledger, params={"level_epsilons": ["1/19082", "1/3"]})
    assert "[0.0000524054, 0.333333]" in html
    assert "e-05" not in html
