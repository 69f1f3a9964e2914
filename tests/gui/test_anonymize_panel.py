"""The Anonymize panel driven through its widgets on the bundled Adult sample and its bundled taxonomies:
the metric agrees with ``dpstudio anonymize`` on the same table, class counts are recounted with pandas,
a lattice node is clicked, the export is atomic and refuses to overwrite; the teaching tab's attack steps
and neighbour contrast."""

from __future__ import annotations

import json
import math

import pytest
from PySide6 import QtCore
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from dpstudio.cli import main
from dpstudio.gui.demo import bundled_taxonomy_folder
from dpstudio.io.anonymize import LABEL

from .conftest import shot

QI5 = ("education", "marital-status", "race", "sex", "workclass")


@pytest.fixture
def panel(window, qtbot):
    window.open_sample()
    qtbot.waitUntil(lambda: window.project.frame is not None and not window.runner.busy, timeout=60000)
    window.panel("Taxonomy").import_folder(bundled_taxonomy_folder())
    assert set(QI5) <= set(window.project.taxonomies)
    p = window.show_panel("Anonymize")
    return p


def _run(panel, qtbot, *, qi=QI5, k=5, algorithm="optimal", metric="dm", suppression=0.0):
    panel.set_qi(qi)
    panel.k_spin.setValue(k)
    panel.algorithm_combo.setCurrentText(algorithm)
    panel.metric_combo.setCurrentIndex(panel.metric_combo.findData(metric))
    panel.suppression.setValue(suppression)
    with qtbot.waitSignal(panel.finished, timeout=120000):
        QTest.mouseClick(panel.run_button, Qt.LeftButton)


def _cli(tmp_path, frame, qi, *extra):
    data = tmp_path / "in.csv"
    frame.to_csv(data, index=False)
    folder = bundled_taxonomy_folder()
    args = ["anonymize", "--data", str(data), "--qi", ",".join(qi), "--out", str(tmp_path / "cli.csv"), *extra]
    for a in qi:
        args += ["--taxonomy", f"{a}={folder / (a + '.csv')}"]
    assert main(args) == 0
    return json.loads((tmp_path / "cli.json").read_text())


def test_optimal_run_matches_cli_recount_lattice_click_and_export(panel, qtbot, tmp_path, window):
    assert panel.label.text() == LABEL and panel.label.isVisible()
    _run(panel, qtbot, suppression=0.01)
    out = panel.outcome
    assert out is not None and panel.last_error == ""
    frame = window.project.frame
    qi = out.settings.qi  # in the data's column order
    assert set(qi) == set(QI5)
    side = _cli(tmp_path, frame[list(qi)], qi, "--k", "5", "--suppression", "0.01")
    assert side["metric"]["value"] == out.metric and side["levels"] == dict(zip(qi, out.levels))
    assert (side["classes"], side["suppressed"]) == (out.classes, out.suppressed)
    assert f"{out.classes:,} equivalence classes" in panel.summary.text()
    # the histogram's bars: classes per size, summing to the classes and (weighted) to the released rows
    opts = panel.size_bars.opts
    assert sum(opts["height"]) == out.classes
    assert sum(x * h for x, h in zip(opts["x"], opts["height"])) == len(out.table) == len(frame) - out.suppressed
    assert panel.table_model.rowCount() == len(out.table)
    # the lattice: every node drawn, the chosen one coloured as chosen
    assert len(panel.lattice.items) == math.prod(window.project.taxonomies[a].height + 1 for a in QI5)
    assert panel.lattice.status[out.levels] == "chosen"
    assert all(panel.lattice.status[n] == "minimal" for n in out.search.minimal if n != out.levels)
    # click the bottom node: no generalization; recount its classes with pandas
    bottom = (0,) * len(QI5)
    QTest.mouseClick(panel.lattice.viewport(), Qt.LeftButton, pos=panel.lattice.node_point(bottom))
    sizes = frame.groupby(list(qi)).size()
    small = int(sizes[sizes < 5].sum())
    assert panel.lattice.selected == bottom
    text = panel.node_info.text()
    assert f"{int((sizes >= 5).sum()):,} classes" in text and f"{small:,} rows suppressed" in text
    assert ("does not satisfy" in text) == (small > int(0.01 * len(frame)))
    shot(panel, "anonymize-panel")
    # export: the same table as the CLI wrote; never overwrites
    assert panel.export_to(tmp_path / "studio.csv")
    assert (tmp_path / "studio.csv").read_text() == (tmp_path / "cli.csv").read_text()
    assert json.loads((tmp_path / "studio.json").read_text())["label"] == LABEL
    before = (tmp_path / "studio.csv").read_text()
    assert not panel.export_to(tmp_path / "studio.csv")
    assert "already exists" in panel.last_error and (tmp_path / "studio.csv").read_text() == before


