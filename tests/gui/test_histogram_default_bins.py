"""LUEDPTree and the other histograms default to one bin per whole number on small integer bounds."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpstudio.gui.panels.algorithm import AlgorithmPanel
from dpstudio.model.project.project import Project


def age_project(lo=17, hi=91, kind=None):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"age": rng.integers(17, 91, 500).astype(float), "income": rng.choice(["a", "b"], 500)})
    p = Project()
    p.set_data(df, None, types={"age": "numeric", "income": "categorical"})
    p.set_bounds("age", lo, hi)
    if kind:
        p.set_numeric_type("age", kind)
    p.set_algorithm("luedptree", {})
    return p


def test_default_bins_from_the_public_bounds_and_kind():
    from dpstudio.model.release.runs import default_bins

    assert default_bins(age_project()) == 74  # one bin per year of [17, 91)
    assert default_bins(age_project(kind="continuous")) == 256
    assert default_bins(age_project(0, 100000)) == 256  # too many whole numbers for one bin each
    assert default_bins(age_project(16.5, 91)) == 256


def test_luedptree_panel_shows_and_runs_one_bin_per_year(qtbot):
    project = age_project()
    panel = AlgorithmPanel(project)
    qtbot.addWidget(panel)
    panel.set_algorithm("luedptree")
    assert panel.param_widgets["bins"].value() == 74
    run = panel.run()
    qtbot.waitUntil(lambda: project.result is not None, timeout=60000)
    assert run.outcome == "finished" and project.result.plan.tree.n_bins == 74
    assert np.array_equal(project.result.params.edges, np.arange(17, 92))  # bins [17,18), ..., [90,91)


def offered_and_run(qtbot, name: str):
    """Choose ``name`` in the Algorithm panel's list (it must be offered; its split is the engine's, locked)
    and run it on 74 one-year bins: (project, panel, the engine's own plan for the same inputs)."""
    from dpstudio.algorithms.interval_trees import IntervalTreeParams, plan_interval_tree
    from dpstudio.core.budget import as_fraction

    project = age_project()
    panel = AlgorithmPanel(project)
    qtbot.addWidget(panel)
    assert name in [panel.combo.itemData(i) for i in range(panel.combo.count())]
    panel.set_algorithm(name)
    assert panel.bar.locked  # the engine chooses the budgets
    run = panel.run()
    qtbot.waitUntil(lambda: project.result is not None, timeout=60000)
    assert run.outcome == "finished"
    return project, panel, plan_interval_tree(74, IntervalTreeParams(name, as_fraction(project.epsilon), None, True))


def test_hopt_is_offered_runs_from_the_panel_and_matches_the_engine(qtbot):
    """H_opt (level budgets optimised for the error after least squares) was in the CLI only."""
    project, panel, engine = offered_and_run(qtbot, "hopt")
    got = project.result.plan
    assert got.algorithm == "hopt" and got.branching == engine.branching
    assert np.array_equal(got.epsilons, engine.epsilons)
    # the ledger paid at most epsilon on every root-to-leaf path
    t = got.tree
    for leaf in np.flatnonzero(np.bincount(t.parents[1:], minlength=t.n_nodes) == 0):
        path, v = 0.0, int(leaf)
        while v >= 0:
            path += float(got.epsilons[v])
            v = int(t.parents[v])
        assert path <= float(project.epsilon) + 1e-12
    # the bar shows the plan's level shares, summing to epsilon
    assert sum(panel.split()) == project.epsilon


def test_pidentity_is_offered_runs_from_the_panel_and_is_the_engines_plan(qtbot):
    """p-Identity, the CLI's usual automatic choice, was missing from the studio's list."""
    project, panel, engine = offered_and_run(qtbot, "pidentity")
    assert "branching" not in panel.param_widgets  # no tree, one spend
    got = project.result.plan
    assert got.algorithm == "pidentity" and np.array_equal(got.weights, engine.weights)
    assert np.array_equal(got.bin_epsilons, engine.bin_epsilons)
    # one spend of epsilon, and no record's bin is charged more than that over the bins and the sums
    assert float(got.bin_path_sums().max()) <= float(project.epsilon)
    assert [float(e.epsilon) for e in project.run_ledger.entries] == [float(project.epsilon)]
    assert project.result.released.shape == (74,)


def test_the_bins_follow_their_default_until_chosen_and_restart_with_a_new_file(qtbot, tmp_path):
    """The real window: p-Identity kept 74 bins (Adult's age bounds) on a file without bounds."""
    project = age_project()
    panel = AlgorithmPanel(project)
    qtbot.addWidget(panel)
    panel.set_algorithm("pidentity")
    assert panel.param_widgets["bins"].value() == 74
    project.set_bounds("age", 20, 60)  # untouched: follows the new bounds
    assert panel.param_widgets["bins"].value() == 40 and project.params["bins"] == 40
    panel.set_param("bins", 20)  # chosen: kept through a change of bounds
    project.set_bounds("age", 17, 91)
    assert panel.param_widgets["bins"].value() == 20
    df = pd.DataFrame({"age": np.arange(100) % 50 + 18.0, "plan": ["a", "b"] * 50})
    project.set_data(df, tmp_path / "other.csv", types={"age": "numeric", "plan": "categorical"})
    assert panel.param_widgets["bins"].value() == 256  # no bounds yet: the general default
