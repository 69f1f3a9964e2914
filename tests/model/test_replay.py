"""Replay: moving forwards and backwards through a recorded stream equals rebuilding from scratch."""

import numpy as np
import pytest

from dpstudio.core.events import BudgetSpent, NodeCreated, NodeNoised
from dpstudio.model.watch.replay import Replay, state_at
from tests.gui.synthetic_streams import diffgen_like, interval_tree


@pytest.fixture(params=["diffgen", "interval"])
def events(request):
    if request.param == "diffgen":
        return list(diffgen_like(steps=8, seed=3))
    return list(interval_tree(n_bins=27, b=3, seed=4))


def test_every_position_forwards_then_backwards_equals_recomputed(events):
    r = Replay(events)
    ref = [state_at(events, k).snapshot() for k in range(len(events) + 1)]
    for k in range(len(events) + 1):
        assert r.seek(k).snapshot() == ref[k]
    for k in range(len(events), -1, -1):
        assert r.seek(k).snapshot() == ref[k]


def test_random_jumps_equal_recomputed(events):
    rng = np.random.default_rng(0)
    r = Replay(events)
    for k in rng.integers(0, len(events) + 1, size=40):
        assert r.seek(k).snapshot() == state_at(events, int(k)).snapshot()


def test_end_state_holds_the_run_values(events):
    r = Replay(events)
    s = r.seek_end()
    res = s.result
    assert s.finished
    ids, par = s.parents_array()
    np.testing.assert_array_equal(par, res.parents)
    np.testing.assert_array_equal(s.column("noisy"), res.noisy)
    np.testing.assert_allclose(s.column("consistent"), res.consistent)
    # the ledger shown equals the run's ledger
    assert s.spent == pytest.approx(float(res.ledger.spent))
    assert [b.spend for b in s.spends] == res.ledger.entries


def test_step_back_removes_node_and_restores_values():
    evs = [NodeCreated(0, -1, "root", 0), NodeCreated(1, 0, "a", 1), NodeNoised(1, 5, 2.0), NodeNoised(1, 7, 3.0)]
    r = Replay(evs)
    r.seek_end()
    assert r.state.nodes[1].noisy == 7
    r.step_back()
    assert r.state.nodes[1].noisy == 5 and r.state.nodes[1].variance == 2.0
    r.step_back()
    assert r.state.nodes[1].noisy is None
    r.step_back()
    assert 1 not in r.state.nodes and r.state.order == [0]
    r.seek(0)
    assert r.state.order == [] and r.position == 0
    assert not r.step_back()


def test_replay_does_not_draw_noise(events):
    # replaying twice gives exactly the recorded values (nothing is re-sampled)
    a = Replay(events).seek_end().column("noisy")
    b = Replay(events).seek_end().column("noisy")
    recorded = [e.noisy for e in events if isinstance(e, NodeNoised)]
    assert a == b == recorded


def test_append_while_running():
    evs = list(diffgen_like(steps=3, seed=1))
    r = Replay()
    for e in evs:
        r.append(e)
        r.seek_end()
    assert r.state.snapshot() == state_at(evs, len(evs)).snapshot()


def test_release_stream_has_no_true_counts():
    evs = list(diffgen_like(steps=4, seed=2, teaching=False))
    assert not Replay(evs).seek_end().has_true_counts
    evs = list(diffgen_like(steps=4, seed=2, teaching=True))
    assert Replay(evs).seek_end().has_true_counts


@pytest.mark.parametrize("teaching", [True, False])
def test_replay_pairs_each_winner_with_its_own_candidates(teaching):
    from dpstudio.core.events import CandidatesScored, WinnerChosen
    from tests.algorithms.test_diffgen_events import events as diffgen_events

    evs, _ = diffgen_events("diffgen", teaching, seed=5, steps=5)
    rp = Replay(evs)
    winners = 0
    for k, e in enumerate(evs, start=1):
        st = rp.seek(k)
        if isinstance(e, WinnerChosen):
            winners += 1
            assert st.winner is e and st.candidates.selection == e.selection
            assert isinstance(st.candidates, CandidatesScored)
        if isinstance(e, CandidatesScored):
            assert st.candidates is e and st.winner is None
    assert winners == sum(isinstance(e, CandidatesScored) for e in evs) > 5
    # backwards: stepping back over a winner restores its own candidates without a winner
    for k in range(len(evs), 0, -1):
        st = state_at(evs, k)
        if st.winner is not None:
            assert st.winner.selection == st.candidates.selection


