"""Compare: error against query size (log-log) for the leaf-only, raw-tree and consistent releases, from
analytic values and Monte-Carlo bands; classification accuracy against baselines; per-node noisy against
consistent counts.

The numbers come from ``dpstudio.model.compare.comparison`` (which calls ``dpstudio.core.range_error``,
``dpstudio.core.range_queries`` and ``dpstudio.evaluation``); the Monte-Carlo runs in the worker with
progress and Cancel. Everything Monte-Carlo is simulation noise and is labelled "not a release"; nothing
here is exported. A banner at the top states the mode:

- release mode: only data-independent figures ("data-independent: noise only": the error of the linear
  post-processings simulated on an all-zero truth with the run's scales and released tree shape, queries
  sized by their share of the domain) and noisy values already paid for (the per-node scatter, the release
  itself in the classification). The classification compares with the majority class of the test file;
  the raw-data baseline is not computed.
- teaching mode: DiffGen trees are also compared against the true counts of the data (queries sized by
  their share of the domain, as in release mode); the classification adds the raw-data baseline.

Public methods (for the demo driver and tests):
- ``refresh()``: re-read the project's last run (analytic curves and the node scatter).
- ``run_monte_carlo(runs=30, seed=0)``: start the Monte-Carlo in a worker; returns the Worker.
- ``cancel()``: stop it.
- ``evaluate_classification(test)``: ``test`` a DataFrame or a path; returns ``ClassificationScores``.
- ``curves`` (analytic ``Curves``), ``mc_curves`` (Monte-Carlo ``Curves``), ``scores``.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from dpstudio.algorithms import registry
from dpstudio.gui.panels import compare_layout, host
from dpstudio.gui.panels.compare_layout import ACCURACY_PADDING, SCATTER_TITLE  # noqa: F401 (also imported from here)
from dpstudio.model.compare import comparison as cmp
from dpstudio.model.compare import monte_carlo as mc
from dpstudio.model.compare.verdict import ALL_RANGES, SIZES_PLOTTED, STRATEGY_KIND, verdict

COLOURS = {cmp.LEAF_ONLY: "#7f7f7f", cmp.RAW_TREE: "#d62728", cmp.LEAST_SQUARES: "#2e9e5b", cmp.SEED_RULE: "#9467bd"}


#: release-mode DiffGen trees up to this many nodes get their analytic curves at once (on the GUI thread,
#: about 0.2 s, benchmarks/bench_compare_noise_only.py); bigger ones with the Monte-Carlo, in the worker.
SYNC_ANALYTIC_NODES = 400


def _drawing_order(values: dict) -> list:
    """Least squares last (on top): seed 000's rule is often almost equal to it and would hide it."""
    order = (cmp.LEAF_ONLY, cmp.RAW_TREE, cmp.SEED_RULE, cmp.LEAST_SQUARES)
    return sorted(values.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order))


def scatter_title(noisy, consistent) -> tuple[str, str]:
    """(title, tooltip) of the per-node scatter; when the noisy counts spread far wider than the consistent
    ones, the words say why (levels given little budget) and what is released (the consistent values)."""
    spread_noisy = float(np.ptp(noisy)) if np.size(noisy) else 0.0
    spread_cons = float(np.ptp(consistent)) if np.size(consistent) else 0.0
    if spread_noisy > 10 * max(spread_cons, 1.0):
        return (
            f"per node: noisy (x) spread \u00b1{spread_noisy / 2:,.0f}; consistent (y) is released",
            "Levels given little of the count budget have very noisy counts. Least squares weighs every noisy "
            "count by its precision, so they barely move the consistent values (y), which are what the release "
            "publishes.",
        )
    return "per node: noisy (x) against consistent (y)", ""


