"""Watch: the DiffGen tree or interval tree growing event by event, with the candidates and the ledger.

The panel replays the recorded events of a run (``dpstudio.model.watch.replay.Replay``): forwards, backwards, at
any speed, without drawing noise again. While a run is going it follows the live stream. The tree view
keeps the latest state and redraws on its ~30 ms timer.

Public methods (for the demo driver and tests):
- ``load_events(events, teaching=None, epsilon=None)``: show a recorded run (cursor at the start).
- ``play()`` / ``pause()`` / ``step_forward()`` / ``step_back()`` / ``seek(k)`` / ``seek_start()`` /
  ``seek_end()``; ``set_speed(events_per_second)``; ``position`` and ``state`` (a ``TreeState``).
- ``begin_live(teaching, epsilon)`` and ``feed(events)``: follow a run while its worker sends events.
- ``tick(seconds)``: advance playback as the timer would (tests drive it without waiting).

Privacy: in release mode the events carry no true counts, so none can be shown; in teaching mode the
panel shows "teaching: not a release" and may overlay the true counts.
"""

from __future__ import annotations

import time

from PySide6 import QtCore, QtWidgets

from dpstudio.algorithms import registry
from dpstudio.core.events import ConsistencyDone, LeavesReleased
from dpstudio.gui.gc_policy import gc_policy
from dpstudio.gui.pacing import PACING_DELAY_MS, note_busy, put_off
from dpstudio.gui.panels import watch_layout
from dpstudio.gui.panels.watch_layout import DETAILS_HINT, NEIGHBOUR_OFF, REPLAY_SECONDS, SPEEDS, TICK_MS, VIEWS  # noqa: F401 (also imported from here)
from dpstudio.gui.panels.watch_neighbours import WatchNeighbours
from dpstudio.gui.widgets.tree_view import LIVE_LABEL_BUDGET_S, node_text
from dpstudio.model.watch.explain import explain_count
from dpstudio.model.watch.replay import shown_as_teaching

#: at most this much GUI-thread time per tick goes into applying events (the rest waits for the next tick)
APPLY_BUDGET_S = 0.005
SIDE_PANELS_S = 0.5
#: the Watch's tick while it is behind the run it follows (else ``TICK_MS``)
CATCH_UP_MS = 20
#: events that touch every node at once (10-30 ms on a tree of 38,000 nodes): on a tree of at least
#: BULK_ALONE_NODES nodes each is applied in a tick of its own, after a tick that computes the totals of its
#: values (``Replay.prepare_next``)
BULK_EVENTS = (ConsistencyDone, LeavesReleased)
BULK_ALONE_NODES = 2000
#: the status line between a run's start and its first events (the last run is still shown)
STARTING_TEXT = "a new run is starting: its inputs are checked first; the last run stays shown until then"
#: the slowest default: no step is shown for more than this many seconds
MAX_STEP_SECONDS = 3.0


