"""Compare panel: the plotted numbers equal the analytic and Monte-Carlo modules'; worker with cancel."""

import numpy as np
import pytest

from dpstudio.algorithms.interval_trees import IntervalTreeParams, run_interval_tree
from dpstudio.core.budget import Ledger
from dpstudio.core.noise import SimulationNoise
from dpstudio.core.range_error import consistent_error_by_length, laplace_variance, raw_error_by_length
from dpstudio.gui.panels.compare import ComparePanel
from dpstudio.model.compare import comparison as cmp
from dpstudio.model.project.project import Project


def histogram_project(n=64, b=4, eps=1.0, seed=3):
    p = Project()
    counts = np.random.default_rng(seed).poisson(20, size=n)
    ledger = Ledger(eps)
    events = list(
        run_interval_tree(counts, IntervalTreeParams("hb", eps, b), SimulationNoise(seed), ledger, teaching=True)
    )
    p.record_run(events, ledger, True)
    return p


@pytest.fixture
def panel(qtbot):
    w = ComparePanel(histogram_project())
    w.resize(1100, 650)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def test_analytic_curves_equal_core_range_error(panel):
    plan = panel.project.result.plan
    t = plan.tree
    x = panel.plot.series[f"{cmp.LEAST_SQUARES} (analytic)"]["x"]
    d = x.astype(int)
    np.testing.assert_allclose(
        panel.plot.series[f"{cmp.LEAST_SQUARES} (analytic)"]["y"],
        consistent_error_by_length(t.parents, t.lo, t.hi, t.n_bins, plan.variances, d),
    )
    np.testing.assert_allclose(
        panel.plot.series[f"{cmp.RAW_TREE} (analytic)"]["y"],
        raw_error_by_length(t.parents, t.lo, t.hi, t.n_bins, plan.variances, d),
    )
    np.testing.assert_allclose(
        panel.plot.series[f"{cmp.LEAF_ONLY} (analytic)"]["y"], d * laplace_variance(1.0 / plan.epsilon)
    )
    # consistency helps for long ranges: the analytic curves say so
    ls = panel.plot.series[f"{cmp.LEAST_SQUARES} (analytic)"]["y"]
    raw = panel.plot.series[f"{cmp.RAW_TREE} (analytic)"]["y"]
    assert np.all(ls <= raw + 1e-9)


def test_monte_carlo_in_worker_matches_module_and_analytic(panel, qtbot):
    with qtbot.waitSignal(panel.monteCarloDone, timeout=60000):
        panel.run_monte_carlo(runs=12, seed=5)
    mc = panel.mc_curves
    direct = cmp.histogram_monte_carlo(panel.project.result.plan, panel.curves.x.astype(int), runs=12, seed=5)
    for m in direct.values:
        np.testing.assert_allclose(panel.plot.series[f"{m} (Monte-Carlo)"]["y"], direct.values[m])
        lo, hi = panel.plot.series[f"{m} (Monte-Carlo)"]["band"]
        np.testing.assert_allclose(lo, direct.bands[m][0])
    # the simulation agrees with the analytic values (within a loose statistical margin)
    for m in (cmp.LEAF_ONLY, cmp.LEAST_SQUARES):
        ratio = mc.values[m] / panel.curves.values[m]
        assert np.all((ratio > 0.4) & (ratio < 2.0))
    assert "not a release" in panel.note.text()
    from tests.gui.conftest import shot

    shot(panel, "compare_histogram")


def test_cancel_stops_monte_carlo(panel, qtbot):
    w = panel.run_monte_carlo(runs=1000, seed=1)
    assert w is not None
    with qtbot.waitSignal(w.signals.cancelled, timeout=60000):
        panel.cancel()
    assert panel.mc_curves is None
    assert panel.mc_button.isEnabled() and "cancelled" in panel.note.text()


def test_node_scatter_is_noisy_against_consistent(panel):
    from dpstudio.core.events import ConsistencyDone, NodeNoised

    events = panel.project.events
    noisy = [float(e.noisy) for e in events if isinstance(e, NodeNoised)]
    est = next(e for e in events if isinstance(e, ConsistencyDone)).estimates
    ids, x, y = panel.node_data
    np.testing.assert_allclose(x, noisy)
    np.testing.assert_allclose(y, est)
    sx, sy = panel.scatter_item.getData()
    np.testing.assert_allclose(sx, noisy)


