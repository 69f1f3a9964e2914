"""The Watch reads what the release publishes first: a node's label and its explanation put the published
count (or, on a node the release does not publish, the consistent estimate) before the noisy count, and a count that got almost none of the count budget says in
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


def test_published_or_consistent_first_and_the_noisy_levels_explained(qapp):
    state = _finished_state()
    explained = [explain_count(state, nid) for nid in state.order]
    explained = [e for e in explained if e is not None and e.consistent is not None]
    assert explained
    published = [e for e in explained if e.published is not None]
    interior = [e for e in explained if e.published is None]
    assert published and interior  # the leaves are published; the interior nodes have estimates only
    for e in explained:
        lines = e.lines()
        noisy_at = next(i for i, line in enumerate(lines) if ": noisy count " in line)
        if e.published is not None:
            assert "published count" in lines[0] and "(what the release publishes)" in lines[0]
            moved = tuple(e.published) != tuple(e.consistent)
            assert noisy_at == (2 if moved else 1) and ("least-squares estimate" in lines[1]) == moved
        else:
            assert "consistent count" in lines[0] and "the release publishes the leaves' counts" in lines[0]
            assert noisy_at == 1
        noisy_words = any(line.startswith("why so noisy") for line in lines)
        assert noisy_words == (e.share_of_counts is not None and e.share_of_counts < CountExplanation.SMALL_SHARE)
    assert any(e.share_of_counts is not None and e.share_of_counts < CountExplanation.SMALL_SHARE for e in explained)
    for e, word in ((published[0], "published "), (interior[0], "consistent ")):
        node = state.nodes[e.node]
        compact = node_text(node, compact=True).splitlines()
        assert len(compact) == 2 and compact[1] == node_text(node).splitlines()[1].removeprefix(word)
        assert "noisy" not in node_text(node, compact=True)
