"""The neighbour view of the Watch panel (teaching mode only): a node's noisy count on the data and on the
data without one record, on the studio's own h = 10 run on the bundled Adult sample."""

import math

import numpy as np
import pytest

from dpstudio.gui.panels.watch import WatchPanel
from dpstudio.model.project.data import bundled_sample_path, declare_bundled_sample, load_bundled_sample
from dpstudio.model.project.project import RELEASE, TEACHING, Project
from dpstudio.model.release.runs import used_frame
from dpstudio.model.watch.explain import noise_pmf
from dpstudio.model.watch.neighbour_view import NeighbourError, neighbour_count, record_in_values
from dpstudio.model.watch.replay import NodeState, TreeState
from tests.gui.sample_runs import sample_runs


@pytest.fixture(scope="module")
def sample_project():
    p = Project()
    p.set_data(load_bundled_sample(), bundled_sample_path())
    declare_bundled_sample(p)
    return p


def _panel(qtbot, project, mode):
    w = WatchPanel(project)
    w.resize(1100, 700)
    qtbot.addWidget(w)
    w.show()
    events, total = sample_runs()[mode]
    w.load_events(events, teaching=mode == TEACHING, epsilon=total)
    w.seek_end()
    return w


def test_partition_membership_counts_equal_the_runs_true_counts(qtbot, sample_project):
    """An independent check of ``record_in_values``: the records it puts in a node, per class, are the
    node's true count the engine recorded (teaching run)."""
    w = _panel(qtbot, sample_project, TEACHING)
    st = w.state
    res = st.result
    frame = used_frame(sample_project, [*res.attributes, res.class_name])
    recs = frame.to_dict("records")
    for pos in (0, 7, 40, 500, 3000):
        nd = st.nodes[st.order[pos]]
        inside = [r for r in recs if record_in_values(nd.info["values"], res.attributes, r, sample_project.taxonomies)]
        got = tuple(sum(1 for r in inside if r[res.class_name] == c) for c in res.classes)
        assert got == tuple(nd.true_count), pos


def test_the_view_opens_from_a_node_and_the_ratio_never_exceeds_e_to_the_epsilon(qtbot, sample_project):
    w = _panel(qtbot, sample_project, TEACHING)
    nid = w.state.order[7]
    w.tree.nodeSelected.emit(nid)
    assert w.btn_neighbour.isEnabled() and w.btn_neighbour.accessibleName()
    dlg = w.open_neighbour_view()
    qtbot.addWidget(dlg)
    v = dlg.view
    assert v.in_node and v.true_d1 == v.true_d - 1  # the first record in the partition was chosen
    a, b = dlg.curves()
    assert np.all(a > 0) and np.all(b > 0)
    ratio = np.maximum(a / b, b / a)
    assert ratio.max() <= math.exp(1 / v.scale) * (1 + 1e-9)
    assert ratio.max() == pytest.approx(math.exp(1 / v.scale), rel=1e-6)  # reached: the shift is 1
    assert f"{v.bound:.6f}" in dlg.words.text()  # a bound near 1 keeps the digits that show it
    # a record outside the partition leaves the count as it is
    outside = next(
        r
        for r in range(len(dlg.frame))
        if not record_in_values(
            w.state.nodes[nid].info["values"], w.state.result.attributes, dlg._record(r), sample_project.taxonomies
        )
    )
    dlg.record_spin.setValue(dlg.row_number(outside))  # the spin box shows the data's 1-based row numbers
    assert dlg.position() == outside and str(dlg.row_number(outside)) in dlg.record_label.text()
    assert not dlg.view.in_node and np.array_equal(*dlg.curves())
    dlg.next_button.click()
    assert dlg.view.in_node and dlg.position() > outside
    assert dlg.record_spin.value() == dlg.row_number(dlg.position())


def test_hand_example_pmfs_and_refusals():
    st = TreeState()
    nd = NodeState(
        0,
        -1,
        "all",
        0,
        info={"values": ("[0,10)", "b")},
        true_count=(3, 5),
        noisy=(4, 4),
        variance=2 * math.exp(-1) / (1 - math.exp(-1)) ** 2,
    )  # scale 1
    st.nodes[0] = nd
    st.order.append(0)
    v = neighbour_count(st, 0, 0, {"x": 4, "y": "b", "c": "B"}, "B", ("A", "B"), ("x", "y"), {}, True)
    assert (v.true_d, v.true_d1, v.scale) == (5, 4, pytest.approx(1.0))
    k = v.support
    assert np.allclose(v.pmf_d, (1 - math.exp(-1)) / (1 + math.exp(-1)) * np.exp(-np.abs(k - 5)))
    assert np.allclose(v.pmf_d1, noise_pmf(1.0, k - 4))
    assert v.max_ratio == pytest.approx(math.e)
    assert not neighbour_count(
        st, 0, 0, {"x": 10, "y": "b", "c": "B"}, "B", ("A", "B"), ("x", "y"), {}, True
    ).in_node  # 10 is outside [0, 10)
    with pytest.raises(NeighbourError, match="teaching mode only"):
        neighbour_count(st, 0, 0, {"x": 4}, "B", ("A", "B"), ("x", "y"), {}, False)


def test_release_mode_has_no_neighbour_view(qtbot, sample_project):
    w = _panel(qtbot, sample_project, RELEASE)
    assert not w.btn_neighbour.isVisible()  # from the start, not only after a click (seen in the demo)
    w.tree.nodeSelected.emit(w.state.order[7])
    assert not w.btn_neighbour.isVisible() and not w.btn_neighbour.isEnabled()
    assert w.open_neighbour_view() is None