def test_replay_unnumbered_winner_of_another_step_is_not_paired():
    from dpstudio.core.events import CandidatesScored, WinnerChosen

    evs = [
        CandidatesScored(2, ("a", "b"), (1.0, 2.0), (0.4, 0.6), "exponential mechanism"),
        WinnerChosen(2, 1, "b"),
        WinnerChosen(3, 0, "x split at 4"),
    ]
    assert state_at(evs, 2).winner is evs[1]
    assert state_at(evs, 3).winner is None and state_at(evs, 3).candidates is evs[0]


# -- replay by steps -------------------------------------------------------------------------------------------
from dpstudio.core.events import CandidatesScored, ConsistencyDone, LeavesReleased, RunFinished, WinnerChosen  # noqa: E402
from dpstudio.model.watch.replay import StepIndex, step_starts  # noqa: E402


@pytest.mark.parametrize("teaching", [True, False])
def test_a_selection_is_one_step_with_its_spend_winner_and_partitions(teaching):
    from tests.algorithms.test_diffgen_events import events as diffgen_events

    events, _ = diffgen_events("diffgen-consistent", teaching, seed=4, steps=4)
    starts = step_starts(events)
    bounds = starts[1:] + [len(events)]
    selections = [i for i, e in enumerate(events) if isinstance(e, CandidatesScored)]
    assert set(selections) <= set(starts)
    for i in selections:
        end = bounds[starts.index(i)]
        kinds = {type(e) for e in events[i:end]}
        assert WinnerChosen in kinds and BudgetSpent in kinds  # paid for and decided in the same step
        assert sum(isinstance(e, CandidatesScored) for e in events[i:end]) == 1
        # the partitions this selection made come with it (none of them comes later)
        made = {e.node for e in events[i:end] if isinstance(e, NodeCreated)}
        assert not made & {e.node for e in events[end:] if isinstance(e, NodeCreated)}
    created = [i for i, e in enumerate(events) if isinstance(e, NodeCreated)]
    assert all(
        any(s < i < b and isinstance(events[s], CandidatesScored) for s, b in zip(starts, bounds)) for i in created[1:]
    )
    for kind in (ConsistencyDone, LeavesReleased, RunFinished):
        assert all(i in starts for i, e in enumerate(events) if isinstance(e, kind))


def test_step_count_follows_the_tree_height_not_its_size():
    small = list(interval_tree(n_bins=27, b=3, seed=1))
    big = list(interval_tree(n_bins=3**7, b=3, seed=1))
    n_small, n_big = len(step_starts(small)), len(step_starts(big))
    assert len(big) > 50 * len(small)
    # nodes made and noised level by level: two steps per level more for four levels more
    assert n_big - n_small == 2 * (7 - 3)
    # one level is noised in one step: its events are all NodeNoised of that depth
    depth = {e.node: e.depth for e in big if isinstance(e, NodeCreated)}
    starts = step_starts(big) + [len(big)]
    levels = [{depth[e.node] for e in big[a:b] if isinstance(e, NodeNoised)} for a, b in zip(starts, starts[1:])]
    assert sorted(len(s) for s in levels if s) == [1] * 8


def test_steps_found_while_events_arrive_equal_steps_of_the_whole_stream():
    events = list(diffgen_like(steps=5, seed=8))
    index = StepIndex()
    for k in range(0, len(events), 7):
        index.scan(events[: k + 7])
    assert index.starts == step_starts(events)


