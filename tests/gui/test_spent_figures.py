"""After a run the Algorithm panel shows what ran, from the ledger, beside the plan: the count budget spent
and each level's node variance (the plan's equal split of the levels is a stand-in for diffgen-consistent,
whose run chooses the levels' shares); before the run it gives the bound a run can land on, not per-level
variances that never run."""

from __future__ import annotations

import pytest

from dpstudio.algorithms.diffgen_variance import discrete_laplace_variance
from dpstudio.gui.panels.algorithm import AlgorithmPanel
from dpstudio.io.report import spent_levels
from tests.gui.export_fixtures import run, table_project


def _rows(panel) -> dict:
    t = panel.figures
    return {t.item(r, 0).text(): t.item(r, 1).text() for r in range(t.rowCount())}


@pytest.mark.parametrize("mode", ["teaching", "release"])
def test_the_panel_shows_the_spent_levels_after_a_run(qtbot, mode):
    p = table_project(n=400, steps=4)
    p.set_mode(mode)
    panel = AlgorithmPanel(p)
    qtbot.addWidget(panel)
    before = _rows(panel)
    assert "node variance on any level: at least" in before
    assert not any(k.startswith(("node variance at level", "last run")) for k in before)
    run(p)
    # in a pass of the event loop of its own, not in the one that recorded the run (issue 35)
    assert not any(k.startswith("last run") for k in _rows(panel))
    qtbot.waitUntil(lambda: "last run: epsilon spent on counts" in _rows(panel), timeout=2000)
    after = _rows(panel)
    levels = spent_levels(p.run_ledger)
    assert len(levels) >= 2
    assert float(after["last run: epsilon spent on counts"].replace(",", "")) == pytest.approx(
        float(p.result.count_epsilon), rel=1e-3
    )
    for level, eps in levels:
        shown = float(after[f"last run: node variance at level {level}"].replace(",", ""))  # "816,100"
        assert shown == pytest.approx(discrete_laplace_variance(1 / float(eps)), rel=1e-3)
    # the levels did not run at the plan's equal split: the ledger's shares differ from one another
    assert len({eps for _, eps in levels}) > 1


def test_the_last_runs_rows_go_when_another_algorithm_is_chosen(qtbot):
    """Issue 32 item 6: after switching to p-Identity, the error table kept DiffGen's last-run rows."""
    p = table_project(n=400, steps=3)
    p.set_mode("teaching")
    panel = AlgorithmPanel(p)
    qtbot.addWidget(panel)
    run(p)
    qtbot.waitUntil(lambda: any(k.startswith("last run") for k in _rows(panel)), timeout=2000)
    p.set_bounds("age", 17, 90)
    p.set_algorithm("pidentity", {"bins": 16})
    qtbot.wait(10)
    assert not any(k.startswith("last run") for k in _rows(panel))
    p.set_algorithm("diffgen_consistency", {"steps": 3})
    qtbot.wait(10)
    assert any(k.startswith("last run") for k in _rows(panel))  # back beside the algorithm that ran