def test_the_lattice_is_readable_after_a_real_search(panel, qtbot, window):
    """Issue 24 item 6: after k = 5 on five attributes the lattice was a faint line. Now: every row labelled
    with its height, dots the same size on screen at any zoom, the chosen and minimal nodes drawn larger and
    above the others, the path from the bottom to the chosen node drawn, and the wheel zooms."""
    from PySide6 import QtGui, QtWidgets

    from dpstudio.gui.widgets.lattice_view import COLOURS, DOT, MIN_SCALE

    window.show_panel("Anonymize")
    _run(panel, qtbot, k=5)
    out, lat = panel.outcome, panel.lattice
    heights = [window.project.taxonomies[a].height for a in out.settings.qi]
    assert lat.height_labels == [f"height {h}" for h in range(sum(heights) + 1)]
    chosen = lat.items[out.levels]
    assert chosen.rect().width() == 2 * DOT and chosen.zValue() == 3
    for n in out.search.minimal:
        if n != out.levels:
            assert lat.items[n].rect().width() == 1.5 * DOT and lat.items[n].zValue() == 2
    flag = QtWidgets.QGraphicsItem.ItemIgnoresTransformations
    assert all(item.flags() & flag for item in lat.items.values())  # on screen: DOT px at any zoom
    assert len(lat.path_items) == sum(out.levels)  # one segment per level climbed
    ends = {(round(line.line().p1().y()), round(line.line().p2().y())) for line in lat.path_items}
    assert all(a - b == 46 for a, b in ends)  # each segment climbs one row
    colours = {lat.status[n]: item.brush().color().name() for n, item in lat.items.items()}
    assert colours["satisfying"] != colours["not satisfying"] and colours["chosen"] == COLOURS["chosen"]
    assert lat.transform().m11() >= MIN_SCALE - 1e-9
    before = lat.transform().m11()
    wheel = QtGui.QWheelEvent(
        QtCore.QPointF(50, 50),
        QtCore.QPointF(50, 50),
        QtCore.QPoint(0, 0),
        QtCore.QPoint(0, 120),
        Qt.NoButton,
        Qt.NoModifier,
        Qt.NoScrollPhase,
        False,
    )
    QtWidgets.QApplication.sendEvent(lat.viewport(), wheel)
    assert lat.transform().m11() > before
    shot(panel, "anonymize-lattice-readable")


def test_incognito_with_l_diversity_releases_diverse_classes(panel, qtbot, window, tmp_path):
    panel.sensitive_combo.setCurrentText("occupation")
    panel.l_kind.setCurrentText("distinct")
    panel.l_value.setValue(3)
    _run(panel, qtbot, qi=("education", "marital-status", "sex"), k=4, algorithm="incognito", suppression=0.02)
    out = panel.outcome
    assert out is not None and out.settings.l_diversity == ("distinct", 3, 3.0)
    groups = out.table.groupby(["education", "marital-status", "sex"])
    assert groups["occupation"].nunique().min() >= 3 and groups.size().min() >= 4
    assert int(0.02 * len(window.project.frame)) >= out.suppressed
    assert set(out.search.minimal) <= {n for n, s in panel.lattice.status.items() if s in ("minimal", "chosen")}


def test_mondrian_has_no_lattice_and_agrees_with_cli(panel, qtbot, tmp_path, window):
    _run(panel, qtbot, qi=("education", "marital-status"), k=10, algorithm="mondrian-relaxed", metric="avg")
    out = panel.outcome
    assert out.search is None and not panel.lattice.items and "no lattice" in panel.node_info.text()
    frame = window.project.frame
    side = _cli(
        tmp_path,
        frame[["education", "marital-status"]],
        ("education", "marital-status"),
        "--k",
        "10",
        "--algorithm",
        "mondrian-relaxed",
        "--metric",
        "avg",
    )
    assert side["metric"]["value"] == pytest.approx(out.metric, rel=1e-12) and side["classes"] == out.classes