def test_no_run_and_mode_switch_clear(qtbot):
    p = histogram_project()
    w = ComparePanel(p)
    qtbot.addWidget(w)
    p.set_mode("release")  # clears the run
    assert w.curves is None and not w.mc_button.isEnabled()
    assert "no run" in w.source.text()


def test_node_pairs_from_events_equal_replay():
    from dpstudio.model.watch.replay import Replay
    from tests.gui.synthetic_streams import diffgen_like

    events = list(diffgen_like(steps=5, seed=2))
    a = cmp.node_pairs_from_events(events)
    b = cmp.node_pairs(Replay(events).seek_end())
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y)


def test_table_run_monte_carlo_equals_evaluation_module(qtbot):
    from dpstudio.model.release.runs import encode_table
    from tests.gui.export_fixtures import run, table_project

    p = run(table_project(n=400, steps=3))
    w = ComparePanel(p)
    qtbot.addWidget(w)
    # the exact variances are drawn at once, in teaching mode too (issue: Compare started empty)
    assert w.curves is not None and w.class_box.isVisibleTo(w) and not w.class_absent.isVisibleTo(w)
    assert any(k.endswith("(analytic)") for k in w.plot.series)
    with qtbot.waitSignal(w.monteCarloDone, timeout=120000):
        w.run_monte_carlo(runs=5, seed=3)
    res = cmp.diffgen_error_by_size(
        encode_table(p),
        p.result,
        float(p.result.count_epsilon),
        runs=5,
        seed=3,
        domain=cmp.public_domain(p.result, p.taxonomies),
        size="domain",
        edges=cmp.DOMAIN_EDGES,
    )
    rows = res.table()
    for m in res.methods:
        np.testing.assert_allclose(w.plot.series[f"{m} (Monte-Carlo)"]["y"], [r[m] for r in rows])
    np.testing.assert_allclose(w.mc_curves.x, [(r["size_lo"] + r["size_hi"]) / 2 for r in rows])


def test_classification_equals_evaluation_module(qtbot):
    import pandas as pd

    from dpstudio.evaluation.classification import majority_accuracy, raw_accuracy, release_accuracy
    from dpstudio.io.release import release_frame
    from dpstudio.model.release.runs import used_frame
    from tests.gui.export_fixtures import run, table_project

    p = run(table_project(n=400, steps=3))
    w = ComparePanel(p)
    qtbot.addWidget(w)
    rng = np.random.default_rng(9)
    test = pd.DataFrame(
        {
            "age": rng.integers(17, 90, 150).astype(float),
            "sex": rng.choice(["Male", "Female"], 150),
            "work": rng.choice(["A", "B", "C"], 150),
            "income": rng.choice(["<=50K", ">50K"], 150),
        }
    )
    s = w.evaluate_classification(test)
    cols = ["age", "sex", "work", "income"]
    train = used_frame(p, cols)
    assert s.release == release_accuracy(release_frame(p.result), p.result.cut, test, "income").accuracy
    assert s.majority == majority_accuracy(train["income"], test["income"])
    assert s.raw == raw_accuracy(train, test, ["age", "sex", "work"], ["age"], "income").accuracy
    assert list(w.acc_bars.opts["height"]) == [s.majority, s.release, s.raw]
    with pytest.raises(ValueError, match="no column"):
        w.evaluate_classification(test.drop(columns=["work"]))


# -- release mode against teaching mode (ALGORITHMS.md 0) ---------------------------------------------------
def _test_frame(n=150, seed=9):
    import pandas as pd

    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(17, 90, n).astype(float),
            "sex": rng.choice(["Male", "Female"], n),
            "work": rng.choice(["A", "B", "C"], n),
            "income": rng.choice(["<=50K", ">50K"], n),
        }
    )


def _release_table_project(seed=0):
    from tests.gui.export_fixtures import run, table_project

    p = table_project(n=400, steps=3, seed=seed)
    p.set_mode("release")
    return run(p)


def _no_private_rows(monkeypatch):
    """Any route to the records (or the true counts) fails the test."""
    import dpstudio.model.release.runs as runs

    def boom(*a, **k):
        raise AssertionError("the private rows were read in release mode")

    monkeypatch.setattr(runs, "encode_table", boom)
    monkeypatch.setattr(runs, "used_frame", boom)