class WatchPanel(WatchNeighbours, QtWidgets.QWidget):
    positionChanged = QtCore.Signal(int)

    def __init__(self, project=None, parent=None):
        super().__init__(parent)
        watch_layout.build(self, project, parent)

    # -- public API ---------------------------------------------------------------------------------
    def detach(self) -> None:
        """Stop following the project (before the panel is thrown away)."""
        if self.project is not None and hasattr(self.project, "unsubscribe"):
            self.project.unsubscribe(self._on_project)
        self.timer.stop()

    @property
    def state(self):
        return self.replay.state

    @property
    def position(self) -> int:
        return self.replay.position

    def load_events(self, events, teaching: bool | None = None, epsilon: float | None = None) -> None:
        """Show a recorded run with the cursor at the start (call ``seek_end()`` to see the result). A node
        selected in another run is forgotten (node ids are per run); the run that was followed live keeps
        its selection."""
        self.pause()
        events = list(events)
        if not (events and self.replay.events and events[0] is self.replay.events[0]):
            self._forget_selection()
        self.live = False
        self.tree.label_budget_s = None
        self.tree.chunked_labels = False
        self.replay.reset(list(events))
        self._steps_cache = (0, False)
        self._target = 0
        self._set_meta(teaching, epsilon)
        self.tree._auto_fit = True
        self._refresh()

    def begin_live(self, teaching: bool, epsilon: float | None = None) -> None:
        """A run is starting: clear the view (and the node selected in the last run) and follow its events
        as they arrive."""
        self.pause()
        self._forget_selection()
        self.replay.reset([])
        self._steps_cache = (0, False)
        self._target = 0
        self.live = True
        self.follow = True
        self.tree.label_budget_s = LIVE_LABEL_BUDGET_S  # the most important labels while it grows
        self.tree.chunked_labels = True  # and all of them after it, a piece per pass of the event loop
        self._set_meta(teaching, epsilon)
        self.tree._auto_fit = True
        # the last run's tree, step and ledger go now (a walk saw them for half a second into the new run,
        # beside its status line): empty, each is cheap to draw; the new run's first step and spend are drawn
        # as soon as they come (walk 55: drawn now through the throttle, they waited half a second)
        self._draw_side("chart")
        self._draw_side("ledger")
        self._side_drawn = 0.0
        self._refresh()
        self.tree.redraw()
        self.timer.start()

    def expect_run(self) -> None:
        """A run was started: until its first events arrive (its inputs are checked and coded first, seconds
        on a large table) the last run stays shown, and the status line says a new one is on its way."""
        self.status.setText(STARTING_TEXT)

    def expect_no_run(self) -> None:
        """The run announced by ``expect_run`` ended before its first events (refused or cancelled): the
        status line describes what is shown again."""
        if self.status.text() == STARTING_TEXT:
            self._refresh()

    def _forget_selection(self) -> None:
        """No node selected, nothing explained (walk finding: a new run kept the last run's node and its
        noise chart, or selected the node with the same id in an unrelated tree)."""
        self._selected = None
        self._explained = None
        self.tree.select(None)
        self.icicle.select(None)
        self.explanation = None
        self.noise_chart.set_explanation(None)
        self.noise_chart.setVisible(False)
        self.details.setText(DETAILS_HINT)

    def feed(self, events) -> None:
        """Events from a running job (in order). The view catches up on its next tick."""
        self.replay.extend(events)
        if self.teaching is None and shown_as_teaching(None, events):
            self._set_meta(True, self.epsilon)
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(self.replay))
        self.slider.blockSignals(False)

    def play(self) -> None:
        if self.replay.at_end and not self.live:
            self.seek(0)
        self.playing = True
        self.btn_play.setText("Pause")
        self._last_tick = time.monotonic()
        self.timer.start()

    def pause(self) -> None:
        self.playing = False
        self.btn_play.setText("Play")
        if not self.live:
            self.timer.stop()

    def toggle_play(self) -> None:
        self.pause() if self.playing else self.play()

    def default_speed(self) -> float:
        """Steps per second of x1: the whole run in ``REPLAY_SECONDS`` (a short run: one step every
        ``MAX_STEP_SECONDS`` at most)."""
        return max(self.replay.n_steps / REPLAY_SECONDS, 1.0 / MAX_STEP_SECONDS)

    @property
    def speed(self) -> float:
        """Playback speed in steps per second."""
        if self._speed_fixed is not None:
            return self._speed_fixed
        return self.speed_factor * self.default_speed()

    def set_speed(self, steps_per_second: float) -> None:
        """A fixed speed in steps per second (the speed box sets multiples of the default instead)."""
        self._speed_fixed = max(0.01, float(steps_per_second))

    def set_speed_factor(self, factor: float) -> None:
        self.speed_factor = max(0.01, float(factor))
        self._speed_fixed = None

    def step_forward(self) -> bool:
        """One step forward: a whole selection, one level of the tree, the consistency pass..."""
        self.pause()
        self.follow = False
        replay = self.replay
        start = replay.position
        replay.seek(replay.step_end(replay.steps_done() + 1))
        self._target = replay.position
        self._refresh()
        return replay.position != start

    def step_back(self) -> bool:
        """Back to the start of the step before (or of the one under way)."""
        self.pause()
        self.follow = False
        replay = self.replay
        start = replay.position
        done = replay.steps_done()
        back = done - 1 if replay.step_end(done) == start else done
        replay.seek(replay.step_end(back))
        self._target = replay.position
        self._refresh()
        return replay.position != start

    def seek(self, k: int):
        self.replay.seek(k)
        self._target = self.replay.position
        self._refresh()
        return self.replay.state

    def seek_start(self):
        self.pause()
        self.follow = False
        return self.seek(0)

    def seek_end(self):
        self.pause()
        self.follow = self.live
        return self.seek(len(self.replay))

    def tick(self, seconds: float) -> int:
        """Advance playback by ``seconds`` at the current speed in steps (or catch up with a live run);
        returns the number of events applied. At most ``APPLY_BUDGET_S`` of work per call, so a step of tens
        of thousands of events never freezes the window: the view catches up over the next ticks."""
        replay = self.replay
        if self.follow and not self.playing:
            target = len(replay)
            self._target = target  # where playback continues from once following ends
        else:
            self._carry += self.speed * seconds
            steps = int(self._carry)
            self._carry -= steps
            if steps:
                self._target = replay.step_end(replay.steps_done(max(self._target, self.position)) + steps)
            target = min(len(replay), self._target)
        start = self.position
        prepared = False
        if target < start:
            self.replay.seek(target)
        else:
            deadline = time.perf_counter() + APPLY_BUDGET_S
            replay = self.replay
            events = replay.events
            state = replay.state
            while replay.position < target:
                if type(events[replay.position]) in BULK_EVENTS and state.n_nodes >= BULK_ALONE_NODES:
                    if replay.position > start:
                        break  # a bulk event on a large tree starts a tick of its own
                    if replay.prepare_next():
                        prepared = True
                        break  # the totals of its values in this tick, the event in the next
                replay.step_forward()
                if (
                    (replay.position & 3) == 0 or type(replay.state.last_event) in BULK_EVENTS
                ) and time.perf_counter() > deadline:
                    break
        moved = self.position - start
        if moved:
            self._refresh()
        if moved or prepared:
            note_busy()
        # behind a run it follows, the next tick comes sooner (each still applies at most APPLY_BUDGET_S)
        interval = CATCH_UP_MS if self.follow and not self.playing and not self.replay.at_end else TICK_MS
        if self.timer.interval() != interval:
            self.timer.setInterval(interval)
        if self.playing and self.replay.at_end and not self.live:
            self.pause()
        if self.follow and not self.live and self.replay.at_end:
            self.follow = False
            gc_policy().release(self)
            # the side panels at the last event, then every label, each in a later pass of the event loop
            QtCore.QTimer.singleShot(PACING_DELAY_MS, self, lambda: self._refresh(side_now=False))
            QtCore.QTimer.singleShot(2 * PACING_DELAY_MS, self, self.tree.place_all_labels_later)
            if not self.playing:
                self.timer.stop()
        return moved

    def end_live(self) -> None:
        """The run ended: keep catching up (budgeted) until the last event, then stop following."""
        self.live = False
        if self.follow and not self.replay.at_end:
            # the run's pause of the garbage collector lasts until the view has caught up: a full collection
            # in between walks every object of the run (tens of milliseconds)
            gc_policy().hold(self)
            self.timer.start()  # the next tick goes on (not now: the run's end is other work on this pass)
        elif not self.playing:
            self.follow = False
            self.timer.stop()
            self.tree.place_all_labels_later()

    # -- internals ----------------------------------------------------------------------------------
    @property
    def _has_steps(self) -> bool:
        """Whether the stream has selection steps (DiffGen, MAXGDDP) to chart. With no run shown, and while a
        live run has sent none yet, whether the project's run has (a table algorithm): the step chart is then
        shown or hidden before the run, not in the pass of its first step, where its first layout and paint
        took 5 ms beside the tick."""
        scanned, found = self._steps_cache
        events = self.replay.events
        if scanned > len(events):  # a new stream
            scanned, found = 0, False
        if not found:
            found = any(type(e).__name__ == "CandidatesScored" for e in events[scanned:])
        self._steps_cache = (len(events), found)
        if found or (events and not self.live):
            return found
        algorithm = registry.REGISTRY.get(getattr(self.project, "algorithm", None))
        return algorithm is not None and algorithm.is_table

    def _set_meta(self, teaching, epsilon) -> None:
        if teaching is None and not self.replay.events and self.project is not None:
            # no run shown: the controls of the project's mode, the mode of the next run (whose start then
            # changes no widget: showing them in its first pass made a run's longest stall, 15-17 ms, with
            # benchmarks/bench_gui_stall.py)
            teaching = getattr(self.project, "teaching", None)
        self.teaching = teaching = shown_as_teaching(teaching, self.replay.events)
        self.epsilon = epsilon
        self.mark.setVisible(bool(teaching))
        self.chk_true.setEnabled(bool(teaching))
        self.btn_neighbour.setVisible(bool(teaching))  # the neighbour view needs true counts
        self.btn_neighbour.setEnabled(False)
        if not teaching:
            self.chk_true.setChecked(False)

    def _on_timer(self) -> None:
        if put_off(self, "tick"):  # the tree redrew in this pass of the event loop: apply on the next tick
            return
        now = time.monotonic()
        dt = 0.0 if self._last_tick is None else now - self._last_tick
        self._last_tick = now
        self.tick(dt)

    def _on_slider(self, value: int) -> None:
        if value != self.position:
            self.pause()
            self.follow = self.live and value >= len(self.replay)
            self.seek(value)

    def _total_epsilon(self) -> float | None:
        if self.epsilon is not None:
            return self.epsilon
        sp = self.replay.state.spends
        if sp:
            return float(sp[0].spent_total) + float(sp[0].remaining)
        for e in self.replay.events:
            if type(e).__name__ == "BudgetSpent":
                return float(e.spent_total) + float(e.remaining)
        eps = getattr(self.project, "epsilon", None)  # nothing run yet: the budget the project has set
        return None if eps is None else float(eps)

    def _refresh(self, side_now: bool = True) -> None:
        """Show the current state. ``side_now=False``: the step chart and the ledger are drawn in later
        passes of the event loop, one each (as always while following a run)."""
        self._discard_later()  # undo records left by a reset or a seek to the start
        st = self.replay.state
        n = len(self.replay)
        self.slider.blockSignals(True)
        self.slider.setRange(0, n)
        self.slider.setValue(st.position)
        self.slider.blockSignals(False)
        self.tree.set_state(st)
        # a live run's icicle waits for the end: laying out tens of thousands of nodes while the engine holds
        # the GIL made the longest GUI stall (benchmarks/bench_gui_stall.py); kept even while hidden
        waiting = self.live or (self.follow and not self.replay.at_end)
        self.icicle.set_waiting(waiting)
        if not waiting:
            self.icicle.set_state(st)
        # while following a run the step chart and the ledger (pyqtgraph items rebuilt, 5-16 ms each) are
        # redrawn at most every SIDE_PANELS_S, each in a pass of the event loop of its own; the state reached
        # when following stops is always drawn
        now = time.monotonic()
        if side_now and not self.follow:
            self._draw_side("chart")
            self._draw_side("ledger")
        elif (not self.follow or now - self._side_drawn >= SIDE_PANELS_S) and self._side_changed():
            self._side_drawn = now
            self._side_queue = ["chart", "ledger"]
            self._side_timer.start(PACING_DELAY_MS)
        self.btn_step_neighbour.setVisible(self._step_neighbour_ready())
        has_steps = self._has_steps
        if self.candidates.isHidden() == has_steps:  # its own flag: isVisible() is False while the tab is not shown
            self.candidates.setVisible(has_steps)
        ev = st.last_event
        what = ev.kind if ev is not None else "start"
        extra = ""
        if st.progress is not None and st.progress.message:
            extra = f" - {st.progress.message}"
        live = " (live)" if self.live else (" (catching up)" if self.follow and n > st.position else "")
        self.status.setText(
            f"event {st.position} of {n}{live}: {what}; {st.n_nodes} nodes{extra}"
            + ("; finished" if st.finished else "")
        )
        if self._selected is not None:
            self._show_node(self._selected)
        self.positionChanged.emit(st.position)

    def _side_keys(self) -> tuple:
        """What the step chart and the ledger show of the current state (drawn again when it changes)."""
        st = self.replay.state
        total = self._total_epsilon()
        charged = self.live and not getattr(self.project, "teaching", True)  # a release run: paid up front
        return (id(st.candidates), id(st.winner)), (
            len(st.spends),
            st.spends[-1] if st.spends else None,
            total,
            charged,
        )

    def _side_changed(self) -> bool:
        step_key, ledger_key = self._side_keys()
        return step_key != self._step_key or ledger_key != self._ledger_key

    def _draw_side(self, which: str) -> None:
        """Draw the step chart ("chart") or the ledger ("ledger") at the current state, if it changed."""
        st = self.replay.state
        step_key, ledger_key = self._side_keys()
        if which == "chart" and step_key != self._step_key:
            self._step_key = step_key
            self.candidates.set_step(st.candidates, st.winner)
            self.split_line.set_step(st.candidates, st.winner)
        elif which == "ledger" and ledger_key != self._ledger_key:
            self._ledger_key = ledger_key
            total, charged = ledger_key[2], ledger_key[3]
            self.ledger.set_spends(st.spends, total if total is not None else max(st.spent, 1e-12), charged)

    def _discard_later(self) -> None:
        """Free the undo records of the run shown before a piece per pass of the event loop
        (``Replay.discard_some``), none in a pass where other long work ended."""
        if self.replay.discarded and not self._discarding:
            self._discarding = True
            QtCore.QTimer.singleShot(PACING_DELAY_MS, self, self._discard_pass)

    def _discard_pass(self) -> None:
        # a piece takes about a millisecond and is not counted as long work: counted, it kept the tree's
        # redraw and the side panels waiting until every piece was freed
        if put_off(self, "discard", self._discard_pass):
            return
        if self.replay.discard_some():
            QtCore.QTimer.singleShot(PACING_DELAY_MS, self, self._discard_pass)
        else:
            self._discarding = False

    def _on_side_timer(self) -> None:
        """One queued side panel per pass of the event loop, none in a pass where other long work ended
        (unless it has waited ``MAX_WAIT_S``)."""
        if not self._side_queue:
            return
        if put_off(self, "side"):
            self._side_timer.start(PACING_DELAY_MS)
            return
        self._draw_side(self._side_queue.pop(0))
        note_busy()
        if self._side_queue:
            self._side_timer.start(PACING_DELAY_MS)

    def set_view(self, name: str) -> None:
        """Show the tree, the icicle or both (``VIEWS``)."""
        if name not in VIEWS:
            raise ValueError(f"view must be one of {', '.join(VIEWS)}")
        if self.view_box.currentText() != name:
            self.view_box.setCurrentText(name)  # comes back here through the signal
            return
        self.tree.setVisible(name != "Icicle")
        self.icicle.setVisible(name != "Tree")

    def _on_icicle_select(self, nid: int) -> None:
        """A cell clicked in the icicle selects the same node in the tree and explains it."""
        self.tree.select(nid)
        self._show_node(nid)

    def _run_over(self) -> bool:
        """The step shown is the end of a finished run (a node without a noisy count will not get one)."""
        events = self.replay.events if self.replay is not None else []
        return bool(events) and type(events[-1]).__name__ == "RunFinished" and self.position >= len(events)

    def _show_node(self, nid: int) -> None:
        self._selected = nid
        ready = self._neighbour_ready(nid)
        self.btn_neighbour.setEnabled(ready)
        self.btn_neighbour.setVisible(bool(self.teaching))
        self.btn_neighbour.setToolTip(
            "see this count's output distribution on the data and on the data without one record you pick"
            if ready
            else self._neighbour_off()
        )
        nd = self.replay.state.nodes.get(nid)
        if nd is None:
            self.details.setText("the selected node does not exist at this step")
            return
        show_true = bool(self.teaching) and self.chk_true.isChecked()
        key = (nid, id(self.replay.events), self.position, show_true)
        if key == self._explained:
            return
        self._explained = key
        self.explanation = explain_count(self.replay.state, nid, bool(self.teaching), show_true)
        self.noise_chart.set_explanation(self.explanation)
        self.noise_chart.setVisible(self.explanation is not None)
        if self.explanation is None:
            text = node_text(nd, show_true=show_true)
            why = "not noised: its count is the sum of its children's" if self._run_over() else "no noisy count yet"
            self.details.setText(f"node {nid} (depth {nd.depth})\n{text}\n{why}")
            return
        self.details.setText(f"node {nid} (depth {nd.depth})\n" + "\n".join(self.explanation.lines()))

    def _load_from_project(self) -> None:
        p = self.project
        teaching = getattr(p, "run_teaching", None)
        self.load_events(
            p.events,
            teaching=teaching,
            epsilon=float(p.run_ledger.total) if getattr(p, "run_ledger", None) is not None else None,
        )
        self.seek_end()

    def _on_project(self, field: str) -> None:
        if field == "algorithm":  # the next run's: it decides whether the step chart is there while none is shown
            if not self.replay.events:
                self._refresh()
            return
        p = self.project
        record = getattr(p, "record", None)
        # the record's own events (``project.events`` copies them: 77,000 in 2-3 ms at a large run's end)
        events = record.events if record is not None else getattr(p, "events", [])
        if self.live:
            mine = self.replay.events
            if events and mine and events[0] is mine[0] and len(events) >= len(mine):
                # this run's own record: it ended; keep the live replay (same events) and let the view catch
                # up. (A notice during the run finds the last run's record: not this run's end.)
                self._source_events = events
                self.end_live()
            return
        if events is self._source_events:
            return
        self._source_events = events
        if not events:
            self.load_events([])
            self.status.setText("no run yet: run an algorithm from the Algorithm panel")
            return
        # identity, not ==: events hold results with numpy arrays
        same = len(events) == len(self.replay.events) and all(a is b for a, b in zip(events, self.replay.events))
        if not same:
            self._load_from_project()