def test_mondrian_with_distinct_l_diversity_releases_diverse_classes(panel, qtbot, tmp_path, window):
    qi = ("education", "marital-status", "sex")
    _run(panel, qtbot, qi=qi, k=4, algorithm="mondrian-strict", metric="dm")
    plain = panel.outcome.classes
    panel.sensitive_combo.setCurrentText("occupation")
    panel.l_kind.setCurrentText("distinct")
    panel.l_value.setValue(5)
    _run(panel, qtbot, qi=qi, k=4, algorithm="mondrian-strict", metric="dm")
    out = panel.outcome
    assert out is not None and panel.last_error == "" and out.settings.l_diversity == ("distinct", 5, 3.0)
    groups = out.table.groupby(list(qi))
    assert groups.ngroups == out.classes > 1 and groups.size().min() >= 4
    assert groups["occupation"].nunique().min() >= 5 and len(out.table) == len(
        window.project.frame.dropna(subset=[*qi, "occupation"])
    )
    assert out.classes < plain  # the model forbids some of k-anonymity's cuts
    frame = window.project.frame.dropna(subset=[*qi, "occupation"])
    side = _cli(
        tmp_path,
        frame[[*qi, "occupation"]],
        qi,
        "--k",
        "4",
        "--algorithm",
        "mondrian-strict",
        "--l-diversity",
        "distinct:5:occupation",
    )
    assert side["classes"] == out.classes and side["metric"]["value"] == out.metric


def test_bad_settings_say_one_line_and_run_nothing(panel, qtbot):
    panel.set_qi(())
    with qtbot.waitSignal(panel.finished, timeout=5000):
        QTest.mouseClick(panel.run_button, Qt.LeftButton)
    assert panel.outcome is None and "quasi-identifier" in panel.last_error and "\n" not in panel.last_error
    panel.project.clear_bounds("age")  # numeric, no taxonomy and no public bounds for a grid: nothing to use
    panel.set_qi(("age",))
    with qtbot.waitSignal(panel.finished, timeout=5000):
        QTest.mouseClick(panel.run_button, Qt.LeftButton)
    assert "'age' has no taxonomy" in panel.last_error and panel.outcome is None
    assert not panel.export_button.isEnabled()


def test_teaching_tab_attack_steps_and_neighbour_contrast(panel, qtbot):
    panel.tabs.setCurrentIndex(1)
    assert not panel.back_button.isEnabled()
    for _ in range(3):
        QTest.mouseClick(panel.next_button, Qt.LeftButton)
    assert panel.step_title.text().endswith("Homogeneity") and "hypertension" in panel.step_text.text()
    marked = {r for r in range(panel.sweeney.rowCount()) if panel.sweeney.item(r, 0).background().style() != Qt.NoBrush}
    assert marked == {2, 3}
    assert {panel.sweeney.item(r, 4).text() for r in marked} == {"hypertension"}
    panel.set_qi(("education", "marital-status", "sex"))
    panel.algorithm_combo.setCurrentText("mondrian-strict")
    panel.k_spin.setValue(5)
    panel.contrast_eps.setValue(0.5)
    with qtbot.waitSignal(panel.contrast_finished, timeout=120000):
        QTest.mouseClick(panel.contrast_button, Qt.LeftButton)
    c = panel.contrast
    assert c is not None and c.changed and "changed" in panel.contrast_text.text()
    assert c.max_ratio <= math.exp(0.5) * (1 + 1e-12)
    assert len(panel.contrast_plot.getPlotItem().listDataItems()) == 2
    shot(panel, "anonymize-teaching")


def test_cancel_leaves_no_result_and_run_usable_again(panel, qtbot, window):
    every = [a for a in window.project.attributes("quasi-identifier") if a in window.project.taxonomies]
    assert len(every) >= 7
    panel.set_qi(every)
    panel.algorithm_combo.setCurrentText("optimal")
    with qtbot.waitSignal(panel.finished, timeout=120000):
        QTest.mouseClick(panel.run_button, Qt.LeftButton)
        window.cancel_work()
    assert panel.outcome is None and panel.run_button.isEnabled()
    _run(panel, qtbot, qi=("race", "sex"), k=2)
    assert panel.outcome is not None and panel.outcome.settings.qi == ("race", "sex")


