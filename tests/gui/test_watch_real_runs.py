"""The Watch panel on the studio's own h = 10 runs on the bundled Adult sample (about 7,800 nodes in
teaching mode, 15,500 in release mode): readable labels after "Fit", a replay of about 30 s by steps."""

import pytest

from dpstudio.gui.panels.watch import REPLAY_SECONDS, WatchPanel
from dpstudio.model.project import RELEASE, TEACHING
from tests.gui.sample_runs import sample_runs


@pytest.fixture
def panel(qtbot):
    w = WatchPanel(None)
    w.resize(1200, 750)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def _load(panel, mode):
    events, total = sample_runs()[mode]
    panel.load_events(events, teaching=mode == TEACHING, epsilon=total)
    return events


@pytest.mark.parametrize("mode", [TEACHING, RELEASE])
def test_fit_shows_at_least_ten_readable_labels(panel, qtbot, mode):
    _load(panel, mode)
    panel.seek_end()
    assert panel.state.n_nodes > 5000
    panel.tree.redraw()
    qtbot.mouseClick(panel.btn_fit, pytest.importorskip("PySide6.QtCore").Qt.LeftButton)
    panel.tree.redraw()
    rects = panel.tree.label_rects()
    shown = [t for t in panel.tree._labels if t.isVisible()]
    assert len(rects) == len(shown) >= 10
    vb = panel.tree.getViewBox()
    for i, r in enumerate(rects):  # on screen and apart from each other
        assert r.left() >= 0 and r.top() >= 0 and r.right() <= vb.width() and r.bottom() <= vb.height()
        assert not any(r.intersects(o) for o in rects[i + 1:])
    # what the labels say: each names a node's generalized values and its noisy counts
    texts = [t.textItem.toPlainText() for t in shown]
    assert any(t.startswith("all records") for t in texts)
    assert all("[" in t for t in texts)


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