def test_replay_moves_by_steps():
    events = list(diffgen_like(steps=4, seed=2))
    r = Replay(events)
    starts = r.step_starts()
    assert r.steps_done() == 0 and r.step_end(0) == 0
    assert r.step_end(len(starts)) == len(events) and r.step_end(1) == starts[1]
    r.seek(starts[2] + 1)  # inside the third step
    assert r.steps_done() == 2
    r.seek_end()
    assert r.steps_done() == r.n_steps == len(starts)


@pytest.mark.parametrize("algorithm", ["diffgen-consistent", "maxgddp"])
def test_sizes_kept_by_the_replay_equal_each_nodes_released_value(algorithm):
    """``TreeState.sizes`` (what the tree's glyphs and the icicle read as one array) equals
    ``released_value`` computed node by node, at every position of a real consistent run, going forwards
    and after jumping backwards (consistency and release events update every node at once)."""
    import math

    from dpstudio.model.watch.icicle_layout import released_value
    from tests.algorithms.test_diffgen_events import events as diffgen_events

    events, _ = diffgen_events(algorithm, True, seed=6, steps=4)
    assert any(isinstance(e, ConsistencyDone) for e in events) == (algorithm == "diffgen-consistent")
    assert any(isinstance(e, LeavesReleased) for e in events)
    r = Replay(events)
    positions = list(range(0, len(events) + 1, 7)) + [len(events), len(events) - 3, 5, len(events)]
    for k in positions:
        st = r.seek(k)
        expected = [released_value(st.nodes[n]) for n in st.order]
        got = [None if math.isnan(x) else x for x in st.sizes]
        assert [g is None for g in got] == [e is None for e in expected]
        assert [g for g in got if g is not None] == pytest.approx([e for e in expected if e is not None])
    end = r.seek_end()
    leaves = set(end.order) - set(end.parent_ids)
    known = {n for n, x in zip(end.order, end.sizes) if x == x}
    # every node of a consistent run has a released number; MAXGDDP noises the leaves only
    assert known == (set(end.order) if algorithm == "diffgen-consistent" else leaves)


def test_a_run_is_shown_as_teaching_as_its_record_says_or_once_its_events_carry_true_counts():
    """The Watch's choice of what it may overlay is the model's (issue 31): a declared mode wins; a run of
    unknown mode is a teaching run only once an event carries a true count, since release streams hold none."""
    from dpstudio.model.watch.replay import carries_true_counts, shown_as_teaching

    release = list(diffgen_like(steps=2, seed=1, teaching=False))
    teaching = list(diffgen_like(steps=2, seed=1, teaching=True))
    assert not carries_true_counts(release) and carries_true_counts(teaching)
    assert shown_as_teaching(None, release) is None and shown_as_teaching(None, []) is None
    assert shown_as_teaching(None, teaching) is True
    assert shown_as_teaching(False, teaching) is False  # a declared release is never overlaid
    assert shown_as_teaching(True, release) is True


