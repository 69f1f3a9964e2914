"""The Watch panel on the studio's own h = 10 runs on the bundled Adult sample (about 7,800 nodes in
teaching mode, 15,500 in release mode): readable labels after "Fit", a replay of about 30 s by steps."""

import numpy as np
import pytest

from dpstudio.gui.panels.watch import REPLAY_SECONDS
from dpstudio.model.numbers import ratio_text
from dpstudio.model.project.project import RELEASE, TEACHING
from tests.gui.sample_runs import sample_runs
from tests.gui.test_watch_panel import panel  # noqa: E402,F401  (the Watch panel fixture, shown)


def _load(panel, mode):
    events, total = sample_runs()[mode]
    panel.load_events(events, teaching=mode == TEACHING, epsilon=total)
    return events


@pytest.mark.parametrize("mode", [TEACHING, RELEASE])
def test_fit_shows_at_least_ten_readable_labels(panel, qtbot, mode):
    _load(panel, mode)
    panel.seek_end()
    assert panel.state.n_nodes > 2000  # a real run (release mode's size varies with its secure draws)
    panel.tree.redraw()
    qtbot.mouseClick(panel.btn_fit, pytest.importorskip("PySide6.QtCore").Qt.LeftButton)
    panel.tree.redraw()
    rects = panel.tree.label_rects()
    shown = [t for t in panel.tree._labels if t.isVisible()]
    assert len(rects) == len(shown) >= 10
    vb = panel.tree.getViewBox()
    for i, r in enumerate(rects):  # on screen and apart from each other
        assert r.left() >= 0 and r.top() >= 0 and r.right() <= vb.width() and r.bottom() <= vb.height()
        assert not any(r.intersects(o) for o in rects[i + 1 :])
    assert _drawing_under(panel.tree) == []  # never over a dot, a ring or an edge
    # what the labels say: each names a node's generalized values and its noisy counts
    texts = [t.textItem.toPlainText() for t in shown]
    assert any(t.startswith("all records") for t in texts)
    assert all("[" in t for t in texts)


def _drawing_under(tree) -> list[str]:
    """What is drawn under a shown label, found by walking the edges pixel by pixel and measuring each dot
    (independent of the placement's own test): [] when every label is clear."""
    vb = tree.getViewBox()
    (x0, x1), (y0, y1) = vb.viewRange()
    sx, sy = vb.width() / (x1 - x0), vb.height() / (y1 - y0)
    rects = [r.adjusted(0.5, 0.5, -0.5, -0.5) for r in tree.label_rects()]
    found = []
    ex, ey = (tree.edges.x - x0) * sx, (y1 - tree.edges.y) * sy
    for k in range(0, ex.size, 2):
        steps = int(max(abs(ex[k + 1] - ex[k]), abs(ey[k + 1] - ey[k]))) + 2
        px, py = np.linspace(ex[k], ex[k + 1], steps), np.linspace(ey[k], ey[k + 1], steps)
        for r in rects:
            inside = (px > r.left()) & (px < r.right()) & (py > r.top()) & (py < r.bottom())
            if inside.any():
                found.append(f"edge {k // 2} under the label at {r.left():.0f},{r.top():.0f}")
    for layer in (*tree.layers, tree.glyph_layer):
        radius = layer._size / 2
        nx, ny = (layer.x - x0) * sx, (y1 - layer.y) * sy
        for r in rects:
            dx = np.maximum(np.maximum(r.left() - nx, 0), nx - r.right())
            dy = np.maximum(np.maximum(r.top() - ny, 0), ny - r.bottom())
            if np.any(np.hypot(dx, dy) < radius):
                found.append(f"a dot under the label at {r.left():.0f},{r.top():.0f}")
    return found