def test_samarati_draws_unevaluated_nodes(panel, qtbot):
    _run(panel, qtbot, qi=("education", "marital-status", "workclass"), k=10, algorithm="samarati")
    out = panel.outcome
    states = set(panel.lattice.status.values())
    assert "not evaluated" in states and panel.lattice.status[out.levels] == "chosen"
    evaluated = {r.levels for r in out.search.evaluated}
    assert all(
        panel.lattice.status[n] == "not evaluated"
        for n in panel.lattice.status
        if n not in evaluated and n not in out.search.satisfying
    )


def test_sample_opens_with_its_taxonomy_attributes_checked_and_a_choice_survives(window, qtbot):
    """The sample's taxonomies arrive after its columns: the attributes that get one are checked then (they
    stayed unchecked before), and an attribute the user unchecked stays unchecked on a later refresh."""
    window.open_sample()
    qtbot.waitUntil(lambda: window.project.frame is not None and not window.runner.busy, timeout=60000)
    p = window.show_panel("Anonymize")
    p.refresh()
    checked = {
        p.qi_list.item(i).text() for i in range(p.qi_list.count()) if p.qi_list.item(i).checkState() == Qt.Checked
    }
    assert checked == {a for a in window.project.attributes("quasi-identifier") if a in window.project.taxonomies}
    assert "workclass" in checked and "age" not in checked
    item = next(p.qi_list.item(i) for i in range(p.qi_list.count()) if p.qi_list.item(i).text() == "workclass")
    item.setCheckState(Qt.Unchecked)
    p.refresh()
    item = next(p.qi_list.item(i) for i in range(p.qi_list.count()) if p.qi_list.item(i).text() == "workclass")
    assert item.checkState() == Qt.Unchecked


def test_side_by_side_after_a_teaching_dp_run_and_an_anonymization(panel, qtbot, window, tmp_path):
    """Teaching DP run on the bundled sample, then an anonymization: the side-by-side tab shows the figures
    model.anonymize_compare computes (independently checked in tests/model), from the DP run's noisy counts."""

    from dpstudio.model.anonymize import compare as ac

    p = window.project
    alg = window.show_panel("Algorithm")
    qtbot.mouseClick(alg.run_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: p.result is not None or bool(alg.eps_error.text()), timeout=120000)
    assert p.result is not None, alg.eps_error.text()
    window.show_panel("Anonymize")
    QTest.mouseClick(panel.side_button, Qt.LeftButton)
    assert "run an anonymization first" in panel.last_error and panel.side is None
    _run(panel, qtbot, qi=("education", "marital-status", "sex"), k=10)
    panel.tabs.setCurrentIndex(2)
    QTest.mouseClick(panel.side_button, Qt.LeftButton)
    assert panel.side is not None, panel.last_error
    an, dp, an_acc, dp_acc = panel.side
    assert an.classes == panel.outcome.classes and dp.from_noisy_counts
    sizes = ac.dp_partition_sizes(p.result)
    assert dp.classes == int((sizes > 0).sum()) and dp.c_dm == float((sizes[sizes > 0] ** 2).sum())
    assert panel.side_table.item(2, 0).text() == f"{an.classes:,}"
    assert panel.side_table.item(0, 1).text() == f"{dp_acc:.2%}"
    # cells: one definition on both sides and in Compare (its leaf partitions), empty ones included
    assert panel.side_table.verticalHeaderItem(1).text() == "cells"
    assert panel.side_table.item(1, 1).text() == f"{len(p.result.leaf_nodes):,}"
    levels = dict(zip(panel.outcome.settings.qi, panel.outcome.levels))
    by_hand = 1
    for name, lv in levels.items():  # distinct generalized labels at each level, counted from the taxonomy
        tax = p.taxonomies[name]
        depth = tax.height - lv
        by_hand *= len({tax.path(leaf)[min(depth, len(tax.path(leaf)) - 1)] for leaf in tax.leaves})
    assert an.cells == by_hand and panel.side_table.item(1, 0).text() == f"{by_hand:,}"
    assert an.classes <= an.cells and dp.classes <= dp.cells
    assert 0.7 < an_acc < 0.95 and 0.7 < dp_acc < 0.95
    assert "noisy counts" in panel.side_note.text()
    shot(window, "anonymize_side_by_side")