def test_release_mode_table_is_noise_only_and_never_reads_the_data(qtbot, monkeypatch):
    p = _release_table_project()
    _no_private_rows(monkeypatch)
    w = ComparePanel(p)
    w.resize(1200, 700)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    assert w.release_view()
    assert "Release mode" in w.mode_label.text()
    assert cmp.NOISE_ONLY_LABEL in w.source.text() and cmp.NOISE_ONLY_LABEL in w.note.text()
    assert "share of the domain" in w.plot.getAxis("bottom").labelText
    with qtbot.waitSignal(w.monteCarloDone, timeout=60000):
        w.run_monte_carlo(runs=8, seed=4)
    dom = cmp.public_domain(p.result, p.taxonomies)
    an, mc = cmp.noise_only_curves(cmp.diffgen_noise_only(p.result, dom, runs=8, seed=4))
    for m in an.values:
        np.testing.assert_allclose(w.plot.series[f"{m} (analytic)"]["y"], an.values[m])
    for m in mc.values:
        np.testing.assert_allclose(w.plot.series[f"{m} (Monte-Carlo)"]["y"], mc.values[m])
        np.testing.assert_allclose(w.plot.series[f"{m} (Monte-Carlo)"]["band"][0], mc.bands[m][0])
    assert cmp.NOISE_ONLY_LABEL in w.note.text() and "8 runs" in w.note.text()
    # classification: the release against the test file's majority; no raw-data baseline
    s = w.evaluate_classification(_test_frame())
    assert s.raw is None and s.majority_from == "test file"
    assert len(w.acc_bars.opts["height"]) == 2
    ticks = [t for _, t in w.acc_plot.getAxis("bottom")._tickLevels[0]]
    assert "raw data" not in ticks and "majority (test)" in ticks
    assert "teaching mode only" in w.class_label.text()
    assert s.gain_share is None and "raw-data tree's gain" not in w.class_label.text()  # no raw baseline
    from tests.gui.conftest import shot

    qtbot.wait(100)  # let the layout settle (wrapped labels) before the picture
    shot(w, "compare_release_table")


def test_release_mode_curves_do_not_depend_on_the_data(qtbot):
    """The same release recorded in two projects whose data differ: the same curves (same seed)."""
    from tests.gui.export_fixtures import table_project

    a = _release_table_project(seed=0)
    b = table_project(n=900, steps=3, seed=5)  # other rows, same public schema and taxonomies
    b.set_mode("release")
    b.record_run(a.events, a.run_ledger, False, a.result)
    out = []
    for p in (a, b):
        w = ComparePanel(p)
        qtbot.addWidget(w)
        with qtbot.waitSignal(w.monteCarloDone, timeout=60000):
            w.run_monte_carlo(runs=4, seed=1)
        out.append(w.mc_curves)
    np.testing.assert_array_equal(out[0].x, out[1].x)
    for m in out[0].values:
        np.testing.assert_array_equal(out[0].values[m], out[1].values[m])


def test_teaching_mode_table_is_labelled_and_shows_the_raw_baseline(qtbot):
    from tests.gui.export_fixtures import run, table_project

    p = run(table_project(n=400, steps=3))
    w = ComparePanel(p)
    w.resize(1200, 700)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    assert not w.release_view()
    assert "Teaching mode" in w.mode_label.text() and "TRUE counts" in w.mode_label.text()
    assert "share of the domain" in w.plot.getAxis("bottom").labelText  # one axis in both modes
    with qtbot.waitSignal(w.monteCarloDone, timeout=60000):
        w.run_monte_carlo(runs=5, seed=3)
    assert "teaching mode" in w.note.text() and "not a release" in w.note.text()
    s = w.evaluate_classification(_test_frame())
    assert s.raw is not None and len(w.acc_bars.opts["height"]) == 3
    from tests.gui.conftest import shot

    qtbot.wait(100)  # let the layout settle (wrapped labels) before the picture
    shot(w, "compare_teaching_table")


def test_histogram_view_states_noise_only(panel):
    assert cmp.NOISE_ONLY_LABEL in panel.source.text()
    assert "Teaching mode" in panel.mode_label.text()
    # no classification after a histogram, and the panel says why (walk finding: it vanished unexplained)
    assert not panel.class_box.isVisibleTo(panel) and panel.class_absent.isVisibleTo(panel)
    assert "no class to predict" in panel.class_absent.text()


