"""The Anonymize panel: syntactic anonymization (k-anonymity, l-diversity, t-closeness) on the project's loaded
data and taxonomies, and the teaching tab of SYNTACTIC.md K11 (what a syntactic guarantee does not promise).

Nothing here is differentially private: the output is a deterministic function of the data and shows exact
counts (classes, suppressed rows, class sizes); no noise is drawn, no epsilon spent, the budget store is not
charged. The label "syntactic anonymization: no differential-privacy guarantee" is always on screen, and
every export carries it (``io.anonymize.write_outputs``: atomic, never overwrites). The computation is
``model.anonymize_job`` (the one ``dpstudio anonymize`` runs), off the GUI thread in the window's worker.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import Qt

from dpstudio.core.events import run_result
from dpstudio.gui.panels import anonymize_layout, host
from dpstudio.gui.panels.anonymize_layout import METRIC_WORDS, OFF, SIDE_NOTE, SIDE_ROWS, _named  # noqa: F401 (also imported from here)
from dpstudio.gui.widgets.elided_label import ErrorLine
from dpstudio.gui.widgets.lattice_view import CHOSEN, FAILING, MINIMAL, SATISFYING, UNKNOWN
from dpstudio.gui.worker import TaskRunner, Worker, user_message
from dpstudio.io.anonymize import LABEL, AnonymizeError
from dpstudio.io.atomic import OutputPathError
from dpstudio.model.anonymize import compare as ac
from dpstudio.model.anonymize import job as aj
from dpstudio.model.anonymize import teaching as teach
from dpstudio.model.project.project import QUASI_IDENTIFIER, Project

NONE = "(none)"
SAME_ATTRIBUTE = "(same)"


class AnonymizePanel(QtWidgets.QWidget):
    """See the module docstring. ``outcome``: the last run's ``AnonymizeOutcome`` (None before a run)."""

    finished = QtCore.Signal()  # a run ended (outcome set) or failed
    contrast_finished = QtCore.Signal()
    attacks_finished = QtCore.Signal()

    def __init__(self, project: Project, parent=None):
        super().__init__(parent)
        self.project = project
        self.outcome: aj.AnonymizeOutcome | None = None
        self.contrast: teach.NeighbourContrast | None = None
        self.last_error = ""
        self._runner: TaskRunner | None = None
        self._worker: Worker | None = None

        layout = QtWidgets.QVBoxLayout(self)
        self.label = QtWidgets.QLabel(LABEL)
        self.label.setObjectName("not-dp-label")
        self.label.setStyleSheet("color: #a00000; font-weight: bold;")
        # the panel's error shares the warning's line (seen from every tab; showing it moves nothing)
        self.error = ErrorLine(colour="#a00000")
        self.error.hide()
        head = QtWidgets.QHBoxLayout()
        head.addWidget(self.label)
        head.addSpacing(16)
        head.addWidget(self.error, 1)
        layout.addLayout(head)
        self.tabs = _named(QtWidgets.QTabWidget(), "anonymize views")
        layout.addWidget(self.tabs, 1)
        self.tabs.addTab(self._build_run_tab(), "Anonymize")
        self.tabs.addTab(self._build_teaching_tab(), "What it does not promise")
        self.tabs.addTab(self._build_side_tab(), "Side by side with DP")
        project.subscribe(self._on_project, "data", "roles", "taxonomies", "types", "bounds")
        project.subscribe(self._on_run, "run")
        self.refresh()

    # -- building ---------------------------------------------------------------------------------------------
    def _build_run_tab(self) -> QtWidgets.QWidget:
        return anonymize_layout.build_run_tab(self)

    def _build_teaching_tab(self) -> QtWidgets.QWidget:
        """Three sections, in a scroll area (``anonymize_layout.build_teaching_tab``)."""
        return anonymize_layout.build_teaching_tab(self)

    def _build_side_tab(self) -> QtWidgets.QWidget:
        return anonymize_layout.build_side_tab(self)

    def _side_file_clicked(self) -> None:
        from dpstudio.model.compare.held_out_table import folder_for_test_file

        path, _ = QtWidgets.QFileDialog.getOpenFileName(
            self, "Test file", folder_for_test_file(self.project), "Tables (*.csv *.tsv *.test *.txt *.gz *.parquet)"
        )
        if path:
            self._side_clicked(path)

    def _side_clicked(self, test) -> None:
        try:
            self.compare_with_dp(test)
        except Exception as exc:
            self.show_error(user_message(exc))

    def compare_with_dp(self, test=None) -> tuple:
        """Fill the side-by-side table; ``test``: a DataFrame, a path, or None for the test file last scored
        (``project.test_path``, Compare's), else the bundled Adult test sample when the data is the bundled
        Adult sample. Cells, classes, C_DM and C_AVG need no test file and are always filled; the accuracy
        row needs one, and without one (or with one that lacks the run's columns) it says so and names the
        file. Returns (anonymization figures, DP figures, accuracies or None). Post-processing only: no budget."""
        p, out, result = self.project, self.outcome, self.project.result
        if out is None:
            raise AnonymizeError("run an anonymization first")
        if result is None or not hasattr(result, "leaf_values"):
            raise AnonymizeError("run a DiffGen-family DP release on the data first (Algorithm panel)")
        taxonomies = self.run_taxonomies(out.settings.qi)
        an, dp = ac.side_by_side(out, result, taxonomies)
        rows = [
            (f"{an.cells:,}", f"{dp.cells:,}"),
            (f"{an.classes:,}", f"{dp.classes:,}"),
            (f"{an.c_dm:,.0f}", f"{dp.c_dm:,.0f}"),
            (f"{an.c_avg:.3g}", f"{dp.c_avg:.3g}"),
        ]
        for i, pair in enumerate(rows, start=1):  # row 0 is the accuracy
            for j, text in enumerate(pair):
                self.side_table.setItem(i, j, QtWidgets.QTableWidgetItem(text))
        accuracy, about_test = self._side_accuracy(test, out, result)
        acc_cells = (f"{accuracy[0]:.2%}", f"{accuracy[1]:.2%}") if accuracy else ("needs a test file",) * 2
        for j, text in enumerate(acc_cells):
            self.side_table.setItem(0, j, QtWidgets.QTableWidgetItem(text))
        mode = "release" if not p.teaching else "teaching"
        self.side_note.setText(
            f"{about_test} Attributes: the anonymization's {', '.join(out.settings.qi)}; the DP "
            f"run's {', '.join(result.attributes)}. Cells count every combination of generalized values, empty ones included "
            f"(the DP run's {dp.cells:,} leaf partitions, as Compare and Export count them); classes are the "
            f"non-empty cells. DP run ({mode} mode): a class is a leaf partition whose size from the noisy counts "
            f"(clamped at 0) is above 0; C_AVG with the anonymization's k = {out.settings.k}. "
            f"The anonymization's figures are exact: it has no differential-privacy guarantee."
        )
        self.clear_error()
        self.side = (an, dp, *(accuracy or (None, None)))
        self._side_run = result
        return self.side

    def _side_accuracy(self, test, out, result) -> tuple[tuple[float, float] | None, str]:
        """((anonymization accuracy, DP accuracy) or None, the sentence about the test file used or needed)."""
        from dpstudio.model.compare.comparison import prepare_test_table
        from dpstudio.model.compare.held_out_table import read_test_table
        from dpstudio.model.project.data import bundled_sample_path
        from dpstudio.model.project.project import NUMERIC

        p = self.project
        if test is None and p.test_path is not None:
            test = p.test_path
        on_sample = p.data_path is not None and Path(p.data_path).resolve() == Path(bundled_sample_path()).resolve()
        if test is None and not on_sample:
            return None, (
                "Accuracy needs a test file of the same kind of records as your data (“Test file...”, or "
                "the one scored in Compare); the other figures need none."
            )
        source = (
            "the bundled Adult test sample"
            if test is None
            else Path(test).name
            if isinstance(test, (str, Path))
            else "the test table given"
        )
        if test is None:
            from dpstudio.io.adult import load_bundled_adult

            test = load_bundled_adult()[1]
        cls = result.class_name
        cols = list(dict.fromkeys([*result.attributes, *out.settings.qi, cls]))
        try:
            table = read_test_table(p, test, cols)  # the project's encoding, types and missing-value choice
            table, note = prepare_test_table(table, cols, cls, result.classes)
        except Exception as exc:  # a test file that does not fit: the other figures stand, the file is named
            return None, f"Accuracy: {source} cannot be used ({user_message(exc)}); choose another test file."
        numeric = [a for a in result.attributes if p.types.get(a) == NUMERIC]
        dp_acc = ac.dp_accuracy(result, table, cls, numeric)
        an_acc = ac.anonymization_accuracy(
            out, self.run_taxonomies(out.settings.qi), table, cls, ac.kept_class_labels(p.frame, out, cls, p.missing)
        )
        return (an_acc, dp_acc), f"Accuracy on {len(table):,} test rows ({source})." + (f" {note}" if note else "")

    def _on_run(self, _field: str) -> None:
        """The side by side describes one DP run: another run, or none (a new file, a mode change), clears it."""
        if self.side is not None and self.project.result is not self._side_run:
            self.clear_side()

    def clear_side(self) -> None:
        self.side = self._side_run = None
        self.side_table.clearContents()
        self.side_note.setText(SIDE_NOTE)

    # -- project ----------------------------------------------------------------------------------------------
    def _on_project(self, _field: str) -> None:
        self.clear_error()  # it was about the inputs before this change
        self.refresh()

    def refresh(self) -> None:
        """Quasi-identifiers (checked: those with a taxonomy; a numeric one with public bounds can be ticked and
        is generalised on a public grid) and the sensitive attribute choices."""
        from dpstudio.model.anonymize.public_grid import grid_words

        p = self.project
        # a choice is kept while the attribute's taxonomy status stays as it was when the choice was made
        before = {}
        for i in range(self.qi_list.count()):
            item = self.qi_list.item(i)
            before[item.text()] = (item.checkState(), item.data(Qt.UserRole))
        self.qi_list.clear()
        for a in p.attributes(QUASI_IDENTIFIER):
            item = QtWidgets.QListWidgetItem(a)
            grid = "" if a in p.taxonomies else grid_words(p, a)
            has = a in p.taxonomies  # checked at first: a drawn taxonomy; a public grid is there when ticked
            item.setFlags(item.flags() | Qt.ItemIsUserCheckable)
            item.setData(Qt.UserRole, has)
            state, had = before.get(a, (None, None))
            item.setCheckState(state if had == has else (Qt.Checked if has else Qt.Unchecked))
            item.setToolTip(
                "has a taxonomy"
                if a in p.taxonomies
                else grid or "no taxonomy: Mondrian only (numeric), or add one in the Taxonomy panel"
            )
            self.qi_list.addItem(item)
        current = self.sensitive_combo.currentText()
        self.sensitive_combo.clear()
        self.sensitive_combo.addItem(NONE)
        self.sensitive_combo.addItems([str(c) for c in p.columns])
        want = current if current not in ("", NONE) else (p.class_attribute or NONE)
        i = self.sensitive_combo.findText(want)
        self.sensitive_combo.setCurrentIndex(max(i, 0))
        current_t = self.t_sensitive_combo.currentText()
        self.t_sensitive_combo.clear()
        self.t_sensitive_combo.addItem(SAME_ATTRIBUTE)
        self.t_sensitive_combo.addItems([str(c) for c in p.columns])
        self.t_sensitive_combo.setCurrentIndex(max(self.t_sensitive_combo.findText(current_t), 0))
        if hasattr(self, "attack_attribute"):
            self._fill_attack_attributes()

    def set_qi(self, names) -> None:
        """Check exactly ``names`` among the quasi-identifiers."""
        for i in range(self.qi_list.count()):
            item = self.qi_list.item(i)
            item.setCheckState(Qt.Checked if item.text() in names else Qt.Unchecked)

    def settings(self) -> aj.AnonymizeSettings:
        qi = tuple(
            self.qi_list.item(i).text()
            for i in range(self.qi_list.count())
            if self.qi_list.item(i).checkState() == Qt.Checked
        )
        sensitive = self.sensitive_combo.currentText()
        sensitive = None if sensitive in ("", NONE) else sensitive
        lk, tk = self.l_kind.currentText(), self.t_kind.currentText()
        l_value = self.l_value.value() if lk == "entropy" else int(round(self.l_value.value()))
        t_attr = self.t_sensitive_combo.currentText()
        return aj.AnonymizeSettings(
            qi,
            self.k_spin.value(),
            self.algorithm_combo.currentText(),
            self.metric_combo.currentData(),
            round(self.suppression.value(), 6),
            sensitive,
            None if lk == OFF else (lk, l_value, self.c_value.value()),
            None if tk == OFF else (tk, self.t_value.value()),
            self.project.class_attribute if self.metric_combo.currentData() == "cm" else None,
            t_sensitive=None if t_attr in ("", SAME_ATTRIBUTE) else t_attr,
            missing_token=self.project.missing_token,
        )

    # -- running ----------------------------------------------------------------------------------------------
    def show_error(self, message: str) -> None:
        self.last_error = message
        win = host(self)
        if win is not None:
            win.show_error(message)
        self.error.setText(message)
        self.error.show()

    def clear_error(self) -> None:
        """Hide this panel's error, and the window's message bar while it still shows that same error."""
        win = host(self)
        if win is not None and self.last_error and win.message_label.text() == self.last_error:
            win.clear_message()
        self.last_error = ""
        self.error.hide()

    def _start(self, worker: Worker, title: str) -> Worker | None:
        win = host(self)
        if win is not None:
            return win.start_worker(worker, title)
        if self._runner is None:
            self._runner = TaskRunner(self)
        try:
            return self._runner.start(worker)
        except RuntimeError as exc:
            self.show_error(str(exc))
            return None

    def _inputs(self, done: QtCore.SignalInstance):
        """(frame, taxonomies, missing, settings) checked; on bad input: the message, ``done`` emitted, None."""
        try:
            frame = self.project.frame
            if frame is None and self.project.has_data:
                raise AnonymizeError(
                    "anonymization writes every record, generalised, so it needs the table in "
                    "memory; this file is read through DuckDB because it is large: open a "
                    "smaller extract for it (the DP algorithms run on the whole file)"
                )
            if frame is None:
                raise AnonymizeError("open data first (Data panel)")
            settings = self.settings()
            taxonomies = self.run_taxonomies(settings.qi)
            settings.check(frame, taxonomies)
        except AnonymizeError as exc:
            self.show_error(str(exc))
            done.emit()
            return None
        self.clear_error()
        return frame, taxonomies, self.project.missing, settings

    def run_taxonomies(self, qi) -> dict:
        """The drawn taxonomies, and a public grid over the bounds for a numeric quasi-identifier without one
        (``model.anonymize.public_grid``: a DP run needs only the bounds)."""
        from dpstudio.model.anonymize.public_grid import grid_taxonomies

        return {**grid_taxonomies(self.project, qi), **self.project.taxonomies}

    def run(self) -> Worker | None:
        """Run the settings in the worker; the result arrives in ``outcome`` (``finished`` is emitted)."""
        inputs = self._inputs(self.finished)
        if inputs is None:
            return None
        frame, taxonomies, missing, settings = inputs
        name = self.project.data_path.name if self.project.data_path is not None else "studio"
        worker = Worker(
            lambda: aj.run_with_progress(frame, taxonomies, settings, missing, name),
            name=f"anonymizing ({settings.algorithm})",
            pause_gc=True,
        )
        worker.signals.finished.connect(self._done)
        worker.signals.failed.connect(self._failed)
        worker.signals.cancelled.connect(self._cancelled)
        self._worker = worker
        self.run_button.setEnabled(False)
        started = self._start(worker, f"anonymizing ({settings.algorithm})")
        if started is None:
            self.run_button.setEnabled(True)
            self.finished.emit()
        return started

    def cancel(self) -> None:
        if self._worker is not None:
            self._worker.cancel()

    def _cancelled(self) -> None:
        self.run_button.setEnabled(True)
        self.finished.emit()

    def _failed(self, message: str) -> None:
        self.run_button.setEnabled(True)
        self.show_error(message)
        self.finished.emit()

    def _done(self, items) -> None:
        self.run_button.setEnabled(True)
        result = run_result(items)
        if result is not None:
            self.show_outcome(result)
        self.finished.emit()

    def show_outcome(self, out: aj.AnonymizeOutcome) -> None:
        self.outcome = out
        s = out.settings
        parts = [
            f"<b>{s.algorithm}</b>: {METRIC_WORDS[s.metric]} = {out.metric:,.6g}",
            f"{out.classes:,} equivalence classes",
            f"{out.suppressed:,} rows suppressed",
            f"{len(out.table):,} rows released",
        ]
        text = "; ".join(parts)
        if out.levels is not None:
            text += "<br>levels: " + ", ".join(f"{a} {v}" for a, v in zip(s.qi, out.levels))
        self.summary.setText(text)
        values, counts = out.size_histogram()
        self.size_bars.setOpts(
            x=values.astype(float),
            height=counts.astype(float),
            width=max(0.8, float(np.ptp(values)) / 80 if len(values) else 0.8),
        )
        self.size_plot.autoRange()
        self.table_model.set_frame(out.table)
        self.export_button.setEnabled(True)
        self.lattice.clear()
        if out.search is not None:
            status = {}
            for r in out.search.evaluated:
                status[r.levels] = SATISFYING if r.satisfies else FAILING
            for n in out.search.satisfying:
                status[n] = SATISFYING
            for n in out.search.minimal:
                status[n] = MINIMAL
            status[out.levels] = CHOSEN
            self.lattice.show_lattice(out.heights, status)
            self.node_info.setText("Click a node to see its levels and metric.")
            self.result_tabs.setCurrentIndex(0)
        else:
            self.node_info.setText("Mondrian recodes each class on its own (multidimensional): there is no lattice.")
            self.result_tabs.setCurrentIndex(1)

    def show_node(self, levels) -> None:
        """The details of one lattice node (evaluated here: one frequency set, exact)."""
        if self.outcome is None or self.outcome.search is None:
            return
        try:
            r = self.outcome.node(levels)
        except AnonymizeError as exc:
            self.show_error(str(exc))
            return
        s = self.outcome.settings
        state = self.lattice.status.get(tuple(levels), UNKNOWN)
        self.node_info.setText(
            f"<b>node {tuple(levels)}</b> ({state}): {'satisfies' if r.satisfies else 'does not satisfy'} the "
            f"model; {METRIC_WORDS[s.metric]} = {r.metric:,.6g}; {r.classes:,} classes; {r.suppressed:,} rows suppressed<br>"
            "levels: " + ", ".join(f"{a} {v}" for a, v in zip(s.qi, levels))
        )
        self.node_result = r

    # -- export -----------------------------------------------------------------------------------------------
    def export_to(self, path) -> bool:
        """Write the last outcome (atomic; refuses an existing file). Returns True when written."""
        if self.outcome is None:
            self.show_error("run an anonymization first")
            return False
        try:
            csv_path, json_path = aj.export(self.outcome, path)
        except (OutputPathError, OSError) as exc:
            self.show_error(user_message(exc))
            return False
        self.clear_error()
        win = host(self)
        if win is not None:
            win.show_info(f"wrote {csv_path.name} and {json_path.name} ({LABEL})")
        return True

    def _export_clicked(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self, "Export anonymized table", "anonymized.csv", "CSV (*.csv)"
        )
        if path:
            self.export_to(path)

    # -- teaching ---------------------------------------------------------------------------------------------
    def show_step(self, i: int) -> None:
        self.step = max(0, min(i, len(self.steps) - 1))
        st = self.steps[self.step]
        self.step_title.setText(st.title)
        self.step_text.setText(st.text)
        mark = QtGui.QBrush(QtGui.QColor("#ffd27f"))
        for r in range(self.sweeney.rowCount()):
            for c in range(self.sweeney.columnCount()):
                self.sweeney.item(r, c).setBackground(mark if r in st.rows else QtGui.QBrush())
        self.back_button.setEnabled(self.step > 0)
        self.next_button.setEnabled(self.step < len(self.steps) - 1)

    def run_contrast(self) -> Worker | None:
        """D against D minus one record with the Anonymize tab's settings, in the worker."""
        inputs = self._inputs(self.contrast_finished)
        if inputs is None:
            return None
        frame, taxonomies, missing, settings = inputs
        eps = self.contrast_eps.value()
        worker = Worker(
            lambda _progress: teach.neighbour_contrast(frame, taxonomies, settings, missing, eps),
            function=True,
            name="neighbour contrast",
        )
        worker.signals.finished.connect(self._contrast_done)
        worker.signals.failed.connect(lambda m: (self.show_error(m), self.contrast_finished.emit()))
        worker.signals.cancelled.connect(self.contrast_finished.emit)
        started = self._start(worker, "neighbour contrast")
        if started is None:
            self.contrast_finished.emit()
        return started

    def _fill_attack_attributes(self) -> None:
        """Every column that is not a quasi-identifier of the settings (the class attribute first)."""
        cols = [str(c) for c in self.project.columns] if self.project.has_data else []
        try:
            qi = set(self.settings().qi)
        except AnonymizeError:
            qi = set()
        cls = self.project.class_attribute
        names = ([cls] if cls in cols and cls not in qi else []) + [c for c in cols if c not in qi and c != cls]
        current = self.attack_attribute.currentText()
        self.attack_attribute.blockSignals(True)
        self.attack_attribute.clear()
        self.attack_attribute.addItems(names)
        if current in names:
            self.attack_attribute.setCurrentText(current)
        self.attack_attribute.blockSignals(False)

    def run_attacks(self) -> Worker | None:
        """Background knowledge and complementary releases on the loaded data, in the worker; the texts
        arrive in ``background_text`` and ``join_text`` (``attacks_finished`` is emitted)."""
        self._fill_attack_attributes()
        inputs = self._inputs(self.attacks_finished)
        if inputs is None:
            return None
        frame, taxonomies, missing, settings = inputs
        attribute = self.attack_attribute.currentText()
        if not attribute:
            self.show_error("choose a sensitive attribute that is not a quasi-identifier")
            self.attacks_finished.emit()
            return None

        def job(_progress):
            bk = teach.background_knowledge(frame, taxonomies, settings, attribute, missing)
            join = teach.complementary_join(frame, taxonomies, settings, missing) if len(settings.qi) > 1 else None
            return bk, join

        worker = Worker(job, function=True, name="attacks on the loaded data")
        worker.signals.finished.connect(self._attacks_done)
        worker.signals.failed.connect(lambda m: (self.show_error(m), self.attacks_finished.emit()))
        worker.signals.cancelled.connect(self.attacks_finished.emit)
        started = self._start(worker, "attacks on the loaded data")
        if started is None:
            self.attacks_finished.emit()
        return started

    def _attacks_done(self, result) -> None:
        self.attacks = result
        bk, join = result
        self.background_text.setText("Background knowledge. " + bk.words())
        self.join_text.setText(
            "Complementary releases. "
            + (join.words() if join is not None else "Choose at least two quasi-identifiers.")
        )
        self.attacks_finished.emit()

    def _contrast_done(self, c: teach.NeighbourContrast) -> None:
        self.contrast = c
        s = c.before.settings
        values = ", ".join(f"{a}={v}" for a, v in c.removed_values.items())
        lines = [
            f"Removed input row {c.removed + 1} ({values}), in the smallest released class "
            f"({c.count} rows). {s.algorithm} on D: {c.before.classes:,} classes; on D': "
            f"{c.after.classes:,} classes."
        ]
        if c.before.levels is not None:
            lines.append(f"Chosen levels {c.before.levels} on D, {c.after.levels} on D'.")
        lines.append(f"{len(c.changed)} class(es) changed, the same way on every run:")
        lines += [f"&nbsp;&nbsp;{lab}: {a} rows &rarr; {b} rows" for lab, a, b in c.changed[:6]]
        if len(c.changed) > 6:
            lines.append(f"&nbsp;&nbsp;... and {len(c.changed) - 6} more")
        lines.append(
            f"A DP count of that class (Laplace, epsilon = {c.epsilon:g}): the densities on D and D' "
            f"differ by a factor of at most {c.max_ratio:.4f} = e^{c.epsilon:g} anywhere: no output is "
            f"more than that much likelier with the record than without it."
        )
        self.contrast_text.setText("<br>".join(lines))
        self.contrast_plot.clear()
        self.contrast_plot.plot(c.grid, c.density_d, pen=pg.mkPen("#1f5fbf", width=2), name="D")
        self.contrast_plot.plot(
            c.grid,
            c.density_d_prime,
            pen=pg.mkPen("#e07000", width=2, style=Qt.DashLine),
            name="D' (one record removed)",
        )
        self.contrast_finished.emit()

    def shutdown(self) -> None:
        if self._runner is not None:
            self._runner.shutdown()