def test_a_later_success_clears_the_panels_error_from_the_window_bar(window, qtbot):
    p = window.show_panel("Anonymize")
    p.show_error("run an anonymization first")
    assert window.message_bar.isVisible() and window.message_label.text() == "run an anonymization first"
    p.clear_error()
    assert not window.message_bar.isVisible()
    window.show_error("another panel's error")  # someone else's message stays
    p.show_error("x")
    window.show_error("another panel's error")
    p.clear_error()
    assert window.message_bar.isVisible() and window.message_label.text() == "another panel's error"


def test_attacks_on_the_loaded_data_background_knowledge_and_complementary_releases(panel, qtbot):
    from dpstudio.model.anonymize import teaching as teach

    panel.tabs.setCurrentIndex(1)
    panel.set_qi(("education", "marital-status", "race", "sex"))
    panel.algorithm_combo.setCurrentText("optimal")
    panel.k_spin.setValue(5)
    names = [panel.attack_attribute.itemText(i) for i in range(panel.attack_attribute.count())]
    assert names[0] == "Y" and "education" not in names and "occupation" in names  # the class first, no QI
    panel.attack_attribute.setCurrentText("occupation")
    with qtbot.waitSignal(panel.attacks_finished, timeout=120000):
        QTest.mouseClick(panel.attack_button, Qt.LeftButton)
    bk, join = panel.attacks
    # the same computation outside the panel gives the same classes
    frame, taxes = panel.project.frame, dict(panel.project.taxonomies)
    again = teach.background_knowledge(frame, taxes, panel.settings(), "occupation", panel.project.missing)
    assert (bk.classes, bk.facts) == (again.classes, again.facts) and bk.rows == again.rows
    assert sum(bk.facts.values()) == bk.classes
    assert join.qi_a == ("education", "marital-status") and join.qi_b == ("race", "sex")
    assert join.smallest_a >= 5 and join.smallest_b >= 5 and join.below_k > 0
    assert "Background knowledge." in panel.background_text.text()
    assert f"{join.below_k:,} of {join.rows:,} rows" in panel.join_text.text()
    scroll = panel.tabs.currentWidget()
    scroll.ensureWidgetVisible(panel.join_text)
    shot(panel, "anonymize-attacks")


def test_l_diversity_and_t_closeness_can_protect_different_attributes(panel, qtbot, tmp_path, window):
    """The studio had one sensitive attribute for both models; the command line names one per model."""
    qi = ("education", "marital-status", "sex")
    panel.sensitive_combo.setCurrentText("occupation")
    panel.l_kind.setCurrentText("distinct")
    panel.l_value.setValue(3)
    panel.t_kind.setCurrentText("equal")
    panel.t_value.setValue(0.15)
    panel.t_sensitive_combo.setCurrentText("Y")
    _run(panel, qtbot, qi=qi, k=4, algorithm="optimal", suppression=0.02)
    out = panel.outcome
    assert out is not None and panel.last_error == ""
    assert [(type(m).__name__, m.attribute) for m in out.settings.models()] == [
        ("LDiversity", "occupation"),
        ("TCloseness", "Y"),
    ]
    groups = out.table.groupby(list(qi))
    assert groups["occupation"].nunique().min() >= 3
    whole = out.table["Y"].value_counts(normalize=True)
    for _, g in groups:  # equal-distance EMD = half the L1 distance of the class's Y distribution
        share = g["Y"].value_counts(normalize=True).reindex(whole.index, fill_value=0)
        assert 0.5 * (share - whole).abs().sum() <= 0.15 + 1e-9
    frame = window.project.frame.dropna(subset=[*qi, "occupation", "Y"])
    side = _cli(
        tmp_path,
        frame[[*qi, "occupation", "Y"]],
        qi,
        "--k",
        "4",
        "--suppression",
        "0.02",
        "--l-diversity",
        "distinct:3:occupation",
        "--t-closeness",
        "equal:0.15:Y",
    )
    assert side["classes"] == out.classes and side["metric"]["value"] == pytest.approx(out.metric, rel=1e-12)
    assert out.sidecar["parameters"]["sensitive"] == "occupation" and out.sidecar["parameters"]["t_sensitive"] == "Y"