def test_bulk_events_land_on_their_nodes_with_a_reused_id_and_ids_out_of_order():
    """The bulk paths (consistency, leaves released) read the nodes in creation order from the nodes dict
    and, when ids are 0..n-1, take released ids as positions: a reused id, ids not in creation order and
    every seek back and forth must still put each value on its own node."""
    from dpstudio.core.events import ConsistencyDone, LeavesReleased

    in_order = [
        NodeCreated(0, -1, "root", 0),
        NodeCreated(1, 0, "a", 1),
        NodeCreated(2, 0, "b", 1),
        NodeCreated(1, 0, "a again", 1),  # a reused id keeps its place
        ConsistencyDone("least_squares", ((10.0, 2.0), (4.0, 1.0), (6.0, 1.0))),
        LeavesReleased((2, 1, 7), ((6, 1), (4, 1), (99, 99))),  # id 7 does not exist: ignored
    ]
    shuffled = [
        NodeCreated(5, -1, "root", 0),
        NodeCreated(9, 5, "a", 1),
        NodeCreated(3, 5, "b", 1),  # ids not increasing: the lookup path
        ConsistencyDone("least_squares", ((4.0, 1.0), (10.0, 2.0), (6.0, 1.0))),  # in id order: 3, 5, 9
        LeavesReleased((3, 9), ((6, 1), (4, 1))),
    ]
    for evs, want in (
        (in_order, {0: ((10.0, 2.0), None), 1: ((4.0, 1.0), (4, 1)), 2: ((6.0, 1.0), (6, 1))}),
        (shuffled, {5: ((10.0, 2.0), None), 9: ((6.0, 1.0), (4, 1)), 3: ((4.0, 1.0), (6, 1))}),
    ):
        replay = Replay(evs)
        for k in [len(evs), 0, len(evs) - 1, len(evs), 2, len(evs)]:
            st = replay.seek(k)
            assert list(st.nodes) == st.order  # the dict keeps creation order
            assert st.snapshot() == state_at(evs, k).snapshot()
        st = replay.seek_end()
        assert {n: (st.nodes[n].consistent, st.nodes[n].released) for n in st.order} == want
        sizes = dict(zip(st.order, st.sizes))
        assert sizes == {n: sum(r) if r is not None else sum(c) for n, (c, r) in want.items()}


def test_a_node_object_reads_its_bulk_values_from_the_state_and_an_undo_restores_them():
    """A consistency pass and the release of the leaves write the state's value lists once (one undo record
    each) instead of every node object: a node object taken before them reads the new values after them,
    and the old ones again after each is undone; the node's other fields are its own."""
    from dpstudio.core.events import ConsistencyDone, LeavesReleased
    from dpstudio.model.watch.replay import NodeState

    evs = [
        NodeCreated(0, -1, "root", 0),
        NodeCreated(1, 0, "a", 1),
        NodeCreated(2, 0, "b", 1),
        NodeNoised(1, (3.5, 1.0), 2.0),
        ConsistencyDone("least_squares", ((9.0, 1.0), (4.0, 0.5), (5.0, 0.5))),
        LeavesReleased((1, 2), ((4, 1), (5, 0))),
    ]
    r = Replay(evs)
    r.seek(4)
    a = r.state.nodes[1]
    assert (a.consistent, a.released) == (None, None)
    r.step_forward()
    assert a.consistent == (4.0, 0.5) and a.released is None
    r.step_forward()
    assert a.released == (4, 1) and r.state.nodes[2].released == (5, 0)
    assert r.state.released_values == [None, (4, 1), (5, 0)]
    assert r.state.consistent_values == [(9.0, 1.0), (4.0, 0.5), (5.0, 0.5)]
    undo = r._undo[-1]
    assert sum(op[0] == "column" for op in undo) == 1  # one record for all values
    r.step_back()
    assert a.released is None and a.consistent == (4.0, 0.5)
    r.step_back()
    assert a.consistent is None and a.noisy == (3.5, 1.0)
    # a copy is a node of its own with the same values; it does not follow the state
    r.seek_end()
    c = a.copy()
    assert c == a and c.released == (4, 1)
    r.step_back()
    assert c.released == (4, 1) and a.released is None and c != a
    # a node made on its own keeps its values itself
    own = NodeState(3, 0, "own", 1, released=(2, 2))
    own.consistent = (1.5, 2.5)
    assert (own.consistent, own.released) == ((1.5, 2.5), (2, 2))
    assert own == NodeState(3, 0, "own", 1, consistent=(1.5, 2.5), released=(2, 2))