@pytest.mark.parametrize("mode", [TEACHING, RELEASE])
def test_labels_stay_clear_of_dots_rings_and_edges_at_every_depth(panel, qtbot, mode):
    """Issue 32 item 4: deep labels sat over the glyphs and edges of folded levels. Following a path down
    to a deep node (each click opens the level below), every shown label stays clear of the drawing."""
    _load(panel, mode)
    panel.seek_end()
    st = panel.state
    deepest = max(st.order, key=lambda n: st.nodes[n].depth)
    path = [deepest]
    while st.nodes[path[-1]].parent is not None and st.nodes[path[-1]].parent >= 0:
        path.append(st.nodes[path[-1]].parent)
    checked = 0
    for nid in reversed(path[:-1]):
        panel.tree.fit()
        panel.tree.redraw()
        if nid not in panel.tree.positions():
            continue
        _click_node(qtbot, panel.tree, nid)
        panel.tree.redraw()
        assert panel.tree.visible_label_count() > 0
        assert _drawing_under(panel.tree) == [], f"at depth {st.nodes[nid].depth}"
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("mode", [TEACHING, RELEASE])
def test_full_replay_at_the_default_speed_takes_about_thirty_seconds(panel, mode):
    events = _load(panel, mode)
    n_steps = panel.replay.n_steps
    assert 20 <= n_steps < len(events) / 100  # steps, not events
    assert n_steps / panel.speed == pytest.approx(REPLAY_SECONDS) and n_steps / panel.speed <= 60
    # playing it in simulated time (ticks of 30 ms) reaches the end after the computed time, not before
    panel.play()
    t = 0.0
    while not panel.replay.at_end and t < 120:
        panel.tick(0.03)
        t += 0.03
    assert panel.replay.at_end
    assert REPLAY_SECONDS - 1 <= t <= REPLAY_SECONDS + 1


def _click_node(qtbot, tree, nid):
    """Click node ``nid`` where it is drawn (a real mouse click on the view)."""
    from PySide6 import QtCore

    tree.redraw()
    x, y = tree.positions()[nid]
    scene = tree.getViewBox().mapViewToScene(QtCore.QPointF(x, y))
    qtbot.mouseClick(tree.viewport(), QtCore.Qt.LeftButton, pos=tree.mapFromScene(scene))


def _interval_reference(scale):
    """The 95 % half-width found by summing the noise distribution (independent of the closed form)."""
    p = np.exp(-1.0 / scale)
    k = np.arange(0, 200000)
    pmf = (1 - p) / (1 + p) * p**k
    inside = np.concatenate([[pmf[0]], pmf[0] + 2 * np.cumsum(pmf[1:])])  # P(|X| <= k)
    return int(np.argmax(inside >= 1 - 0.05))


@pytest.mark.parametrize("mode", [TEACHING, RELEASE])
def test_clicking_a_noisy_count_explains_its_ledger_line_scale_and_sensitivity(panel, qtbot, mode):
    from dpstudio.core.scales import noise_scale

    _load(panel, mode)
    panel.seek_end()
    st = panel.state
    internal = [n for n in st.order if 0 < st.nodes[n].depth < 4 and st.nodes[n].consistent is not None]
    nid = internal[0]
    panel.tree.fit()
    _click_node(qtbot, panel.tree, nid)
    exp = panel.explanation
    assert exp is not None and exp.node == nid
    nd = st.nodes[nid]
    # the ledger line: the count spend of this node's level (in the run's own ledger, numbered from 1)
    [line] = exp.ledger
    spend = st.spends[line.number - 1].spend
    assert spend.step == f"counts: level {nd.depth} of the DiffGen tree x class" == line.step
    assert exp.sensitivity == spend.sensitivity == 1
    assert exp.scale == pytest.approx(noise_scale(1, spend.epsilon), rel=1e-9)
    assert exp.half_width == _interval_reference(exp.scale)
    text = panel.details.text()
    for part in (
        f"ledger line {line.number}",
        f"scale {exp.scale:.4g}",
        "sensitivity 1",
        line.step,
        f"[-{exp.half_width}, {exp.half_width}]",
    ):
        assert part in text, part
    assert panel.noise_chart.isVisible() and panel.noise_chart.explanation is exp


