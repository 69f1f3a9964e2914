"""The Watch reads the consistent count first: a node's label and its explanation put the released
(consistent) estimate before the noisy count, and a count that got almost none of the count budget says in
words why it is so noisy and why that costs the release nothing."""

from __future__ import annotations

from dpstudio.gui.widgets.tree_view import node_text
from dpstudio.model.watch.explain import CountExplanation, explain_count
from dpstudio.model.watch.replay import state_at
from tests.gui.export_fixtures import run, table_project


def _finished_state():
    p = table_project(n=600, steps=5)
    p.set_mode("teaching")
    run(p)
    return state_at(p.events, len(p.events))


def test_consistent_first_and_the_noisy_levels_explained(qapp):
    state = _finished_state()
    explained = [explain_count(state, nid) for nid in state.order]
    explained = [e for e in explained if e is not None and e.consistent is not None]
    assert explained
    for e in explained:
        lines = e.lines()
        assert "consistent count" in lines[0] and "noisy count" in lines[1]
        noisy_words = any(line.startswith("why so noisy") for line in lines)
        assert noisy_words == (e.share_of_counts is not None and e.share_of_counts < CountExplanation.SMALL_SHARE)
    assert any(e.share_of_counts is not None and e.share_of_counts < CountExplanation.SMALL_SHARE for e in explained)
    node = state.nodes[explained[0].node]
    compact = node_text(node, compact=True).splitlines()
    assert len(compact) == 2 and compact[1] == node_text(node).splitlines()[1].removeprefix("consistent ")
    assert "noisy" not in node_text(node, compact=True)
