"""Algorithm and budget: choose the algorithm and its parameters, set epsilon, drag its split, see the
expected (data-independent) error before anything runs, and start the run.

Public methods (for the demo driver and tests):
- ``set_algorithm(name)``: one of ``dpstudio.model.release.budget_plan.ALGORITHMS`` (e.g. "diffgen_consistency").
- ``set_param(key, value)``: one parameter (``steps``, ``score``, ``consistency``, ``bins``, ...).
- ``set_epsilon(x)``: the total budget (number or text); raises ValueError with the reason.
- ``set_split(shares)`` / ``split()``: the budget split as exact Fractions (always summing to epsilon).
- ``expected_figures()``: the data-independent error figures currently shown (``Figure`` list).
- ``accuracy_lines()``: the same split in words, "a count of about N is off by about plus or minus X (95 %)"
  per level and for the released leaves (``model.accuracy``; N is ``example_box``, the user's example).
- ``show_preview()``: teaching mode only, true and simulated noisy counts of a few cells.
- ``readiness()`` / ``checklist``: every problem before Run (``model.readiness``), each with a button
  that goes to the place to fix it (the window's ``go_to``); Run refuses with the same list.
- ``run()``: start the algorithm on the project's data through the window's worker (or the panel's
  own runner when it stands alone); returns the Worker or None (and shows why).
- ``refresh_budget()`` / ``budget_label``: the loaded dataset's lifetime budget in the persistent budget
  store ("this dataset (NAME): X of Y epsilon left", "no release yet on this data", or "not tracked:
  experiments only"), refreshed when data loads and after a run; near-duplicate and untracked warnings.
- ``apply_dataset_budget(name=None, total=None)``: name the dataset and/or set its lifetime total, after
  a confirmation that budgets add up (default No; asked through ``exec_dialog``).

The plan is written to the project as parameters (``budget_split``, ``count_epsilon``, ``level_epsilons``)
so the run and the exported report use exactly the split shown. Privacy: nothing here touches the data;
the figures depend on public inputs only.
"""

from __future__ import annotations

import math
from fractions import Fraction

from PySide6 import QtCore, QtWidgets

from dpstudio.algorithms import registry
from dpstudio.gui.pacing import PACING_DELAY_MS
from dpstudio.gui.panels import algorithm_layout, algorithm_run, host
from dpstudio.gui.panels.algorithm_layout import READINESS_FIELDS, SLIDER_STEPS, SPLIT_TITLE  # noqa: F401 (also imported from here)
from dpstudio.gui.panels.algorithm_run import NOT_READY, not_ready_line  # noqa: F401 (also imported from here)
from dpstudio.gui.widgets.yes_no import RELEASE_TITLE, ask_yes_no
from dpstudio.model.compare.accuracy import count_accuracy, simulated_preview
from dpstudio.model.numbers import figure_text
from dpstudio.model.project.epsilon_text import parse_epsilon_text, understood_text
from dpstudio.model.release import budget_plan as bp
from dpstudio.model.release.question import epsilon_caution
from dpstudio.model.release.readiness import readiness
from dpstudio.model.release.runs import default_bins

SLIDER_MIN, SLIDER_MAX = math.log10(0.01), math.log10(10.0)
LOCKED_SPLIT_TITLE = "Split of epsilon (chosen by the algorithm itself: it cannot be dragged)"


def slider_to_epsilon(pos: int) -> float:
    """Slider position -> epsilon on a log scale from 0.01 to 10, rounded to 3 significant digits."""
    x = 10 ** (SLIDER_MIN + (SLIDER_MAX - SLIDER_MIN) * pos / SLIDER_STEPS)
    return float(f"{x:.3g}")


def epsilon_to_slider(eps: float) -> int:
    v = (math.log10(max(min(eps, 10.0), 0.01)) - SLIDER_MIN) / (SLIDER_MAX - SLIDER_MIN)
    return int(round(v * SLIDER_STEPS))