@pytest.mark.parametrize("algorithm", ["diffgen", "interval"])
def test_bulk_values_after_seeks_back_and_forth_equal_a_replay_from_scratch(algorithm):
    """Seeks across both bulk events (their undo records restore whole lists) leave every node with the
    values a replay from the start gives it, and the lists as long as the tree."""
    evs = list(diffgen_like(steps=8, seed=5)) if algorithm == "diffgen" else list(interval_tree(n_bins=64, b=4, seed=6))
    kinds = [type(e).__name__ for e in evs]
    bulk = [i for i, k in enumerate(kinds) if k in ("ConsistencyDone", "LeavesReleased")]
    assert bulk, "the stream has bulk events"
    r = Replay(evs)
    for k in [len(evs), bulk[0], bulk[0] + 1, 0, bulk[-1] + 1, bulk[0], len(evs)]:
        st = r.seek(k)
        ref = state_at(evs, k)
        got = [(st.nodes[n].consistent, st.nodes[n].released) for n in st.order]
        want = [(ref.nodes[n].consistent, ref.nodes[n].released) for n in ref.order]
        assert [tuple(map(_plain_or_none, g)) for g in got] == [tuple(map(_plain_or_none, w)) for w in want]
        assert len(st.consistent_values) == len(st.released_values) == st.n_nodes


def _plain_or_none(v):
    return None if v is None else np.asarray(v, dtype=float).tolist()


@pytest.mark.parametrize("algorithm", ["diffgen", "interval"])
def test_parents_and_depths_read_as_nodes_arrive_equal_the_ones_computed_from_scratch(algorithm):
    """``parents_array`` and ``depths`` after nodes were only appended reuse what was read before (a run
    followed live): at every position reached forwards, by jumps and back, they equal a fresh state's."""
    from dpstudio.model.watch.icicle_layout import node_depths

    evs = list(diffgen_like(steps=8, seed=7)) if algorithm == "diffgen" else list(interval_tree(n_bins=64, b=4, seed=8))
    r = Replay(evs)
    rng = np.random.default_rng(1)
    positions = list(range(0, len(evs) + 1, 3)) + rng.integers(0, len(evs) + 1, size=30).tolist() + [len(evs)]
    grown = 0
    for k in positions:
        st = r.seek(int(k))
        cached = st.__dict__.get("_depths_cache")
        grown += cached is not None and st._appended_since(cached[0])
        ids, par = st.parents_array()
        depth = st.depths()
        ref = state_at(evs, int(k))
        ref_ids, ref_par = ref.parents_array()
        np.testing.assert_array_equal(ids, ref_ids)
        np.testing.assert_array_equal(par, ref_par)
        np.testing.assert_array_equal(depth, node_depths(ref_par) if ref_par.size else np.zeros(0, dtype=np.int64))
    assert grown > 10  # the appended path was taken, not only the full computation


def test_depths_after_a_parent_that_arrives_late_or_a_reused_id_are_computed_again():
    """A node whose parent id is created after it (ids not in creation order) and a reused id with a new
    parent change earlier nodes' parents or depths: the depths read after them are the fresh ones."""
    from dpstudio.model.watch.icicle_layout import node_depths

    late = [
        NodeCreated(5, -1, "root", 0),
        NodeCreated(9, 7, "child of a later node", 2),  # 7 does not exist yet: drawn under nothing
        NodeCreated(3, 5, "b", 1),
        NodeCreated(7, 5, "a", 1),  # now node 9 hangs under it
        NodeCreated(4, 9, "grandchild", 3),
    ]
    reused = [
        NodeCreated(0, -1, "root", 0),
        NodeCreated(1, 0, "a", 1),
        NodeCreated(2, 1, "under a", 2),
        NodeCreated(3, 2, "deeper", 3),
        NodeCreated(2, 0, "b now under the root", 1),  # id 2 reused with another parent
        NodeCreated(4, 3, "under deeper", 4),
    ]
    for evs in (late, reused):
        r = Replay(evs)
        for k in range(1, len(evs) + 1):
            st = r.seek(k)
            if k < 4 and evs is late:
                continue  # two roots until node 7 comes: no depths (a tree has one root)
            st.depths()
        for k in (2, 3, len(evs), 4, len(evs)):
            st = r.seek(k)
            par = state_at(evs, k).parents_array()[1]
            if (par < 0).sum() == 1:
                np.testing.assert_array_equal(st.depths(), node_depths(par))
    st = Replay(reused).seek_end()
    assert st.depths().tolist() == [0, 1, 1, 2, 3]


