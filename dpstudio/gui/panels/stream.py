"""The Stream panel: release a count stream over sliding windows (issue 12, docs/stream.md) and play it.

Choose a stream (the bundled ILINet national series, or a counts file), the window w, the mechanism, the
grouping and epsilon; Run works off the GUI thread (the window's worker: progress and Cancel). The run is
then played: the window slides, the released values appear (with the true counts and the window's groups
in teaching mode only), the ledger fills line by line, and the guarantee is always shown.

Privacy facts:
- Teaching mode runs seeded simulation noise; nothing it produces can be exported. The literal ASM
  (STREAMING.md S4.3) runs only here, labelled "not differentially private", and is never exportable.
- Release mode asks the release question first (dataset, epsilon, lifetime total, spent, what remains;
  No is the default) and, on Yes, the release service (``model.release``) charges the persistent budget
  store (docs/budget.md) for the whole epsilon and hands out the secure noise and the ledger; its events
  carry no true count. The panel never charges, draws noise or builds a ledger itself. Export writes OUT.csv and OUT.json
  through ``io.stream_release`` (atomic, nothing half-written).
- Compare (``model/stream/compare.py``): workload error or mean absolute error by mechanism, against epsilon
  (at the window w) or against w (at epsilon). Analytic curves use public inputs only; the measured curves
  read true counts and are simulation noise: teaching mode only, dashed, labelled "simulation, not a release".
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6 import QtWidgets

from dpstudio.algorithms.stream_runs import StreamInputError, StreamParams
from dpstudio.core.budget import fraction_text
from dpstudio.gui.panels import host, stream_layout
from dpstudio.gui.panels.stream_layout import GROUPING_WORDS, LITERAL_ASM, MECHANISM_WORDS  # noqa: F401 (also imported from here)
from dpstudio.gui.widgets.yes_no import RELEASE_TITLE, ask_yes_no, exec_modal
from dpstudio.gui.worker import TaskRunner, Worker
from dpstudio.model.release import ReleaseRefused
from dpstudio.model.stream.compare import EPSILONS, MEASURED, analytic_errors, grid, measured_errors
from dpstudio.model.stream.recommend import GUARANTEE, recommend, same_guarantee
from dpstudio.model.stream.run import StreamRecord, StreamRun
from dpstudio.model.stream.session import COUNTS, EVENTS, ILINET, StreamSource, bundled_ilinet
from dpstudio.model.stream.view import NOT_DP

COMPARE_EPSILONS = EPSILONS
MECHANISM_COLOURS = {
    "swm": "#4a7fc1",
    "tpm": "#2e9e5b",
    "binary": "#d62728",
    "asm": "#f0a020",
    "fast": "#9467bd",
    "bd": "#8c564b",
    "ba": "#17becf",
}


class StreamPanel(QtWidgets.QWidget):
    """See the module docstring. ``run()`` starts a run, ``show_step(k)`` shows the state after k events,
    ``export_to(path)`` writes a release."""

    def __init__(self, project, parent=None):
        super().__init__(parent)
        self.project = project
        self.runner = TaskRunner(self)  # used when the panel stands alone (no MainWindow)
        self.exec_dialog = exec_modal  # how the release question is shown (gui.widgets.yes_no)
        self.source: StreamSource | None = None
        self.counts: np.ndarray | None = None
        self.record: StreamRecord | None = None  # what the last run produced: every figure after it
        self.worker: Worker | None = None
        self._shown_ledger = 0
        self.last_message = ""
        self._build()
        ilinet = bundled_ilinet()
        if ilinet is not None:
            self.set_source(StreamSource(ILINET, ilinet))
        self.project.subscribe(self._on_mode, "mode")
        self._on_mode("mode")

    # -- layout ---------------------------------------------------------------------------------------------
    def _build(self) -> None:
        return stream_layout.build(self)

    # -- inputs ---------------------------------------------------------------------------------------------
    def _note(self, text: str) -> None:
        """Information (not an error): the window's message bar in its plain style."""
        h = host(self)
        if h is not None:
            h.show_info(text)
        self.last_message = text

    def _clear_message(self) -> None:
        h = host(self)
        if h is not None and hasattr(h, "clear_message"):
            h.clear_message()
        self.last_message = ""

    def _message(self, text: str) -> None:
        h = host(self)
        if h is not None:
            h.show_error(text)
        self.last_message = text

    def open_dialog(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(
            self,
            "Open a stream: counts, a table or an event log",
            "",
            "Streams (*.csv *.tsv *.txt *.npy *.gz *.parquet);;All files (*)",
        )
        if not path:
            return
        names = self.columns_of(path)
        if len(names) < 2:  # one count per line, or a lone column: nothing to choose
            self.set_source(StreamSource(COUNTS, Path(path)))
            return
        from dpstudio.gui.widgets.stream_source_dialog import StreamSourceDialog

        dialog = StreamSourceDialog(path, names, self)
        try:
            self.exec_dialog(dialog)
            if dialog.result() == QtWidgets.QDialog.Accepted:
                self.load_source(dialog.source())
        finally:
            dialog.deleteLater()

    @staticmethod
    def columns_of(path) -> list[str]:
        """The header's column names of a CSV/Parquet file ([] for a .npy or a file without them)."""
        if str(path).lower().endswith(".npy"):
            return []
        try:
            from dpstudio.io.engines.source import describe

            return list(describe(path).names)
        except Exception:  # unreadable here: the counts reader gives the message
            return []

    def set_source(self, source: StreamSource) -> bool:
        """Load ``source`` here and show it (False + message on bad input); ``load_source`` does the same in
        the window's worker."""
        try:
            counts, report = source.load_with_report()
        except StreamInputError as exc:
            self._message(str(exc))
            return False
        self._adopt(source, counts, report)
        return True

    def load_source(self, source: StreamSource) -> Worker | None:
        """Load ``source`` in the window's worker (progress bar and Cancel: an event log can be large), then
        show it; a cancelled load changes nothing. Without a window, loads here."""
        h = host(self)
        if h is None:
            self.set_source(source)
            return None

        def job(progress):
            progress(0, 2, f"reading {source.describe()}")
            out = source.load_with_report()
            progress(1, 2, "counted")  # a Cancel pressed meanwhile stops here: nothing is shown
            return out

        worker = Worker(job, function=True, name=f"loading {source.path.name}")
        worker.signals.finished.connect(lambda out: self._adopt(source, *out))
        worker.signals.failed.connect(self._message)
        return h.start_worker(worker, f"loading {source.path.name}")

    def _adopt(self, source: StreamSource, counts, report) -> None:
        self.stop()
        self._clear_run()  # the previous stream's run, plot and ledger do not describe this one
        self.source, self.counts, self.measured = source, counts, None
        self.plot.show_input(counts, self.project.teaching)
        self._update_export()
        self.source_label.setText(f"{source.describe()}: {counts.size} timestamps")
        h = host(self)
        if report is not None and h is not None:
            h.show_info(f"{source.path.name}: {report.words()}")
        self.window_box.setMaximum(counts.size)
        self._update_guarantee()
        self._update_compare()

    def params(self) -> StreamParams:
        mech = self.mechanism_combo.currentData()
        return StreamParams(
            "asm" if mech == LITERAL_ASM else mech,
            self.eps_edit.text().strip(),
            self.window_box.value(),
            grouping=self.grouping_combo.currentData(),
            cap=self.cap(),
        )

    def _update_guarantee(self) -> None:
        horizon = self.counts.size if self.counts is not None else "T"
        if self.mechanism_combo.currentData() == LITERAL_ASM:
            text = f"literal ASM: {NOT_DP}: it reads true counts to decide what to release (teaching only)"
        else:
            text = self.params().guarantee(horizon)
        if self.playback is not None:
            shown = self.run_params.mechanism if self.run_params is not None else None
            chosen = self.mechanism_combo.currentData()
            if shown is not None and chosen not in (shown, LITERAL_ASM):
                text = f"{self.playback.guarantee} (the run shown, {shown}); {chosen}, chosen for the next run: {text}"
            else:
                text = self.playback.guarantee
        if self.source is not None and self.source.kind == EVENTS:
            mechanism = self.mechanism_combo.currentData() if self.playback is None else self.run_params.mechanism
            text += f". In people's terms: {self.source.record(mechanism)['guarantee_in_people']}"
        self.guarantee_label.setText(f"Guarantee: {text}")

    def _on_mode(self, _field) -> None:
        self.stop()
        self._clear_run()  # a teaching run must never be shown or exported as a release
        self.measure_button.setEnabled(self.project.teaching)
        self.measured = None
        self._update_compare()
        self._update_export()

    def _clear_run(self) -> None:
        self.record = None
        self.slider.setRange(0, 0)
        self.ledger_list.clear()
        self._shown_ledger = 0
        self.step_label.setText("no run yet")
        self._show_error_figure()
        self.ledger_title.setText("Ledger")
        self.plot.show_input(self.counts, self.project.teaching)
        self._update_guarantee()

    # -- running --------------------------------------------------------------------------------------------
    def run(self) -> Worker | None:
        """Check everything, charge the store (release mode), then run in the worker."""
        if self.counts is None:
            self._message("no stream: use ILINet or open a counts file")
            return None
        literal = self.mechanism_combo.currentData() == LITERAL_ASM
        teaching = self.project.teaching
        p = self.params()
        run = StreamRun(
            self.source, self.counts, p, teaching, self.project.seed, self.project.budget_store, literal=literal
        )
        try:
            question = run.question()
            if question is not None:
                if question.refusal:
                    self._message(f"not run: {question.refusal}")
                    return None
                if not ask_yes_no(self, RELEASE_TITLE, question.text(), self.exec_dialog, "release_box"):
                    self._message("release run not started: nothing was spent")
                    return None
            if not literal:
                run.begin(question, True)
            if question is not None:
                self.project.release_in_progress = (
                    f"epsilon {float(question.epsilon):g} on dataset {question.dataset!r}"
                )
        except (StreamInputError, ReleaseRefused, ValueError) as exc:
            self._message(str(exc))
            return None
        self.stop()
        self._clear_run()
        self._clear_message()  # an earlier refusal no longer holds
        if literal:
            worker = Worker(lambda progress: run.literal_playback(), function=True, name="literal ASM")
        else:
            worker = Worker(run.events, name=f"stream {p.mechanism}", pause_gc=True)
        worker.signals.finished.connect(lambda out: self._finished(run.finish(out)))
        worker.signals.failed.connect(self._message)
        for signal in (worker.signals.finished, worker.signals.failed, worker.signals.cancelled):
            signal.connect(lambda *_: setattr(self.project, "release_in_progress", ""))
        self.worker = worker
        h = host(self)
        return h.start_worker(worker, f"stream {p.mechanism}") if h is not None else self.runner.start(worker)

    # -- the last run, read from its record ---------------------------------------------------------------
    @property
    def playback(self):
        return None if self.record is None else self.record.playback

    @property
    def result(self):
        return None if self.record is None else self.record.result

    @property
    def ledger(self):
        return None if self.record is None else self.record.ledger

    @property
    def budget_record(self):
        return None if self.record is None else self.record.budget

    @property
    def run_params(self):
        return None if self.record is None else self.record.params

    @property
    def run_source(self):
        return None if self.record is None else self.record.source

    def _finished(self, record: StreamRecord) -> None:
        self.record = record
        self._show_error_figure()
        self._update_guarantee()
        self.slider.setRange(0, len(self.playback.events))
        self.show_step(len(self.playback.events))
        self._update_export()

    def _show_error_figure(self) -> None:
        """The run's estimated squared error of one published window (from the release: post-processing),
        beside the Laplace term alone; the sidecar's note as the tooltip."""
        err = self.result.error if self.result is not None else {}
        est = err.get("estimated_window_error")
        if not err:
            self.error_label.setText("")
        elif est is None:
            self.error_label.setText("No error estimate: this mechanism publishes predictions (see the tooltip).")
        else:
            lap = err.get("expected_window_laplace_error")
            self.error_label.setText(
                f"Estimated squared error of one window: {est:.3g}"
                + (
                    f" (the Laplace noise term alone: {lap:.3g})"
                    if lap is not None and err.get("laplace_term_only")
                    else ""
                )
            )
        note = err.get("estimated_window_error_note", "")
        self.error_label.setToolTip(f"{self.error_label.text()}\n\n{note}".strip())

    # -- playback -------------------------------------------------------------------------------------------
    def show_step(self, k: int) -> None:
        if self.playback is None:
            return
        if self.slider.value() != k:
            self.slider.setValue(k)  # comes back here through valueChanged
            return
        st = self.playback.state(k)
        self.plot.show_state(st, self.run_params.window, self.playback.teaching)
        if len(st.ledger) < self._shown_ledger:
            self.ledger_list.clear()
            self._shown_ledger = 0
        for i in range(self._shown_ledger, len(st.ledger)):
            s = st.ledger[i]
            self.ledger_list.addItem(
                f"{i + 1}. \u03b5 {fraction_text(s.epsilon, True)}  sensitivity "
                f"{s.sensitivity:g}  scale {s.scale if s.scale is None else format(s.scale, 'g')}  "
                f"{s.note}".rstrip()
            )
        self._shown_ledger = len(st.ledger)
        if st.ledger:
            self.ledger_list.scrollToBottom()
        total = self.ledger.total if self.ledger is not None else None
        self.ledger_title.setText(
            f"Ledger: {len(st.ledger)} spends; this run spent \u03b5 {float(st.spent):.6g}"
            + (f" of its {float(total):g}" if total is not None else f" (literal ASM: no ledger, {NOT_DP})")
        )
        where = f"window ending at t = {st.window.window}" if st.window is not None else "no window yet"
        self.step_label.setText(f"{where}; event {k}/{len(self.playback.events)}")

    def toggle_play(self) -> None:
        if self.timer.isActive():
            self.stop()
        elif self.playback is not None:
            if self.slider.value() >= self.slider.maximum():
                self.slider.setValue(0)
            self.play_button.setText("Pause")
            self.timer.start()

    def stop(self) -> None:
        self.timer.stop()
        self.play_button.setText("Play")

    def _tick(self) -> None:
        step = max(1, self.slider.maximum() // 200)
        k = min(self.slider.value() + step, self.slider.maximum())
        self.slider.setValue(k)
        if k >= self.slider.maximum():
            self.stop()

    # -- export ---------------------------------------------------------------------------------------------
    def can_export(self) -> bool:
        return self.record is not None and self.record.exportable and not self.project.teaching

    def _update_export(self) -> None:
        ok = self.can_export()
        self.export_button.setEnabled(ok)
        if ok:
            self.export_note.setText("a release: export writes the CSV, its sidecar, the report and the re-run scripts")
        elif self.playback is not None and not self.playback.exportable:
            self.export_note.setText(f"the literal ASM is {NOT_DP}: it is never exported")
        else:
            self.export_note.setText("export needs a run in release mode (teaching runs are not releases)")

    def default_export_path(self) -> Path:
        """Beside the data, named after it and the mechanism: ``visits_tpm.csv``."""
        return self.record.default_export_path() if self.record is not None else Path.home() / "stream.csv"

    def export_dialog(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self, "Export the stream release", str(self.default_export_path()), "CSV (*.csv)"
        )
        if path:
            self.export_to(path, confirm=True)

    def export_paths(self, path) -> list[Path]:
        """The files an export writes: the CSV, its sidecar, the report and the re-run script."""
        return StreamRecord.export_paths(path)

    def confirm_text(self) -> str:
        return self.record.confirm_text() if self.record is not None else ""

    def export_to(self, path, overwrite: bool = False, confirm: bool = False):
        """Write the release (OUT.csv, OUT.json, OUT.report.html and the re-run scripts OUT.command.sh and
        OUT.reproduce.py, atomically) after the question when ``confirm``; None (and a message) when refused or answered No."""
        from dpstudio.io.atomic import OutputPathError, check_output_path

        if not self.can_export():
            self._message("nothing to export: only a release-mode run of a private mechanism can be exported")
            return None
        paths = self.export_paths(path)
        try:
            for x in paths:
                check_output_path(x, overwrite)  # before asking or writing anything
        except OutputPathError as exc:
            self._message(str(exc))
            return None
        if confirm and not ask_yes_no(
            self, "Publish this release?", self.confirm_text(), self.exec_dialog, "export_box"
        ):
            self._note("export cancelled: nothing was written")  # the user's choice, not an error
            return None
        try:
            written = self.record.export(path, overwrite)
        except OutputPathError as exc:
            self._message(str(exc))
            return None
        self.export_note.setText(f"wrote {', '.join(x.name for x in written)} in {written[0].parent}")
        self._clear_message()  # an earlier refusal or cancel no longer holds
        return written

    # -- compare --------------------------------------------------------------------------------------------
    def compare_points(self) -> list[tuple]:
        """The (w, epsilon) pairs of the chosen x axis: public inputs (the controls and the stream's T)."""
        try:
            eps = float(self.params().checked_epsilon())
        except StreamInputError:
            eps = 1.0
        return grid(
            self.axis_combo.currentData(), self.counts.size, min(self.window_box.value(), self.counts.size), eps
        )

    def compared_mechanisms(self) -> list[str]:
        """The mechanisms the chart compares: those giving the chosen mechanism's guarantee (binary, the
        event-level one, is never set beside the user-level ones)."""
        mech = self.mechanism_combo.currentData()
        return same_guarantee("asm" if mech == LITERAL_ASM else mech)

    def _update_compare(self) -> None:
        self.compare_plot.clear_series()
        self._update_recommendation()
        if self.counts is None:
            return
        axis, measure = self.axis_combo.currentData(), self.measure_combo.currentData()
        points = self.compare_points()
        xs = [e if axis == "epsilon" else w for w, e in points]
        w, eps = points[0]
        self.compare_plot.setLabel(
            "bottom", f"epsilon (w = {w})" if axis == "epsilon" else f"window w (\u03b5 = {eps:g})"
        )
        self.compare_plot.setLabel(
            "left", "squared error, window" if measure == "workload" else "absolute error, count"
        )
        # errors fall with epsilon (legend top right) and grow with w (legend top left)
        self.compare_plot.legend.setOffset((-10, 10) if axis == "epsilon" else (10, 10))
        shown, cap = self.compared_mechanisms(), self.cap()
        guarantee = GUARANTEE[shown[0]]
        for m, ys in analytic_errors(measure, self.counts.size, points, cap, shown).items():
            self.compare_plot.set_series(f"{m} ({guarantee}, analytic)", xs, ys, colour=MECHANISM_COLOURS[m])
        got = self.measured
        if got is not None and got["points"] == points and got.get("cap", 1) == cap:
            for m, ys in got["errors"][measure].items():
                if m in shown:
                    self.compare_plot.set_series(
                        f"{m} ({guarantee}, simulation, not a release)",
                        xs,
                        ys,
                        dashed=True,
                        colour=MECHANISM_COLOURS[m],
                    )

    def cap(self) -> int:
        """K: one person's most per timestamp (an event log's per-bucket cap; 1 for a count stream)."""
        return self.source.cap if self.source is not None and self.source.kind == EVENTS else 1

    def _update_recommendation(self) -> None:
        """The mechanism recommended from public inputs (T, w, epsilon, K) among those with the chosen one's
        guarantee, with its reason (``model.stream_recommend``)."""
        try:
            eps = self.params().checked_epsilon()
        except ValueError:
            self.recommend_label.setText("")
            return
        horizon = self.counts.size if self.counts is not None else None
        window = self.window_box.value()
        if horizon is None or window > horizon:
            self.recommend_label.setText("")
            return
        shown = self.compared_mechanisms()
        rec = recommend(horizon, window, eps, self.cap(), GUARANTEE[shown[0]])
        self.recommendation = rec
        self.recommend_label.setText(f"Recommended: {rec.reason}")
        self.recommend_label.setToolTip(rec.reason)

    def measure(self) -> Worker | None:
        """Measured curves (simulation noise against the true counts) at the current points: teaching only."""
        if not self.project.teaching or self.counts is None:
            self._message("measured errors read the true counts: teaching mode only (and a stream is needed)")
            return None
        counts, points, cap = self.counts, self.compare_points(), self.cap()
        mechanisms = [m for m in MEASURED if m in self.compared_mechanisms()]
        worker = Worker(
            lambda progress: {
                "points": points,
                "cap": cap,
                "errors": measured_errors(counts, points, mechanisms, progress=progress, cap=cap),
            },
            function=True,
            name="stream compare (simulation)",
        )
        worker.signals.finished.connect(self._measured)
        worker.signals.failed.connect(self._message)
        h = host(self)
        return h.start_worker(worker, "stream compare (simulation)") if h is not None else self.runner.start(worker)

    def _measured(self, out: dict) -> None:
        if not self.project.teaching:
            return  # the mode changed while it ran: simulations are shown in teaching mode only
        self.measured = out
        self._update_compare()

    def shutdown(self) -> None:
        self.stop()
        self.runner.shutdown()