def _private_words(text):
    return [w for w in ("true", "TEACHING", "realised", "score", "probab") if w in text]


def test_teaching_shows_true_count_and_realised_noise_only_when_asked(panel, qtbot):
    _load(panel, TEACHING)
    panel.seek_end()
    nid = panel.state.order[3]
    panel.tree.fit()
    _click_node(qtbot, panel.tree, nid)
    assert _private_words(panel.details.text()) == [] and panel.noise_chart.marked is None
    panel.chk_true.setChecked(True)
    nd = panel.state.nodes[nid]
    true, noisy = tuple(nd.true_count), tuple(nd.noisy)
    assert panel.explanation.true_count == true
    assert f"realised noise ({noisy[0] - true[0]:,}; {noisy[1] - true[1]:,})" in panel.details.text()
    assert panel.noise_chart.marked == noisy[0] - true[0]
    panel.chk_true.setChecked(False)
    assert _private_words(panel.details.text()) == []


def test_release_mode_never_shows_a_true_count_score_or_probability(panel, qtbot):
    events = _load(panel, RELEASE)
    assert not panel.chk_true.isEnabled()
    panel.chk_true.setChecked(True)  # even forced on: nothing private to show
    chart = panel.candidates
    for k in [*panel.replay.step_starts()[1:], len(events)]:
        panel.seek(k)
        panel.tree.redraw()
        labels = [t.textItem.toPlainText() for t in panel.tree._labels if t.isVisible()]
        assert not any("(" in t.split("\n", 1)[-1] for t in labels)  # no "(true)" after the counts
        scored = panel.state.candidates
        if scored is not None:  # the chart draws placeholders: the probabilities and scores are not released
            assert chart.hidden and np.all(np.isnan(scored.probabilities)) and np.all(np.isnan(scored.scores))
            assert "p =" not in chart.title_text
    for nid in panel.state.order[:: max(1, panel.state.n_nodes // 25)]:
        panel.tree.select(nid)
        panel._show_node(nid)
        assert _private_words(panel.details.text()) == [] and panel.noise_chart.marked is None


def test_candidates_chart_labels_every_bar_fits_its_pane_and_says_the_odds_in_words(panel, qtbot):
    from dpstudio.core.events import CandidatesScored, WinnerChosen

    chart = panel.candidates
    _load(panel, RELEASE)
    panel.seek(panel.replay.step_end(3))  # a release split point: "candidates not shown"
    assert "not shown" in chart.axis_label
    events = _load(panel, TEACHING)
    panel.seek(0)  # a teaching stream: nothing left of the release caption
    assert chart.axis_label == "selection probability" and not chart.hidden
    for k in panel.replay.step_starts()[1:]:
        if not isinstance(events[k], CandidatesScored):
            continue
        end = panel.replay.step_end(panel.replay.steps_done(k) + 1)
        panel.seek(end)
        qtbot.wait(1)
        scored, winner = panel.state.candidates, panel.state.winner
        assert isinstance(winner, WinnerChosen)
        # every bar drawn has its own label; the plot is no wider than the chart
        assert len(chart.bar_labels()) == len(chart.shown) > 1
        assert chart.minimumWidth() <= chart.width() and chart.cut_texts() == []
        probs = np.asarray(scored.probabilities)
        runner_up = np.max(np.delete(probs, winner.index))
        if runner_up == 0:
            words = "all the probability"
        else:
            ratio = probs[winner.index] / runner_up
            words = (
                f"{ratio_text(ratio)} times likelier" if ratio >= 1 else f"{ratio_text(1 / ratio)} times less likely"
            )
            if ratio_text(max(ratio, 1 / ratio)) == "1":
                words = "about as likely as the best other candidate"
        assert words in chart.caption and chart.caption.replace("<br>", " ") in " ".join(
            chart.title_text.replace("<br>", " ").split()
        )
