"""Issue 31 item 1 and issue 34 item 1 on a histogram: the Watch (labels, icicle, explanation) and the exported
CSV show the same published counts, and they are publishable: whole, never negative, every node the sum of
its children, the bins summing to the root."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpstudio.gui.widgets.tree_view import node_text
from dpstudio.model.watch.explain import explain_count
from dpstudio.model.watch.icicle_layout import released_value
from dpstudio.model.watch.replay import state_at
from tests.gui.export_fixtures import histogram_data_project, release_and_export


@pytest.mark.parametrize("algorithm", ["hb", "pidentity"])
def test_the_watch_and_the_file_publish_the_same_whole_counts(qtbot, tmp_path, monkeypatch, algorithm):
    monkeypatch.setenv("DPSTUDIO_BUDGET_STORE", str(tmp_path / "store.sqlite"))
    p = histogram_data_project(n_rows=300, bins=64, algorithm=algorithm)  # sparse: ~5 records a bin at eps 1
    if algorithm == "pidentity":
        p.set_algorithm(algorithm, {"bins": 64})
    p.set_epsilon("0.2")
    paths = release_and_export(qtbot, p, tmp_path / "out", "age")
    released = pd.read_csv(paths[0])["count"].to_numpy()
    assert np.all(released >= 0) and np.array_equal(released, np.round(released))

    state = state_at(p.events, len(p.events))
    tree = p.result.plan.tree
    nodes = [state.nodes[i] for i in range(tree.n_nodes)]
    published = np.array([n.released for n in nodes], dtype=float)
    assert np.array_equal(published[tree.leaf_of_bin], released)
    sums = np.bincount(tree.parents[1:], weights=published[1:], minlength=tree.n_nodes)
    assert np.array_equal(published[~tree.is_leaf], sums[~tree.is_leaf])
    assert published[0] == released.sum()
    for i, node in enumerate(nodes):  # icicle, label and explanation read the published count
        assert released_value(node) == published[i]
        assert node_text(node, compact=True).splitlines()[1].split()[0] == f"{int(published[i]):,}"
    root = explain_count(state, 0)
    if root is not None:  # p-Identity's total is not noised itself
        assert root.lines()[0].startswith(f"{nodes[0].label}: published count {int(published[0])} ")
    assert (np.array(p.result.consistent_leaves) < 0).any()  # least squares alone would publish negatives