class ComparePanel(QtWidgets.QWidget):
    analyticDone = QtCore.Signal(object)  # the exact variances of a large tree, computed in the background
    monteCarloDone = QtCore.Signal(object)

    def __init__(self, project, parent=None):
        super().__init__(parent)
        compare_layout.build(self, project, parent)

    def detach(self) -> None:
        """Stop following the project (before the panel is thrown away)."""
        self.project.unsubscribe(self._on_project)

    def _project_changed(self) -> None:
        """The project's run or mode changed: refresh now or, while the panel is a hidden tab of a window,
        when it is next shown (at the end of a million-row run the refresh held the GUI thread for a second
        while another tab was shown; benchmarks/RESULTS.md, session 25)."""
        if self.window() is not self and not self.isVisible():
            self._forget_run()  # nothing of the last run is left for anyone to read meanwhile
            self._stale = True
            if self._kind() == "table" and self._analytic_in_background(self.result):
                self._start_analytic(self.result)  # off the GUI thread: ready when the tab is shown
            return
        self.refresh()

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if getattr(self, "_stale", False):  # before its first paint: never the last run's figures
            self._stale = False
            self.refresh()

    # -- what is being compared -------------------------------------------------------------------------
    @property
    def result(self):
        return getattr(self.project, "result", None)

    def _kind(self) -> str | None:
        return mc.result_kind(self.result)

    def release_view(self) -> bool:
        """True unless the run (and the project) are in teaching mode: then only data-independent figures
        and paid-for noisy values are shown (``model.compare.monte_carlo.reads_true_counts``)."""
        return not mc.reads_true_counts(self.project)

    def _show_mode(self) -> None:
        if self.release_view():
            self.mode_label.setText(
                "<b>Release mode</b>: everything shown is data-independent (noise only) or "
                "a noisy value already paid for; no true count is read"
            )
            self.mode_label.setStyleSheet("background:#e6f2ea; color:#1e5e36; padding:3px;")
        elif self._kind() == "histogram":
            self.mode_label.setText(
                "<b>Teaching mode</b>: interval-tree errors follow from the noise scales "
                "alone (data-independent: noise only), as in release mode"
            )
            self.mode_label.setStyleSheet("background:#fff3d6; color:#8a5a00; padding:3px;")
        else:
            self.mode_label.setText(
                "<b>Teaching mode</b>: DiffGen errors are measured against the TRUE counts "
                "of your data (simulation noise): for learning only, never exported"
            )
            self.mode_label.setStyleSheet("background:#fff3d6; color:#8a5a00; padding:3px;")

    def _forget_run(self) -> None:
        """Drop the figures of the run shown (curves, verdict, Monte-Carlo bands, scores, the node scatter)."""
        self.curves = None
        self.verdict.setText("")
        self.mc_curves = None
        self.scores = None
        self.last_error = None
        self.plot.clear_series()
        self._clear_classification()
        self._clear_scatter()

    def refresh(self) -> None:
        """Re-read the project's last run: analytic curves and the node scatter."""
        self._forget_run()
        self._show_mode()
        kind = self._kind()
        release = self.release_view()
        # the corner the curves leave free: bottom right for interval trees (their errors flatten out with
        # the length), top left for DiffGen boxes (errors grow with the share of the domain)
        if kind == "histogram":
            self.plot.legend.anchor((1, 1), (1, 1), offset=(-8, -8))
        else:
            self.plot.legend.anchor((0, 0), (0, 0), offset=(8, 8))
        self.mc_button.setEnabled(kind is not None)
        self.test_button.setEnabled(kind == "table")
        self.class_box.setVisible(kind == "table")
        self.class_absent.setVisible(kind == "histogram")
        self.note.setText(cmp.SIMULATION_LABEL)
        if kind is None:
            self.source.setText("no run yet: run an algorithm, then compare its error here")
        elif kind == "histogram":
            plan = self.result.plan
            self.plot.setLabel("bottom", "query size (bins)")
            self.plot.setLabel("left", "expected squared error")
            shape = (
                f"{plan.tree.n_bins} bins and {plan.n_rows} weighted sums of bins"
                if cmp.is_pidentity(plan)
                else f"{plan.tree.n_bins} bins, {plan.tree.n_nodes} nodes"
            )
            self.source.setText(
                f"{registry.histogram_name(plan.algorithm)}: {shape}, "
                f"epsilon {plan.epsilon:g}. {cmp.NOISE_ONLY_LABEL}. Dashed: analytic; "
                "solid with band: Monte-Carlo"
            )
            self.note.setText(
                f"{cmp.NOISE_ONLY_LABEL}: the errors follow from the noise scales alone; {cmp.SIMULATION_LABEL}"
            )
            self.curves = cmp.histogram_analytic(plan)
            for m, y in _drawing_order(self.curves.values):
                self.plot.set_series(f"{m} (analytic)", self.curves.x, y, dashed=True, colour=COLOURS[m], legend=m)
            self._say_verdict()
        else:  # a table run, either mode: the exact variances at once, on the share of the domain
            r = self.result
            self.plot.setLabel("bottom", "query size (share of the domain)")
            self.plot.setLabel("left", "expected squared error")
            mc = (
                "press Monte-Carlo for bands"
                if release
                else "press Monte-Carlo to compare them with the true counts of your data (teaching)"
            )
            self.source.setText(
                f"{r.params.algorithm}: {len(r.leaf_nodes)} leaf partitions, count budget "
                f"{float(r.count_epsilon):.4g}. {cmp.NOISE_ONLY_LABEL} on random boxes. Dashed: analytic; {mc}"
            )
            self.note.setText(cmp.RELEASE_VIEW if release else cmp.TEACHING_TABLE_LABEL)
            if self._analytic_in_background(r):
                self.source.setText(
                    self.source.text().split(" Dashed: analytic;")[0]
                    + " The exact variances (dashed) are being computed in the background; Monte-Carlo adds bands"
                )
                done = getattr(self, "_analytic_done", None)
                if done is not None and done[0] is r:  # worked out while another tab was shown
                    self._draw_analytic(done[1])
                else:
                    self._start_analytic(r)
                return self._refresh_scatter()
            try:
                res = cmp.diffgen_noise_only(r, cmp.public_domain(r, self.project.taxonomies), runs=0)
            except ValueError as exc:
                self._error(str(exc))
                return self._refresh_scatter()
            self.curves = cmp.noise_only_curves(res)[0]
            for m, y in _drawing_order(self.curves.values):
                self.plot.set_series(f"{m} (analytic)", self.curves.x, y, dashed=True, colour=COLOURS[m], legend=m)
            self._say_verdict()
        self._refresh_scatter()

    def tree_levels(self) -> int:
        """Levels of the released tree (its shape is public: released with the counts)."""
        r = self.result
        tree = r.plan.tree if self._kind() == "histogram" else r.tree
        from dpstudio.core.consistency import TreeLevels

        parents = np.asarray(tree.parents, dtype=np.int64)
        return len(TreeLevels(parents).levels) if parents.size else 0

    def _say_verdict(self) -> None:
        """The analytic (data-independent) curves in words: only they back a recommendation."""
        if not self.curves:
            return self.verdict.setText("")
        kind = self._kind()
        values, measure = self.curves.values, SIZES_PLOTTED
        if kind == "histogram":  # the figures the Algorithm panel gives for this histogram
            values, measure = cmp.all_range_errors(self.result.plan), ALL_RANGES
            if cmp.is_pidentity(self.result.plan):
                kind = STRATEGY_KIND
        try:
            noise = cmp.level_noise(self.result)
        except ValueError:
            noise = None
        self.verdict.setText(verdict(values, self.tree_levels(), kind, noise, measure))

    def _clear_scatter(self) -> None:
        self.scatter_item.setData([], [])
        self.diag.setData([], [])
        self.scatter.setTitle(SCATTER_TITLE, size="9pt")  # not the previous run's spread
        self.scatter.setToolTip("")
        self.node_data = (np.zeros(0), np.zeros(0), np.zeros(0))

    def _refresh_scatter(self) -> None:
        events = getattr(self.project, "events", None) or []
        if not events:
            self._clear_scatter()
            return
        ids, noisy, cons = cmp.node_pairs_from_events(events)
        self.node_data = (ids, noisy, cons)
        self.scatter_item.setData(noisy, cons)
        if noisy.size:
            lo = float(min(noisy.min(), cons.min()))
            hi = float(max(noisy.max(), cons.max()))
            self.diag.setData([lo, hi], [lo, hi])
            title, tip = scatter_title(noisy, cons)
            self.scatter.setTitle(title, size="9pt")
            self.scatter.setToolTip(tip)
        else:
            self.diag.setData([], [])
            self.scatter.setTitle("per node: no node has both a noisy and a consistent count in this run", size="9pt")

    # -- Monte-Carlo ---------------------------------------------------------------------------------
    def _job(self, runs: int, seed: int):
        sizes = self.curves.x.astype(int) if self.curves and self._kind() == "histogram" else None
        return mc.monte_carlo_job(self.project, self.result, sizes, runs, seed)

    @staticmethod
    def _analytic_in_background(result) -> bool:
        """Whether a table run's exact variances are worked out off the GUI thread (a large tree)."""
        return result.tree.parents.size > SYNC_ANALYTIC_NODES

    def _start_analytic(self, result) -> None:
        """The exact variances of a large tree, on a thread of the panel's own (not the window's job runner,
        so a run or a Monte-Carlo is never refused for it); drawn when they arrive if the run is still the
        one shown. Data-independent: the tree's shape, the node scales and public queries only."""
        from dpstudio.gui.worker import TaskRunner, Worker

        runner = getattr(self, "_analytic_runner", None)
        if runner is not None and runner.busy and getattr(self, "_analytic_for", None) is result:
            self._analytic_pending = None  # already under way (started while another tab was shown)
            return
        domain = cmp.public_domain(result, self.project.taxonomies)

        def job(_progress):
            return result, cmp.noise_only_curves(cmp.diffgen_noise_only(result, domain, runs=0))[0]

        worker = Worker(job, function=True, name="exact variances")
        worker.signals.finished.connect(self._on_analytic_done)
        if getattr(self, "_analytic_runner", None) is None:
            self._analytic_runner = TaskRunner(self)
        if self._analytic_runner.busy:
            self._analytic_pending = result  # computed when the running one ends
            return
        self._analytic_for = result
        self._analytic_runner.start(worker)
        self.analytic_worker = worker

    def _on_analytic_done(self, out) -> None:
        result, curves = out
        self._analytic_done = (result, curves)  # the last run's, for a refresh when the tab is shown
        pending = getattr(self, "_analytic_pending", None)
        self._analytic_pending = None
        if pending is not None and pending is self.result:
            self._start_analytic(pending)
        if result is not self.result or self.curves is not None or getattr(self, "_stale", False):
            return  # another run is shown now, the Monte-Carlo drew them already, or the tab waits to be shown
        self._draw_analytic(curves)

    def _draw_analytic(self, curves) -> None:
        """Draw the exact variances of the run shown (worked out in the background) and say the verdict."""
        self.curves = curves
        for m, y in _drawing_order(curves.values):
            self.plot.set_series(f"{m} (analytic)", curves.x, y, dashed=True, colour=COLOURS[m], legend=m)
        self._say_verdict()
        self.source.setText(
            self.source.text().replace(
                "The exact variances (dashed) are being computed in the background; Monte-Carlo adds bands",
                "Dashed: the exact variances; Monte-Carlo adds bands",
            )
        )
        self.analyticDone.emit(curves)

    def run_monte_carlo(self, runs: int = 30, seed: int = 0):
        """Start the Monte-Carlo in a worker (progress + Cancel); returns the Worker (or None)."""
        from dpstudio.gui.worker import TaskRunner, Worker, user_message

        try:
            job = self._job(int(runs), int(seed))
        except Exception as exc:
            self._error(user_message(exc))
            return None
        worker = Worker(job, function=True, name="Monte-Carlo")
        worker.signals.progress.connect(self._on_progress)
        worker.signals.finished.connect(self._on_mc_done)
        worker.signals.failed.connect(self._on_mc_failed)
        worker.signals.cancelled.connect(self._on_mc_cancelled)
        self.worker = worker
        self._busy(True)
        win = host(self)
        if win is not None:
            started = win.start_worker(worker, "Monte-Carlo error bands")
            if started is None:
                self._busy(False)
            return started
        if self._runner is None:
            self._runner = TaskRunner(self)
        try:
            return self._runner.start(worker)
        except RuntimeError as exc:
            self._busy(False)
            self._error(str(exc))
            return None

    def cancel(self) -> None:
        if self.worker is not None:
            self.worker.cancel()

    def _busy(self, busy: bool) -> None:
        self.mc_button.setEnabled(not busy)
        self.cancel_button.setEnabled(busy)
        self.progress.setVisible(busy)
        if busy:
            self.progress.setRange(0, 0)

    def _on_progress(self, done, total, message) -> None:
        if total > 0:
            self.progress.setRange(0, total)
            self.progress.setValue(done)
        self.progress.setFormat(message or "%p%")

    def _on_mc_done(self, curves) -> None:
        self._busy(False)
        self.worker = None
        if isinstance(curves, tuple):  # release-mode DiffGen: (analytic, Monte-Carlo) on the same queries
            analytic, curves = curves
            if self.curves is None:
                self.curves = analytic
                for m, y in _drawing_order(analytic.values):
                    self.plot.set_series(f"{m} (analytic)", analytic.x, y, dashed=True, colour=COLOURS[m], legend=m)
                self._say_verdict()
        self.mc_curves = curves
        for m, y in _drawing_order(curves.values):
            # one legend entry per method: its analytic (dashed) curve's, when it has one, names both
            shared = f"{m} (analytic)" in self.plot.series
            self.plot.set_series(
                f"{m} (Monte-Carlo)",
                curves.x,
                y,
                band=curves.bands.get(m),
                colour=COLOURS[m],
                legend=None if shared else m,
            )
        if self._kind() == "histogram":
            what, band = f"{cmp.NOISE_ONLY_LABEL}; {cmp.SIMULATION_LABEL}", "2 standard errors on the log scale"
        elif self.release_view():
            what, band = cmp.RELEASE_VIEW, "2 standard errors across runs on the log scale"
        else:
            what, band = cmp.TEACHING_TABLE_LABEL, "interquartile range of the per-query error in each size bucket"
        self.note.setText(f"{what}; {curves.runs} runs; bands: {band}")
        self.monteCarloDone.emit(curves)

    def _on_mc_failed(self, message: str) -> None:
        self._busy(False)
        self.worker = None
        self._error(message)

    def _on_mc_cancelled(self) -> None:
        self._busy(False)
        self.worker = None
        self.note.setText("Monte-Carlo cancelled")

    def _error(self, message: str) -> None:
        self.last_error = message
        win = host(self)
        if win is not None:
            win.show_error(message)
        self.note.setText(message)

    # -- classification ----------------------------------------------------------------------------
    def _choose_test_file(self) -> None:
        from dpstudio.model.compare.held_out_table import folder_for_test_file

        path, _ = QtWidgets.QFileDialog.getOpenFileName(
            self, "Test file", folder_for_test_file(self.project), "Tables (*.csv *.tsv *.test *.txt *.gz *.parquet)"
        )
        if path:
            try:
                self.evaluate_classification(path)
            except Exception as exc:
                from dpstudio.gui.worker import user_message

                self._error(user_message(exc))

    def _clear_classification(self) -> None:
        self.acc_bars.setOpts(x=[], height=[], width=0.6, brushes=[])
        if self.release_view():
            self.acc_plot.getAxis("bottom").setTicks([[(0, "majority (test)"), (1, "release")]])
            self.class_label.setText(
                "accuracy of a tree trained on the release, tested on your test file, against "
                "the test file's majority class. The raw-data baseline trains on the private "
                "rows: teaching mode only"
            )
        else:
            self.acc_plot.getAxis("bottom").setTicks([[(0, "majority"), (1, "release"), (2, "raw data")]])
            self.class_label.setText(
                "accuracy of a tree trained on the release, against the majority class and a "
                "tree trained on the raw data (teaching mode)"
            )
        self.acc_plot.setXRange(-0.6, 2.6 if not self.release_view() else 1.6)

    def evaluate_classification(self, test):
        """Accuracy of the release on ``test`` (DataFrame or path) against the test file's majority class;
        in teaching mode also against the raw-data baseline (``model.compare.classification``)."""
        from dpstudio.model.compare.classification import release_accuracy

        scored = release_accuracy(self.project, self.result, test)
        self._clear_classification()
        self.scores = s = scored.scores
        heights, brushes = [s.majority, s.release], ["#7f7f7f", "#2e9e5b"]
        if scored.raw_withheld is None:
            heights.append(s.raw)
            brushes.append("#4a7fc1")
        self.acc_bars.setOpts(
            x=list(range(len(heights))), height=heights, width=0.6, brushes=[pg.mkBrush(b) for b in brushes]
        )
        self.acc_plot.setYRange(0.0, 1.0, padding=ACCURACY_PADDING)  # from 0: a cut axis exaggerates the gaps
        self.class_label.setText(scored.text())
        return s