class AlgorithmPanel(QtWidgets.QWidget):
    """See the module docstring."""

    planChanged = QtCore.Signal(object)  # BudgetPlan
    budgetChanged = QtCore.Signal()  # the project's ledger changed (maybe in the worker): refresh the label

    def __init__(self, project, parent=None):
        super().__init__(parent)
        algorithm_layout.build(self, project, parent)

    # -- public API ---------------------------------------------------------------------------------
    def detach(self) -> None:
        """Stop following the project (before the panel is thrown away)."""
        self.project.unsubscribe(self._on_project)
        self.project.unsubscribe(self._on_budget_field)
        self.project.unsubscribe(self._on_run_field)
        self.project.unsubscribe(self._on_readiness_field)

    def _on_readiness_field(self, _field) -> None:
        try:
            self.refresh_readiness()
        except RuntimeError:  # the panel was deleted without detach(): stop following
            self.project.unsubscribe(self._on_readiness_field)

    def readiness(self) -> list:
        """The checklist's problems now (``model.readiness.readiness`` with the epsilon box's text)."""
        return readiness(self.project, self.eps_edit.text())

    def refresh_readiness(self, *_) -> None:
        """Re-check the project and show every problem beside Run; a refusal beside Run for problems that are
        fixed since is taken back (or its count brought up to date)."""
        problems = algorithm_run.check_now(self)
        self.checklist.set_problems(problems)
        if self.eps_error.text().startswith(NOT_READY):
            self.eps_error.setText(not_ready_line(len(problems)) if problems else "")
        self._problems = len(problems)
        self._update_run_button()
        win = host(self)
        if not problems and win is not None and hasattr(win, "message_label"):
            if win.message_label.text().startswith("not ready to run"):  # Run's refusal no longer holds
                win.clear_message()

    def _update_run_button(self) -> None:
        """Run is on only while epsilon is valid and the checklist beside it is empty (it says what to fix)."""
        if not getattr(self, "_eps_valid", True):
            return  # _check_eps_text said why
        n = getattr(self, "_problems", 0)
        running = getattr(self, "_job_running", False)
        self._set_run_enabled(n == 0 and not running)
        if running:
            tip = "Run is off while a job runs (Cancel stops it)"
        elif n:
            tip = (
                f"Run is off until the {n} problem{'s' if n != 1 else ''} in \u201cBefore you run\u201d "
                f"{'are' if n != 1 else 'is'} fixed"
            )
        else:
            tip = "Run the algorithm on the loaded data (spends the budget in release mode)"
        self.run_button.setToolTip(tip)

    def _run_has_focus(self) -> bool:
        """Run has the keyboard focus, or gets it back when the window is active again (the release question
        just closed: Qt gives the focus back to its window a moment later, to Run, or once Run is off to the
        next box in the tab order)."""
        return self.run_button.hasFocus() or self.window().focusWidget() is self.run_button

    def set_job_running(self, running: bool, cancel=None) -> None:
        """Run is off while a job runs (a run, a load, a Monte-Carlo: a second job would be refused). Run
        turned off with the keyboard focus gives it to ``cancel`` (the window's Cancel button), and gets it
        back at the job's end if the focus is still there and this panel is shown."""
        self._job_running = running
        if running and cancel is not None and self._run_has_focus():
            cancel.setFocus(QtCore.Qt.OtherFocusReason)
        self._update_run_button()
        if (
            not running
            and cancel is not None
            and cancel.hasFocus()
            and self.run_button.isEnabled()
            and self.isVisible()
        ):
            self.run_button.setFocus(QtCore.Qt.OtherFocusReason)

    def _set_run_enabled(self, on: bool) -> None:
        """Run on or off. Turned off while it has the keyboard focus (the click of a release that spent the
        last of the budget), the focus goes to the checklist's first button (what to fix) or the epsilon box,
        not to what follows Run in the tab order: the dataset name box, where the next keys typed would
        rename the dataset."""
        if not on and self._run_has_focus():
            target = self.checklist.buttons[0] if self.checklist.buttons else self.eps_edit
            target.setFocus(QtCore.Qt.OtherFocusReason)
        self.run_button.setEnabled(on)

    def go_to_problem(self, problem) -> None:
        """Show the place where ``problem`` is fixed (the window switches panel and selects the control)."""
        win = host(self)
        if win is not None and hasattr(win, "go_to"):
            win.go_to(problem.place, problem.attribute)
        elif problem.place == "algorithm.epsilon":
            self.eps_edit.setFocus()

    def _on_budget_field(self, _field) -> None:
        try:
            self.budgetChanged.emit()  # queued: the release ledger is charged in the worker thread
        except RuntimeError:  # the panel was deleted without detach(): stop following
            self.project.unsubscribe(self._on_budget_field)

    def refresh_budget(self) -> None:
        """See ``algorithm_run.refresh_budget``."""
        return algorithm_run.refresh_budget(self)

    def _budget_later(self) -> None:
        """The ledger changed: refresh the budget line in a pass of its own (at a run's end it came in the pass
        that recorded the run), once for changes in a row."""
        algorithm_run.call_later(self, "_budget_timer", PACING_DELAY_MS, lambda: self.refresh_budget(), restart=False)

    def showEvent(self, event) -> None:  # the store may have changed (another project, the CLI)
        super().showEvent(event)
        self.refresh_budget()

    def _on_new_dataset(self, checked: bool) -> None:
        from dpstudio.model.project.project import ProjectError

        try:
            self.project.set_new_dataset(checked)
        except ProjectError as exc:
            self._refuse_budget(str(exc))

    def dataset_budget_question(self, info, name: str | None, total) -> str:
        """The confirmation asked before naming the dataset or setting its lifetime total."""
        from dpstudio.core.budget import fraction_text

        parts = []
        if name and name != info.name:
            parts.append(f"Name this dataset {name!r} (was {info.name!r}) in the budget store.")
        if total is not None:
            now = "not set yet" if info.total is None else fraction_text(info.total, True)
            parts.append(
                f"Set the lifetime budget of {name or info.name!r} to epsilon = {fraction_text(total, True)} "
                f"(now: {now}; spent so far: {fraction_text(info.spent, True)})."
            )
        parts.append(
            "Budgets add up: every release on these records, from any project or command, spends from "
            "this one lifetime budget, and releases on data that shares people with it (an edited copy, "
            "another extract) add to what is revealed about each of them. Raise the total only "
            "deliberately; what has been spent is never given back."
        )
        return "\n\n".join(parts)

    def apply_dataset_budget(self, name: str | None = None, total=None) -> bool:
        """See ``algorithm_run.apply_dataset_budget``."""
        return algorithm_run.apply_dataset_budget(self, name, total)

    def _refuse_budget(self, message: str) -> None:
        self._refuse(self.budget_warnings, message)

    def _refuse(self, label: QtWidgets.QLabel, message: str, short: str | None = None) -> None:
        """Say why something did not happen in ``label`` (``short`` when the details are listed elsewhere in
        the panel) and in the window; stay where we are."""
        self.last_error = message
        label.setText(short or message)
        win = host(self)
        if win is not None:
            win.show_error(message)

    def set_algorithm(self, name: str) -> None:
        if name not in registry.ALGORITHMS:
            raise ValueError(f"unknown algorithm {name!r}; choose one of {', '.join(registry.ALGORITHMS)}")
        self.combo.setCurrentIndex(self.combo.findData(name))

    def set_param(self, key: str, value) -> None:
        w = self.param_widgets.get(key)
        if w is None:
            raise KeyError(f"{self.algorithm} has no parameter {key!r}")
        if isinstance(w, QtWidgets.QSpinBox):
            w.setValue(int(value))
        elif isinstance(w, QtWidgets.QComboBox):
            i = w.findData(value)
            if i < 0:
                raise ValueError(f"{key} must be one of {[w.itemData(k) for k in range(w.count())]}")
            w.setCurrentIndex(i)
        elif isinstance(w, QtWidgets.QCheckBox):
            w.setChecked(bool(value))

    def set_epsilon(self, value) -> None:
        eps = parse_epsilon_text(value) if isinstance(value, str) else value
        self.project.set_epsilon(eps)

    @property
    def algorithm(self) -> str:
        return self.combo.currentData()

    def split(self) -> list[Fraction]:
        return list(self.plan.shares) if self.plan else []

    def set_split(self, shares) -> None:
        """Set the split (numbers; rescaled to sum exactly to epsilon)."""
        self.bar.set_segments(self.plan.names, shares, self.plan.epsilon, locked=self.plan.locked)

    def reset_split(self) -> None:
        """Back to the algorithm's default split (the one its engine runs): the project's
        ``reset_split``."""
        self.project.reset_split()
        self._show_plan()

    def is_default_split(self) -> bool:
        """True when the shown split is the algorithm's default (the shown split is always the project's
        ``plan()``, the one that runs: ``model.release.session.make_job`` passes it to the engine)."""
        return self.plan is None or self.project.is_default_split()

    def expected_figures(self) -> list[bp.Figure]:
        return list(self._figures)

    def params(self) -> dict:
        return {**registry.default_params(self.algorithm), **self._user_params()}

    # -- accuracy in words -----------------------------------------------------------------------------
    def _build_words_box(self) -> QtWidgets.QWidget:
        return algorithm_layout.build_words_box(self)

    def accuracy_lines(self) -> list:
        """The accuracy-in-words lines now shown (``model.accuracy.count_accuracy`` for the shown split)."""
        return count_accuracy(self.plan, self.example_box.value(), self.params()) if self.plan is not None else []

    def _refresh_words(self, *_) -> None:
        lines = self.accuracy_lines()
        if not lines:
            self.words_label.setText("(no noised counts)")
            return
        # the released counts first (what a reader of the release sees), then each level
        self.words_label.setText("<br>".join([f"<b>{lines[-1].text}</b>"] + [ln.text for ln in lines[:-1]]))

    def show_preview(self) -> list:
        """Teaching mode: fill the preview table (true and simulated noisy counts of a few cells); the rows,
        or [] with the reason shown. Never in release mode."""
        self.preview_table.setRowCount(0)
        try:
            rows = simulated_preview(self.project, self.plan)
        except ValueError as exc:
            self.preview_table.hide()
            self._refuse(self.eps_error, f"no preview: {exc}")
            return []
        self.preview_table.setRowCount(len(rows))
        for r, (cell, true, noisy) in enumerate(rows):
            for c, text in enumerate((cell, f"{true:,}", f"{noisy:,}")):
                self.preview_table.setItem(r, c, QtWidgets.QTableWidgetItem(text))
        self.preview_table.show()
        return rows

    # -- building -----------------------------------------------------------------------------------
    def _user_params(self) -> dict:
        out = {}
        w = self.param_widgets.get("attribute")
        if w is not None and w.currentData():
            out["attribute"] = w.currentData()
        for spec in registry.PARAMS[self.algorithm]:
            w = self.param_widgets.get(spec.key)
            if isinstance(w, QtWidgets.QSpinBox):
                out[spec.key] = w.value()
            elif isinstance(w, QtWidgets.QComboBox):
                out[spec.key] = w.currentData()
            elif isinstance(w, QtWidgets.QCheckBox):
                out[spec.key] = w.isChecked()
        return out

    def _numeric_qi_count(self) -> int | None:
        try:
            qis = self.project.attributes("quasi-identifier")
        except Exception:
            return None
        if not qis:
            return None
        return sum(1 for a in qis if self.project.types.get(a) == "numeric")

    def _histogram_attributes(self) -> list[str]:
        p = self.project
        return [c for c in getattr(p, "columns", []) if p.types.get(c) == "numeric" and c in p.bounds]

    def _follow_default_bins(self, new_file: bool) -> None:
        """The bins follow their default (from the attribute's public bounds) while the user has not chosen
        another number; a new file always starts from its own default (74 bins from the previous file's
        age bounds stayed on a file without bounds)."""
        bins = self.param_widgets.get("bins")
        attribute = self.param_widgets.get("attribute")
        if bins is None or attribute is None:
            return
        new = default_bins(self.project, attribute.currentData())
        if (new_file or bins.value() == self._bins_default) and bins.value() != new:
            bins.setValue(new)  # through _on_param: the plan and the project follow
        self._bins_default = new

    def _bins_from_project(self) -> int | None:
        n = (self.project.params or {}).get("bins")
        return int(n) if n else None

    def _build_param_widgets(self, values: dict) -> None:
        return algorithm_layout.build_param_widgets(self, values)

    def _load_from_project(self, rebuild_plan: bool) -> None:
        self._updating = True
        try:
            alg = self.project.algorithm if self.project.algorithm in registry.ALGORITHMS else "diffgen_consistency"
            self.combo.setCurrentIndex(self.combo.findData(alg))
            self._build_param_widgets(self.project.params or {})
            eps = float(self.project.epsilon)
            self.eps_edit.setText(understood_text(self.project.epsilon))
            self.eps_slider.setValue(epsilon_to_slider(eps))
        finally:
            self._updating = False
        self._update_mode_label()
        if rebuild_plan:
            self._rebuild_plan(saved=(self.project.params or {}).get("budget_split"))

    def _rebuild_plan(self, saved=None) -> None:
        """The parameters shown go to the project with ``saved`` (a split kept from before, used when it
        still fits); the bar then shows the project's plan, written out as explicit shares."""
        self._updating = True
        try:
            self.project.set_algorithm(self.algorithm, {**self.params(), "budget_split": saved})
            self.project.write_split()
        finally:
            self._updating = False
        self._show_plan()

    def _show_plan(self) -> None:
        """The bar, the figures and the notes show the project's plan (the split the next run uses)."""
        plan = self.plan = self.project.plan()
        self._updating = True
        try:
            self.bar.set_segments(plan.names, plan.shares, plan.epsilon, locked=plan.locked)
            self.split_box.setTitle(LOCKED_SPLIT_TITLE if plan.locked else SPLIT_TITLE)
        finally:
            self._updating = False
        self._refresh_figures()

    def _on_run_field(self, *_) -> None:
        """A run was recorded or cleared: its figures (from its ledger) beside the plan's, in a pass of their
        own (at a large run's end they took 7 ms of the pass that recorded it), once for changes in a row."""
        try:
            algorithm_run.call_later(self, "_figures_timer", PACING_DELAY_MS, self._refresh_run_figures, restart=False)
        except RuntimeError:  # the panel was deleted without detach(): stop following
            self.project.unsubscribe(self._on_run_field)

    def _refresh_run_figures(self) -> None:
        if getattr(self, "plan", None) is not None:
            self._refresh_figures()

    def _refresh_figures(self) -> None:
        from dpstudio.model.release.spent_figures import spent_figures

        self._figures = bp.expected_error(self.plan, self.params())
        result = getattr(self.project, "result", None)
        if result is not None and getattr(result.params, "algorithm", None) == registry.TABLE_PRESETS.get(
            self.algorithm
        ):
            # the last run's rows belong beside the plan of the algorithm that ran, not another one
            self._figures += spent_figures(result, getattr(self.project, "run_ledger", None))
        self.figures.setRowCount(len(self._figures))
        for r, f in enumerate(self._figures):
            val = figure_text(f.value)
            for c, text in enumerate((f.label, val, f.explanation)):
                item = QtWidgets.QTableWidgetItem(text)
                if c == 1:
                    item.setTextAlignment(QtCore.Qt.AlignRight | QtCore.Qt.AlignVCenter)
                self.figures.setItem(r, c, item)
        self._refresh_words()
        if not self.preview_table.isHidden():
            self.show_preview()  # the preview follows the split and epsilon too
        notes = list(self.plan.notes)
        custom = not self.is_default_split()
        if custom:
            notes.insert(0, "<b>custom split</b>: the run uses this split (the ledger will show these shares).")
        self.notes.setText(" ".join(notes))
        self.reset_button.setEnabled(custom)
        self.planChanged.emit(self.plan)

    def _update_mode_label(self) -> None:
        self.preview_button.setVisible(self.project.teaching)
        if not self.project.teaching:  # true counts are never shown in release mode
            self.preview_table.setRowCount(0)
            self.preview_table.hide()
        if self.project.teaching:
            self.mode_label.setText("teaching: not a release (simulation noise)")
            self.mode_label.setStyleSheet("color:#8a5a00;")
        else:
            self.mode_label.setText("release - secure noise; running spends the budget once")
            self.mode_label.setStyleSheet("color:#1b6b3a;")

    # -- slots --------------------------------------------------------------------------------------
    def _on_combo(self, _i) -> None:
        if self._updating:
            return
        self._build_param_widgets({})
        self._rebuild_plan()

    def _on_param(self, *_):
        if self._updating:
            return
        self._rebuild_plan()

    def _on_split(self, shares) -> None:
        if self._updating or self.plan is None:
            return
        self._updating = True
        try:
            self.project.set_split(shares)
        finally:
            self._updating = False
        self.plan = self.project.plan()
        self._refresh_figures()

    def _on_eps_edit(self) -> None:
        try:
            self.set_epsilon(self.eps_edit.text())
            self.eps_error.setText("")
        except ValueError as exc:
            self.eps_error.setText(str(exc))
            self.last_error = str(exc)
        self._check_eps_text()

    def _check_eps_text(self, *_) -> None:
        """Run is enabled only while the box holds a valid epsilon; the reason or the value read beside it."""
        text = self.eps_edit.text()
        try:
            eps = parse_epsilon_text(text)
        except ValueError as exc:
            self._eps_valid = False
            self._set_run_enabled(False)
            self.run_button.setToolTip(f"epsilon is not valid: {exc}")
            self.eps_understood.setText("")
            self.eps_error.setText(f"Run is off: {exc}")
            # the split and its figures are still the last valid epsilon's: greyed, and said so
            self.figures.setEnabled(False)
            self.figures.setToolTip(f"the figures of epsilon {understood_text(self.project.epsilon)}: {exc}")
            return
        self.figures.setEnabled(True)
        self.figures.setToolTip("")
        self._eps_valid = True
        self._update_run_button()
        shown = understood_text(eps)
        words = [] if text.strip() == shown else [f"understood as epsilon = {shown}"]
        caution = epsilon_caution(eps)
        self.eps_understood.setText("; ".join(words + ([f"Caution: {caution}"] if caution else [])))
        self.eps_understood.setStyleSheet("color:#b36b00;" if caution else "color:#616161;")
        if self.eps_error.text().startswith("Run is off"):
            self.eps_error.setText("")

    def _on_slider(self, pos: int) -> None:
        if self._updating:
            return
        try:
            self.project.set_epsilon(slider_to_epsilon(pos))
            self.eps_error.setText("")
        except ValueError as exc:
            self.eps_error.setText(str(exc))

    def _on_project(self, field: str) -> None:
        if field in ("data", "types"):  # the table or a column changed: a new standby engine process, later
            algorithm_run.keep_standby_later(self)
        if self._updating:
            return
        if field == "epsilon":
            self._updating = True
            try:
                self.eps_edit.setText(understood_text(self.project.epsilon))
                self.eps_slider.setValue(epsilon_to_slider(float(self.project.epsilon)))
            finally:
                self._updating = False
            self._show_plan()  # the project kept a custom split's proportions at the new total
        elif field == "mode":
            self._update_mode_label()
        elif field == "algorithm":
            if self.project.algorithm != self.algorithm:
                self._load_from_project(rebuild_plan=True)
        elif field in ("types", "data", "bounds") and "attribute" in self.param_widgets:
            w = self.param_widgets["attribute"]
            current = w.currentData()
            choices = self._histogram_attributes()
            if [w.itemData(i) for i in range(w.count())] != choices:
                self._updating = True
                try:
                    w.clear()
                    for c in choices:
                        w.addItem(c, c)
                    if not choices:
                        w.addItem("(no numeric attribute with public bounds)", None)
                    w.setCurrentIndex(max(0, w.findData(current)))
                finally:
                    self._updating = False
                self._rebuild_plan(saved=(self.project.params or {}).get("budget_split"))
            self._follow_default_bins(new_file=field == "data")
        if field == "data":
            self.eps_error.setText("")  # a refusal of the previous file's run does not describe this one
        if field in ("roles", "types", "data"):
            a_num = self._numeric_qi_count()
            w = self.param_widgets.get("numeric_attributes")
            if w is not None and a_num is not None and w.value() != a_num:
                w.setValue(a_num)

    # -- running ------------------------------------------------------------------------------------
    def confirm_release(self, facts) -> bool:
        """Ask before a release-mode run spends: the dataset, the epsilon, what remains afterwards, that it
        cannot be undone (``ReleaseConfirmation.text``). No is the default answer; True only for Yes."""
        return self._ask_yes_no("release_box", RELEASE_TITLE, facts.text())

    def _ask_yes_no(self, keep_as: str, title: str, text: str) -> bool:
        """A warning question with No as the default answer, shown through ``exec_dialog`` and kept in
        ``self.<keep_as>``; True only for Yes (``gui.widgets.yes_no``)."""
        return ask_yes_no(self, title, text, self.exec_dialog, keep_as)

    def _refuse_run(self, message: str) -> None:
        """A run that does not start: say why beside the button and in the window; stay where we are."""
        self._refuse(self.eps_error, message)

    def run(self, watch=None):
        """Start the chosen algorithm in a worker (``algorithm_run.run``)."""
        return algorithm_run.run(self, watch)