def test_the_neighbour_view_of_a_selection_step_in_the_real_watch(qtbot):
    """A finished teaching run on the sample: step to a specialization, click 'Remove one record from this
    step...': the dialog draws each candidate's probability on D and on D minus the record, inside the e^eps
    band; on a split-point step each lattice point's chance; the button is hidden in release mode."""
    from PySide6 import QtCore

    from dpstudio.core.events import CandidatesScored
    from dpstudio.gui.panels.watch import WatchPanel
    from dpstudio.model.release.session import make_job
    from tests.gui.export_fixtures import table_project

    project = table_project(steps=3)
    job, setup = make_job(project)
    events = list(job())
    project.record_run(events, setup.ledger, True)
    watch = WatchPanel(project)
    qtbot.addWidget(watch)
    watch.show()
    watch.load_events(events, teaching=True, epsilon=float(project.epsilon))
    specs = [
        k
        for k, e in enumerate(events)
        if isinstance(e, CandidatesScored) and len(e.labels) > 1 and "split-point" not in e.mechanism
    ]
    watch.seek(specs[-1] + 1)
    assert watch.btn_step_neighbour.isVisible()
    qtbot.mouseClick(watch.btn_step_neighbour, QtCore.Qt.LeftButton)
    dialog = watch.step_neighbour_dialog
    assert dialog is not None and dialog.view is not None, dialog.last_error if dialog else ""
    d, d1 = dialog.bars()
    assert np.all(d1 <= d * dialog.view.bound * (1 + 1e-12)) and np.all(d1 >= d / dialog.view.bound / (1 + 1e-12))
    assert "at most e^" in dialog.words.text()
    dialog.close()
    splits = [k for k, e in enumerate(events) if isinstance(e, CandidatesScored) and "split-point" in e.mechanism]
    assert splits
    watch.seek(splits[0] + 1)  # a split point: each lattice point's chance on the two tables
    assert watch.btn_step_neighbour.isVisible()
    dialog = watch.open_step_neighbour_view()
    assert dialog.view is not None and type(dialog.view).__name__ == "NeighbourSplit", dialog.last_error
    assert dialog.view.max_ratio <= dialog.view.bound * (1 + 1e-12) and "split point" in dialog.words.text()
    dialog.close()
    watch.load_events(events, teaching=False, epsilon=float(project.epsilon))
    watch.seek(specs[-1] + 1)
    assert not watch.btn_step_neighbour.isVisible()


@pytest.mark.parametrize("algorithm", ["hb", "luedptree"])
def test_the_neighbour_view_of_an_interval_tree_count(qtbot, algorithm):
    """A teaching histogram run: a noised node of the interval tree opens the neighbour view; a record whose
    age lies in the node's interval (found here from the label's public bin edges) lowers the count by 1,
    one outside leaves it, and the two distributions stay within e^(1/scale)."""
    import re

    from dpstudio.gui.panels.watch import WatchPanel
    from tests.gui.export_fixtures import histogram_data_project, run

    project = run(histogram_data_project(algorithm=algorithm))
    watch = WatchPanel(project)
    qtbot.addWidget(watch)
    watch.show()
    watch.load_events(project.events, teaching=True, epsilon=float(project.epsilon))
    watch.seek_end()
    st = watch.state
    node = next(
        n for n in st.order if st.nodes[n].noisy is not None and st.nodes[n].parent >= 0 and st.nodes[n].true_count
    )
    watch._show_node(node)
    assert watch.btn_neighbour.isEnabled()
    dialog = watch.open_neighbour_view()
    assert dialog is not None and dialog.view is not None, dialog.last_error if dialog else ""
    lo, hi = map(float, re.match(r"\[([-\d.e+]+),\s*([-\d.e+]+)\)", st.nodes[node].label).groups())
    ages = project.frame["age"].to_numpy()
    inside = int(np.flatnonzero((ages >= lo) & (ages < hi))[0])
    outside = int(np.flatnonzero((ages < lo) | (ages >= hi))[0])
    dialog.set_record(inside)
    v = dialog.view
    assert v.in_node and v.true_d == int(st.nodes[node].true_count) and v.true_d1 == v.true_d - 1
    assert v.max_ratio <= v.bound * (1 + 1e-12)
    dialog.set_record(outside)
    assert not dialog.view.in_node and dialog.view.true_d1 == dialog.view.true_d
    dialog.close()


def test_the_count_dialog_numbers_rows_as_the_data_panel_and_skips_rows_left_out(qtbot, sample_project):
    """Row numbers are the data's (1-based, as the preview shows them); a row with a missing value in a used
    attribute is not a record of the run: asking for it moves on to the next row."""
    from dpstudio.gui.widgets.neighbour_dialog import NeighbourDialog

    w = _panel(qtbot, sample_project, TEACHING)
    nid = w.state.order[7]
    res = w.state.result
    frame = sample_project.frame.copy()
    frame.loc[2, res.attributes[0]] = np.nan  # row 3 of the data
    dlg = NeighbourDialog(w.state, nid, frame, res, dict(sample_project.taxonomies), True)
    qtbot.addWidget(dlg)
    assert dlg.row_number(0) == 1 and dlg.row_number(2) == 4  # row 3 is not among the run's records
    dlg.record_spin.setValue(3)
    assert dlg.position() == 2 and dlg.record_spin.value() == 4 and "row 4 of the data" in dlg.record_label.text()
    dlg.record_spin.setValue(1)
    assert dlg.position() == 0 and dlg._record(0) == frame.iloc[0][list(dlg.frame.columns)].to_dict()