def test_release_mode_big_tree_gets_its_analytic_curves_from_the_worker(qtbot, monkeypatch):
    import dpstudio.gui.panels.compare as compare_mod

    p = _release_table_project()
    monkeypatch.setattr(compare_mod, "SYNC_ANALYTIC_NODES", 1)
    w = ComparePanel(p)
    qtbot.addWidget(w)
    assert w.curves is None and "background" in w.source.text()
    with qtbot.waitSignal(w.monteCarloDone, timeout=60000):
        w.run_monte_carlo(runs=3, seed=2)
    an, mc = cmp.noise_only_curves(
        cmp.diffgen_noise_only(p.result, cmp.public_domain(p.result, p.taxonomies), runs=3, seed=2)
    )
    for m in an.values:
        np.testing.assert_allclose(w.plot.series[f"{m} (analytic)"]["y"], an.values[m])
    np.testing.assert_allclose(w.mc_curves.values[cmp.LEAST_SQUARES], mc.values[cmp.LEAST_SQUARES])


def _geomean(y):
    y = np.asarray(y, dtype=float)
    y = y[y > 0]
    return float(np.exp(np.log(y).mean()))


def test_compare_says_in_words_which_release_errs_more_why_and_what_to_export(panel, qtbot):
    """Histogram (H_b): the verdict's ratios are those of the Algorithm panel's all-range figures (the walk
    found Compare recommending leaf-only for p-Identity while the Algorithm panel gave it 0.71 times a flat
    histogram's error); the tree's levels are counted from the released shape; the recommendation is the
    lowest of those figures."""
    from dpstudio.core.consistency import TreeLevels
    from dpstudio.core.range_error import consistent_all_range_mse, raw_all_range_mse
    from dpstudio.model.compare.verdict import NOTABLE

    text = panel.verdict.text()
    plan = panel.project.result.plan
    t, n = plan.tree, plan.tree.n_bins
    errs = {  # independently, from the run's node variances
        cmp.LEAF_ONLY: (n + 2) / 3 * laplace_variance(1.0 / float(plan.epsilon), discrete=True),
        cmp.RAW_TREE: raw_all_range_mse(t.parents, t.lo, t.hi, n, plan.variances, t.levels),
        cmp.LEAST_SQUARES: consistent_all_range_mse(t.parents, t.lo, t.hi, n, plan.variances, t.levels),
    }
    best = min(errs, key=errs.get)
    assert text.endswith(
        f"Recommended for export: {best} (the lowest expected error for a uniformly random range, as the "
        "Algorithm panel's all-range figures; data-independent figures)."
    )
    for m, e in errs.items():
        ratio = e / errs[best]
        assert (f"{m}: expected error {ratio:.3g} times that of {best}, because" in text) == (
            m != best and ratio >= NOTABLE
        )
    assert panel.tree_levels() == len(TreeLevels(np.asarray(panel.project.result.plan.tree.parents)).levels)


def test_compare_verdict_for_a_release_table_names_the_tree_height(qtbot):
    """A release-mode DiffGen with per-level count budgets: the tree's noise is worse than leaf-only for the
    plotted boxes, and the verdict says why with the tree's height."""
    from dpstudio.model.compare.verdict import verdict

    levels = 11
    values = {cmp.LEAF_ONLY: np.array([2.0, 4.0]), cmp.LEAST_SQUARES: np.array([30.0, 50.0])}
    text = verdict(values, levels, "table")
    ratio = np.sqrt(30 * 50) / np.sqrt(2 * 4)
    assert f"{cmp.LEAST_SQUARES}: expected error {ratio:.3g} times that of {cmp.LEAF_ONLY}" in text
    assert "shared by the 11 levels" in text and "121 times larger" in text
    assert text.endswith(
        f"Recommended for export: {cmp.LEAF_ONLY} (the lowest expected error over these query "
        "sizes; data-independent figures)."
    )


def test_the_teaching_monte_carlo_progress_never_runs_backwards(qtbot):
    """Two phases (reading the true counts, then the Monte-Carlo) on one 0..100 bar."""
    from tests.gui.export_fixtures import run, table_project

    p = run(table_project(n=300, steps=2))
    w = ComparePanel(p)
    qtbot.addWidget(w)
    seen = []
    w._job(4, 0)(lambda done, total, text="": seen.append(100 * done / total))
    assert seen and seen == sorted(seen) and seen[-1] == 100


def test_a_wide_noisy_spread_is_explained_under_the_scatter():
    from dpstudio.gui.panels.compare import scatter_title

    title, tip = scatter_title(np.array([-1e6, 0, 1e6]), np.array([10.0, 50.0, 90.0]))
    assert "1,000,000" in title and "released" in title and "what the release publishes" in tip
    assert (
        scatter_title(np.array([1.0, 50.0]), np.array([2.0, 48.0]))[0] == "per node: noisy (x) against consistent (y)"
    )