def test_a_bulk_event_prepared_ahead_gives_the_state_of_one_applied_at_once():
    """``prepare_next`` computes a bulk event's totals in one tick of the Watch and the event is applied in
    the next: the state equals the one the event applied at once gives, with ids as positions, ids out of
    order and a leaf that does not exist; an event other than the one prepared ignores the totals."""
    from dpstudio.core.events import ConsistencyDone, LeavesReleased

    in_order = [
        NodeCreated(0, -1, "root", 0),
        NodeCreated(1, 0, "a", 1),
        NodeCreated(2, 0, "b", 1),
        NodeNoised(2, (7.0, -2.0), 1.0),
        ConsistencyDone("least_squares", ((10.0, 2.0), (4.0, -1.0), (6.0, 1.0))),
        LeavesReleased((2, 1, 7), ((6, 1), (4, 1), (99, 99))),
    ]
    shuffled = [
        NodeCreated(5, -1, "root", 0),
        NodeCreated(9, 5, "a", 1),
        NodeCreated(3, 5, "b", 1),
        ConsistencyDone("least_squares", ((4.0, 1.0), (10.0, 2.0), (6.0, -3.0))),
        LeavesReleased((3, 4, 9), ((6, 1), (1, 1), (4, 1))),
    ]
    for evs in (in_order, shuffled):
        plain, ahead = Replay(evs), Replay(evs)
        while not plain.at_end:
            prepared = ahead.prepare_next()
            assert prepared == isinstance(evs[ahead.position], (ConsistencyDone, LeavesReleased))
            assert not ahead.prepare_next()  # once per event
            plain.step_forward()
            ahead.step_forward()
            assert ahead.state.snapshot() == plain.state.snapshot()
            assert ahead.state.prepared is None
        assert ahead.state.snapshot() == state_at(evs, len(evs)).snapshot()
    other = Replay(in_order)
    other.seek(4)
    other.prepare_next()
    other.state.prepared = (in_order[5], np.array([50.0, 60.0, 70.0]))  # totals of another event
    other.step_forward()
    assert other.state.snapshot() == state_at(in_order, 5).snapshot()


def test_the_undo_records_of_a_stream_reset_are_freed_a_piece_at_a_time(monkeypatch):
    """Freeing the undo records of a million-row run at once took 20 ms of the GUI thread: a reset (or a
    seek back to the start, which rebuilds) keeps them for ``discard_some``, which frees at most a piece
    each call; nothing of the new stream is touched."""
    import dpstudio.model.watch.replay as replay_module

    monkeypatch.setattr(replay_module, "DISCARD_PIECE", 10)
    evs = list(diffgen_like(steps=8, seed=9))
    r = Replay(evs)
    r.seek_end()
    r.reset(evs)
    assert r.discarded == 0 and not r._undo  # without free_later: freed at once
    r.free_later = True
    r.seek_end()
    r.reset(evs[:20])
    assert r.discarded == len(evs) and r.position == 0 and not r._undo
    r.seek(20)
    undo_now = [list(u) for u in r._undo]
    sizes = []
    while r.discard_some():
        sizes.append(r.discarded)
    assert r.discarded == 0 and len(sizes) == -(-len(evs) // 10) - 1
    assert all(a - b == 10 for a, b in zip([len(evs), *sizes], sizes))  # a piece each call
    assert [list(u) for u in r._undo] == undo_now and r.state.snapshot() == state_at(evs[:20], 20).snapshot()
    r = Replay(evs)
    r.free_later = True
    r.seek_end()
    r.seek(3)  # rebuilt from the start: the long undo list goes to the discarded ones
    assert r.discarded == len(evs) and r.state.snapshot() == state_at(evs, 3).snapshot()
    r.discard_some(len(evs))
    assert r.discarded == 0
    small = Replay(evs[:5])
    small.free_later = True
    small.seek_end()
    small.reset()
    assert small.discarded == 0  # a short list is freed at once
