"""``dpstudio gui --demo [--screenshots DIR]``: the whole studio workflow on the bundled Adult sample.

Steps (each one drives the real panels through their public methods, as a user's clicks would):

1. Data: open the bundled Adult sample (30,162 complete rows) with its public numeric bounds, class values
   and integer kinds (documented with UCI Adult); numeric attributes without public bounds are set to
   "ignore" (bounds are never read from the data).
2. Taxonomy: import the bundled Adult taxonomies (dpstudio/resources/taxonomies/adult); categorical
   quasi-identifiers without a taxonomy are set to "ignore".
3. Algorithm: DiffGen with consistency, h = 10, epsilon = 1, in teaching mode (seeded simulation noise).
4. Watch: the run's events replayed to the end.
5. Compare: the analytic/Monte-Carlo error comparison (a few Monte-Carlo runs, simulation noise).
6. Release: switch to release mode (secure noise), run once, spend the budget, export the release to a
   temporary folder (removed afterwards). The spend is charged to a throwaway budget store, never the
   user's (so the demo runs again and again).

With ``--screenshots DIR`` a PNG of the window showing each panel is saved in DIR. The demo prints one line
per step and exits 0 if every step worked, 1 otherwise (saying which step failed and why); a panel that is
not available yet is reported, and the steps that do not need it still run. Works offscreen
(QT_QPA_PLATFORM=offscreen).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from PySide6 import QtCore, QtWidgets

from dpstudio.model.project.project import CATEGORICAL, IGNORE, NUMERIC, QUASI_IDENTIFIER, RELEASE, TEACHING
from dpstudio.model.release.readiness import readiness

DEMO_ALGORITHM = "diffgen_consistency"
DEMO_STEPS = 10
DEMO_EPSILON = "1"
MONTE_CARLO_RUNS = 5
STEP_TIMEOUT = 300.0


class DemoStepError(RuntimeError):
    """A demo step could not be completed; the message says why."""


def bundled_taxonomy_folder() -> Path | None:
    """dpstudio/resources/taxonomies/adult if it is there."""
    try:
        from dpstudio.resources import resource

        return resource("taxonomies", "adult")
    except FileNotFoundError:
        return None


class Demo:
    """Runs the steps on one MainWindow; ``log`` collects the lines it prints."""

    def __init__(
        self,
        app: QtWidgets.QApplication,
        screenshots: str | Path | None = None,
        out=sys.stdout,
        steps: int = DEMO_STEPS,
        monte_carlo_runs: int = MONTE_CARLO_RUNS,
        size: tuple[int, int] = (1440, 900),
    ):
        from dpstudio.gui.main_window import MainWindow

        self.app = app
        self.out = out
        self.shots = Path(screenshots) if screenshots else None
        if self.shots is not None:
            self.shots.mkdir(parents=True, exist_ok=True)
        self._settings_dir = tempfile.TemporaryDirectory(prefix="dpstudio-demo-settings-")
        settings = QtCore.QSettings(str(Path(self._settings_dir.name) / "demo.ini"), QtCore.QSettings.IniFormat)
        self.window = MainWindow(settings=settings)  # the demo leaves the user's remembered layout alone
        # and the user's budget store: its release spends from a throwaway store (removed at the end)
        self.window.project.budget_store = str(Path(self._settings_dir.name) / "demo-budget.sqlite")
        self.window.resize(*size)
        self.window.show()
        self._old_hook = sys.excepthook
        from dpstudio.gui.excepthook import install_excepthook

        install_excepthook(self.window, self._escaped)
        self.steps = int(steps)
        self.monte_carlo_runs = int(monte_carlo_runs)
        self.log: list[str] = []
        self.failures: list[str] = []
        self.saved: list[Path] = []
        self.exported: list[Path] = []
        self._shot_no = 0

    def _escaped(self, message: str) -> None:
        """An exception escaped a Qt slot while the demo ran: it counts as a failure."""
        self.failures.append(message)
        self.say(f"[FAILED] {message}")

    # -- helpers -----------------------------------------------------------------------------------------
    def say(self, line: str) -> None:
        self.log.append(line)
        print(line, file=self.out, flush=True)

    def pump(self, seconds: float = 0.05) -> None:
        end = time.monotonic() + seconds
        while True:
            self.app.processEvents(QtCore.QEventLoop.AllEvents, 20)
            if time.monotonic() >= end:
                break
            time.sleep(0.005)

    def wait(self, worker, what: str, timeout: float = STEP_TIMEOUT) -> str:
        """Run the event loop until ``worker`` ends; raise DemoStepError unless it finished."""
        if worker is None:
            raise DemoStepError(f"{what} did not start: {self.window.last_error or 'no reason given'}")
        deadline = time.monotonic() + timeout
        while not worker.done.is_set():
            if time.monotonic() > deadline:
                worker.cancel()
                raise DemoStepError(f"{what} took longer than {timeout:.0f} s and was cancelled")
            self.app.processEvents(QtCore.QEventLoop.AllEvents, 50)
            time.sleep(0.005)
        self.pump(0.1)  # deliver the queued final signals
        if worker.outcome != "finished":
            raise DemoStepError(f"{what} {worker.outcome}: {self.window.last_error}")
        return worker.outcome

    def panel(self, title: str):
        from dpstudio.gui.main_window import UnavailablePanel

        widget = self.window.panels.get(title)
        if widget is None or isinstance(widget, UnavailablePanel):
            reason = self.window.panel_errors.get(title, "missing")
            raise DemoStepError(f"the {title} panel is not available ({reason})")
        return widget

    def shot(self, title: str, suffix: str = "") -> Path | None:
        self.window.show_panel(title)
        self.pump(0.3)
        if self.shots is None:
            return None
        self._shot_no += 1
        name = f"{self._shot_no:02d}_{title.lower()}{('_' + suffix) if suffix else ''}.png"
        path = self.shots / name
        if not self.window.grab().save(str(path)):
            raise DemoStepError(f"could not save the screenshot {path}")
        self.saved.append(path)
        return path

    def step(self, name: str, fn: Callable[[], str | None]) -> bool:
        t0 = time.monotonic()
        try:
            detail = fn() or ""
        except Exception as exc:  # every failure is reported, the demo goes on with the next step
            from dpstudio.gui.worker import user_message

            msg = str(exc) if isinstance(exc, DemoStepError) else user_message(exc)
            self.failures.append(f"{name}: {msg}")
            self.say(f"[FAILED] {name}: {msg}")
            return False
        self.say(f"[ok] {name} ({time.monotonic() - t0:.1f} s){': ' + detail if detail else ''}")
        return True

    # -- steps ---------------------------------------------------------------------------------------------
    def load_data(self) -> str:
        data = self.panel("Data")
        self.wait(data.open_sample(), "loading the bundled Adult sample")
        p = self.window.project
        if p.frame is None:
            raise DemoStepError(f"the sample did not load: {self.window.last_error}")
        ignored = []
        for c in p.columns:
            if p.roles.get(c) == QUASI_IDENTIFIER and p.types.get(c) == NUMERIC and c not in p.bounds:
                data.set_role(c, IGNORE)  # no public bounds: not used (never read bounds from the data)
                ignored.append(c)
        if p.classes is None:  # opening the sample declares its income classes (published in adult.names)
            raise DemoStepError("the sample's class values were not declared")
        self.shot("Data")
        note = f"; ignored (no public bounds): {', '.join(ignored)}" if ignored else ""
        return f"class {p.class_attribute} ({', '.join(p.classes)}), bounds for {', '.join(sorted(p.bounds))}{note}"

    def import_taxonomies(self) -> str:
        tax = self.panel("Taxonomy")
        folder = bundled_taxonomy_folder()
        if folder is None:
            raise DemoStepError("dpstudio/resources/taxonomies/adult is missing")
        done = tax.import_folder(folder)
        p = self.window.project
        ignored = []
        for a in p.attributes(QUASI_IDENTIFIER):
            if p.types.get(a) == CATEGORICAL and a not in p.taxonomies:
                p.set_role(a, IGNORE)
                ignored.append(a)
        problems = [x.text for x in readiness(p)]
        if problems:
            raise DemoStepError("; ".join(problems))
        first = p.attributes(QUASI_IDENTIFIER)[0]
        tax.select_attribute("workclass" if "workclass" in p.taxonomies else first)
        self.shot("Taxonomy")
        note = f"; ignored (no taxonomy): {', '.join(ignored)}" if ignored else ""
        return f"imported {', '.join(done)}{note}"

    def run_algorithm(self, mode: str) -> str:
        alg = self.panel("Algorithm")
        self.window.set_mode(mode)
        if self.window.project.mode != mode:
            raise DemoStepError(f"could not switch to {mode} mode: {self.window.last_error}")
        alg.set_algorithm(DEMO_ALGORITHM)
        alg.set_param("steps", self.steps)
        alg.set_epsilon(DEMO_EPSILON)
        if mode == TEACHING:
            self.shot("Algorithm")
        self.window.clear_message()
        alg.exec_dialog = self.answer_release_question
        self.wait(alg.run(), f"the {mode} run")
        p = self.window.project
        if p.result is None:
            raise DemoStepError(f"the run recorded no result: {self.window.last_error}")
        ledger = p.run_ledger
        return (
            f"{len(p.events):,} events, spent {float(ledger.spent):g} of {float(ledger.total):g}, "
            f"{type(p.result).__name__}"
        )

    def answer_release_question(self, box) -> None:
        """The release question (dataset, epsilon, what remains, cannot be undone): read out, answered Yes."""
        self.say("   asked: " + " ".join(box.text().split()))
        box.button(QtWidgets.QMessageBox.Yes).click()

    def watch_to_end(self, suffix: str = "") -> str:
        watch = self.panel("Watch")
        watch.seek_end()
        self.pump(0.2)
        self.shot("Watch", suffix)
        return f"position {watch.position} of {len(self.window.project.events)} events"

    def compare(self) -> str:
        cmp_panel = self.panel("Compare")
        cmp_panel.refresh()
        self.wait(cmp_panel.run_monte_carlo(runs=self.monte_carlo_runs, seed=0), "the Monte-Carlo comparison")
        self.shot("Compare")
        return f"{self.monte_carlo_runs} Monte-Carlo runs (simulation noise, not a release)"

    def export_release(self) -> str:
        export = self.panel("Export")
        folder = Path(tempfile.mkdtemp(prefix="dpstudio-demo-release-"))
        try:
            from dpstudio.model.project.provenance import describe

            for key in self.window.project.unconfirmed_inputs():  # types and class values read from the data
                wording = f"The {describe(key)} of UCI Adult is published in adult.names (public documentation)."
                self.say(f"   confirmed public: {wording}")
                export.confirm_input(key, wording)
            reason = export.refusal_reason() if hasattr(export, "refusal_reason") else ""
            if reason:
                raise DemoStepError(f"export refused: {reason}")
            paths = export.export_to(folder, "adult_release", confirm=False)
            self.exported = [Path(x) for x in paths]
            missing = [x for x in self.exported if not x.is_file()]
            if missing:
                raise DemoStepError(f"export reported files that are not there: {missing}")
            self.shot("Export")
            return f"wrote {', '.join(x.name for x in self.exported)} to a temporary folder (removed)"
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def run(self) -> int:
        self.say("dpstudio demo: the whole workflow on the bundled Adult sample")
        ok_data = self.step("1. Data: open the bundled Adult sample", self.load_data)
        ok_tax = ok_data and self.step("2. Taxonomy: import the Adult taxonomies", self.import_taxonomies)
        ok_run = ok_tax and self.step(
            f"3. Algorithm: DiffGen with consistency (h = {self.steps}), teaching mode",
            lambda: self.run_algorithm(TEACHING),
        )
        if ok_run:
            self.step("4. Watch: replay the run to the end", self.watch_to_end)
            self.step("5. Compare: error by query size", self.compare)
        ok_rel = ok_tax and self.step("6. Release mode: one run with secure noise", lambda: self.run_algorithm(RELEASE))
        if ok_rel:
            self.step("   Watch (release run)", lambda: self.watch_to_end("release"))
            self.step("7. Export the release to a temporary folder", self.export_release)
        if self.shots is not None:
            self.say(f"screenshots: {len(self.saved)} PNG files in {self.shots}")
        if self.failures:
            self.say(f"demo finished with {len(self.failures)} failed step(s)")
        else:
            self.say("demo finished: every step worked")
        return 1 if self.failures else 0

    def close(self) -> None:
        self.window.project.set_dirty(False)  # the demo's project is not the user's work
        self.window.close()
        self.window.runner.shutdown()
        sys.excepthook = self._old_hook
        self._settings_dir.cleanup()


def run_demo(app: QtWidgets.QApplication, screenshots: str | Path | None = None, out=sys.stdout, **options) -> int:
    """Run the demo (``options``: ``steps``, ``monte_carlo_runs``, ``size``); 0 if every step worked, else 1."""
    demo = Demo(app, screenshots, out, **options)
    try:
        return demo.run()
    finally:
        demo.close()