@pytest.mark.parametrize("mode", ["teaching", "release"])
def test_a_large_tree_gets_its_exact_variances_without_pressing_monte_carlo(qtbot, monkeypatch, mode):
    """Above SYNC_ANALYTIC_NODES the exact variances are computed on the panel's own thread and drawn when
    they arrive (the real window showed an empty chart until Monte-Carlo for a 7,839-node tree)."""
    from dpstudio.gui.panels import compare
    from tests.gui.export_fixtures import run, table_project

    monkeypatch.setattr(compare, "SYNC_ANALYTIC_NODES", 1)
    p = table_project(n=300, steps=3)
    p.set_mode(mode)
    run(p)
    w = ComparePanel(p)
    qtbot.addWidget(w)
    if w.curves is None:
        with qtbot.waitSignal(w.analyticDone, timeout=60000):
            pass
    assert w.curves is not None and any(k.endswith("(analytic)") for k in w.plot.series)
    assert w.verdict.text() and "being computed" not in w.source.text()


def _with_signal(n, seed):
    """Rows whose class follows age (older: >50K, with 10 % of the labels flipped)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    age = rng.integers(17, 90, n).astype(float)
    rich = (age > 50) ^ (rng.random(n) < 0.1)
    return pd.DataFrame(
        {
            "age": age,
            "sex": rng.choice(["Male", "Female"], n),
            "work": rng.choice(["A", "B", "C"], n),
            "income": np.where(rich, ">50K", "<=50K"),
        }
    )


def test_teaching_compare_states_the_share_of_the_raw_trees_gain(qtbot, tmp_path, monkeypatch):
    """Issue 33: beside its accuracies, teaching mode's Compare says what share of the raw-data tree's gain
    over the majority class the release keeps, computed here independently from the evaluation module; the
    test file is chosen through the real button (the file dialog answered by the test)."""
    from PySide6 import QtCore, QtWidgets

    from dpstudio.core import taxonomy_generators as tg
    from dpstudio.evaluation.classification import majority_accuracy, raw_accuracy, release_accuracy
    from dpstudio.io.release import release_frame
    from dpstudio.model.release.runs import used_frame
    from tests.gui.export_fixtures import run

    p = Project()
    p.set_data(
        _with_signal(3000, 1),
        None,
        types={"age": "numeric", "sex": "categorical", "work": "categorical", "income": "categorical"},
    )
    p.set_bounds("age", 17, 90)
    p.set_taxonomy("age", tg.numeric_equal_width(17, 90, 2, 3, "age"))
    p.set_taxonomy("sex", tg.flat_categorical(["Male", "Female"], "sex"))
    p.set_taxonomy("work", tg.flat_categorical(["A", "B", "C"], "work"))
    p.set_classes(["<=50K", ">50K"])
    p.set_algorithm("diffgen_consistency", {"steps": 3})
    p = run(p)
    w = ComparePanel(p)
    qtbot.addWidget(w)
    w.show()
    path = tmp_path / "held_out.csv"
    test = _with_signal(1000, 2)
    test.to_csv(path, index=False)
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(path), "")))
    qtbot.mouseClick(w.test_button, QtCore.Qt.LeftButton)
    train = used_frame(p, ["age", "sex", "work", "income"])
    rel = release_accuracy(release_frame(p.result), p.result.cut, test, "income").accuracy
    maj = majority_accuracy(train["income"], test["income"])
    raw = raw_accuracy(train, test, ["age", "sex", "work"], ["age"], "income").accuracy
    assert raw > maj + 0.1  # the premise: the raw tree gains something to keep
    text = w.class_label.text()
    assert f"keeps {(rel - maj) / (raw - maj):.0%} of the raw-data tree's gain" in text, text
    assert w.scores.gain_share == pytest.approx((rel - maj) / (raw - maj))


def test_the_share_of_the_gain_is_none_without_a_raw_baseline_or_a_gain():
    from dpstudio.model.compare.comparison import ClassificationScores

    assert ClassificationScores(0.8, 0.75, None, 10).gain_share is None  # release mode
    assert ClassificationScores(0.8, 0.75, 0.74, 10).gain_share is None  # the raw tree gains nothing
    s = ClassificationScores(0.83, 0.75, 0.85, 10)
    assert s.gain_share == pytest.approx(0.8) and "keeps 80% of the raw-data tree's gain" in s.gain_words()
    assert ClassificationScores(0.8, 0.75, None, 10).gain_words() == ""
