"""The studio's main window: panels in tabs, the mode switch and banner, the worker's progress and Cancel.

The window owns one ``Project`` (Qt-free state) and one ``TaskRunner`` (a one-thread pool): panels get the
project, and run long work through ``start_worker``. Errors from anywhere end in ``show_error``: a red
message bar at the top of the window, never a traceback. The window's layout is remembered (QSettings)
and closing with unsaved changes asks first.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from dpstudio.gui.accessibility import name_control, name_controls
from dpstudio.gui.panels import PANELS
from dpstudio.gui.widgets.elided_label import ElidedLabel
from dpstudio.gui.worker import TaskRunner, Worker, user_message
from dpstudio.model.project.project import FILE_SUFFIX, RELEASE, TEACHING, Project, ProjectError

Qt = QtCore.Qt

TEACHING_STYLE = "background:#ffb74d; color:#3e2200; font-weight:bold; padding:6px;"
RELEASE_STYLE = "background:#2e7d32; color:white; font-weight:bold; padding:6px;"
ERROR_STYLE = "background:#c62828; color:white; padding:1px 6px;"
INFO_STYLE = "background:#e3f2fd; color:#0d47a1; padding:1px 6px;"
#: a change to any of these inputs clears the window's error: it described the inputs before the change
#: (a budget refusal after a switch to teaching mode, "no taxonomy" after one was made)
STALE_ERROR_FIELDS = ("mode", "epsilon", "algorithm", "roles", "types", "bounds", "classes", "taxonomies", "missing")


def teaching_text(project: Project) -> str:
    return (
        f"TEACHING: NOT A RELEASE \u2014 simulation noise (seed {project.seed}); true counts may be shown; "
        "re-run freely; nothing can be exported as a release"
    )


def release_text(project: Project) -> str:
    return (
        f"RELEASE MODE \u2014 secure noise (OpenDP); a release's \u03b5 (table: {float(project.epsilon):g}; stream: "
        "its own) is spent once, in the ledger, before anything noisy is shown"
    )


class UnavailablePanel(QtWidgets.QLabel):
    """Placeholder for a panel whose module has not been written yet."""

    def __init__(self, title: str, reason: str, parent=None):
        super().__init__(f"The {title} panel is not available yet ({reason}).", parent)
        self.setAlignment(Qt.AlignCenter)
        self.setObjectName(f"unavailable-{title.lower()}")


#: how long closing waits for a cancelled job to stop before the process ends without it
CLOSE_WAIT_MS = 2000


class MainWindow(QtWidgets.QMainWindow):
    """See the module docstring. ``panels`` maps tab title -> panel widget."""

    def __init__(self, project: Project | None = None, parent=None, settings: QtCore.QSettings | None = None):
        super().__init__(parent)
        self.project = project or Project()
        self.settings = settings or QtCore.QSettings()
        self.runner = TaskRunner(self)
        self.runner.busy_changed.connect(self._on_busy)
        self.last_error: str = ""
        self.setObjectName("MainWindow")
        self.setAcceptDrops(True)
        self.resize(1280, 820)
        screen = QtGui.QGuiApplication.primaryScreen()
        if screen is not None:  # never taller than the screen: a 1280x800 one must show the status line
            self.resize(self.width(), min(self.height(), screen.availableGeometry().height()))

        central = QtWidgets.QWidget()
        layout = QtWidgets.QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.banner = QtWidgets.QLabel()
        self.banner.setObjectName("modeBanner")
        self.banner.setWordWrap(True)
        layout.addWidget(self.banner)
        # messages: one line in the status bar, at the bottom, so that no message resizes or moves the panels
        # (a long one is drawn cut with an ellipsis, all of it in the tooltip)
        self.message_is_error = False  # the message shown is an error (cleared when the inputs change)
        self.message_bar = QtWidgets.QWidget()
        mlay = QtWidgets.QHBoxLayout(self.message_bar)
        mlay.setContentsMargins(4, 0, 0, 0)
        self.message_label = ElidedLabel()
        self.message_label.setAccessibleName("Message")
        # a message refuses, advises or explains: one that does not fit is read in full on a click, not hovered
        self.message_more = QtWidgets.QToolButton()
        self.message_more.setText("Read all")
        self.message_more.setAccessibleName("Read the whole message")
        self.message_more.clicked.connect(self.show_whole_message)
        self.message_label.read_all = self.message_more  # the layout check: this label is read in full on a click
        policy = self.message_more.sizePolicy()
        policy.setRetainSizeWhenHidden(True)  # showing it moves nothing
        self.message_more.setSizePolicy(policy)
        self.message_close = QtWidgets.QToolButton()
        self.message_close.setText("\u2715")
        self.message_close.setToolTip("Dismiss")
        self.message_close.clicked.connect(self.clear_message)
        mlay.addWidget(self.message_label, 1)
        mlay.addWidget(self.message_more)
        mlay.addWidget(self.message_close)
        self.message_bar.hide()
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.setDocumentMode(True)
        layout.addWidget(self.tabs, 1)
        self.setCentralWidget(central)

        self.panels: dict[str, QtWidgets.QWidget] = {}
        self.panel_errors: dict[str, str] = {}
        was_dirty = self.project.dirty
        for title, (module, cls) in PANELS.items():
            widget = self._make_panel(title, module, cls)
            self.panels[title] = widget
            self.tabs.addTab(widget, title)
        if not was_dirty:  # panels writing their defaults into the project is not a user's change
            self.project.set_dirty(False)

        self.release_exported = False  # the last release run was written to files
        exported = getattr(self.panels.get("Export"), "exported", None)
        if exported is not None and hasattr(exported, "connect"):
            exported.connect(lambda *_: setattr(self, "release_exported", True))
        self.project.subscribe(lambda _f: setattr(self, "release_exported", False), "run")

        self._build_status_bar()
        self._build_actions()
        self.project.subscribe(self._on_project_changed, "dirty", "path", "data", *STALE_ERROR_FIELDS)
        self._update_banner()
        self._update_title()
        self.restore_layout()
        name_controls(self)  # accessible names; controls built later get theirs when their panel is shown
        self.tabs.currentChanged.connect(lambda _i: name_controls(self.tabs.currentWidget()))
        QtWidgets.QApplication.instance().focusChanged.connect(self._name_focused)

    # -- construction -------------------------------------------------------------------------------------
    def _make_panel(self, title: str, module: str, cls: str) -> QtWidgets.QWidget:
        try:
            mod = importlib.import_module(f"dpstudio.gui.panels.{module}")
            panel_cls = getattr(mod, cls)
        except ModuleNotFoundError as exc:
            if exc.name != f"dpstudio.gui.panels.{module}":
                reason = f"it needs {exc.name}, which is missing"
            else:
                reason = "not written yet"
            self.panel_errors[title] = reason
            return UnavailablePanel(title, reason)
        except Exception as exc:  # a broken panel must not take the window down
            self.panel_errors[title] = user_message(exc)
            return UnavailablePanel(title, user_message(exc))
        try:
            widget = panel_cls(self.project, parent=None)
        except Exception as exc:
            self.panel_errors[title] = user_message(exc)
            return UnavailablePanel(title, f"it failed to start: {user_message(exc)}")
        widget.setObjectName(f"panel-{title.lower()}")
        return widget

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self._job_status: set[str] = set()  # what the running job wrote there (cleared when it ends)
        self.status_label = ElidedLabel()
        self.progress = QtWidgets.QProgressBar()
        self.progress.setMaximumWidth(260)
        self.progress.setMinimumWidth(200)  # its words on one line ("Monte-Carlo error bands" was cut in two)
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.cancel_button = QtWidgets.QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop the running job (Esc)")
        self.cancel_button.clicked.connect(self.cancel_work)
        self.cancel_button.hide()
        bar.addWidget(self.message_bar, 1)
        self.message_close.setAutoRaise(True)
        # the bar is as tall with a message as without: showing or dismissing one moves nothing
        bar.setFixedHeight(max(bar.sizeHint().height(), self.message_bar.sizeHint().height() + 6))
        bar.addWidget(self.status_label, 1)
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.cancel_button)

    def _action(self, text: str, slot, shortcut=None, tip: str = "") -> QtGui.QAction:
        act = QtGui.QAction(text, self)
        if shortcut is not None:
            act.setShortcut(QtGui.QKeySequence(shortcut))
            act.setShortcutContext(Qt.WindowShortcut)
        if tip:
            act.setToolTip(f"{tip} ({act.shortcut().toString()})" if shortcut is not None else tip)
            act.setStatusTip(tip)
        act.triggered.connect(slot)
        self.addAction(act)
        return act

    def _build_actions(self) -> None:
        self.act_new = self._action(
            "New project", self.new_project, QtGui.QKeySequence.New, "Start a new, empty project"
        )
        self.act_open_data = self._action(
            "Open data\u2026", self.open_data_dialog, QtGui.QKeySequence.Open, "Open a CSV file"
        )
        self.act_open_sample = self._action("Adult sample", self.open_sample, None, "Open the bundled Adult sample")
        self.act_open_project = self._action(
            "Open project\u2026", self.open_project_dialog, "Ctrl+Shift+O", "Open a .dpstudio project"
        )
        self.act_save = self._action(
            "Save project", self.save_project, QtGui.QKeySequence.Save, "Save the project (not the data)"
        )
        self.act_save_as = self._action(
            "Save project as\u2026", self.save_project_as, "Ctrl+Shift+S", "Save the project under a new name"
        )
        self.act_quit = self._action("Quit", self.close, QtGui.QKeySequence.Quit, "Close the window")
        self.act_cancel = self._action("Cancel job", self.cancel_work, "Esc", "Stop the running job")
        self.act_toggle_mode = self._action(
            "Switch mode", self.toggle_mode, "Ctrl+M", "Switch between teaching and release mode"
        )
        self.tab_actions = []
        for i in range(self.tabs.count()):
            act = self._action(
                f"Show {self.tabs.tabText(i)}", lambda _=False, i=i: self.tabs.setCurrentIndex(i), f"Ctrl+{i + 1}"
            )
            self.tab_actions.append(act)

        menu = self.menuBar().addMenu("&File")
        for act in (
            self.act_new,
            None,
            self.act_open_data,
            self.act_open_sample,
            None,
            self.act_open_project,
            self.act_save,
            self.act_save_as,
            None,
            self.act_quit,
        ):
            menu.addSeparator() if act is None else menu.addAction(act)
        view = self.menuBar().addMenu("&View")
        for act in self.tab_actions:
            view.addAction(act)
        self._build_help_menu()

        tb = QtWidgets.QToolBar("Main")
        tb.setObjectName("mainToolbar")
        tb.setToolButtonStyle(Qt.ToolButtonTextOnly)
        tb.addAction(self.act_open_data)
        tb.addAction(self.act_open_sample)
        tb.addAction(self.act_open_project)
        tb.addAction(self.act_save)
        tb.addSeparator()
        tb.addWidget(QtWidgets.QLabel(" Mode: "))
        self.mode_group = QtGui.QActionGroup(self)
        self.act_teaching = QtGui.QAction("Teaching", self, checkable=True)
        self.act_teaching.setToolTip("Seeded simulation noise; true counts may be shown; cannot export a release")
        self.act_release = QtGui.QAction("Release", self, checkable=True)
        self.act_release.setToolTip("Secure noise; the budget is spent once; can export")
        for act in (self.act_teaching, self.act_release):
            self.mode_group.addAction(act)
            tb.addAction(act)
        self.seed_label = QtWidgets.QLabel("  seed ")
        self.seed_box = QtWidgets.QSpinBox()
        self.seed_box.setRange(0, 2**31 - 1)
        self.seed_box.setValue(self.project.seed)
        self.seed_box.setToolTip("Seed of the teaching mode's simulation noise (the same seed gives the same run)")
        self.seed_box.valueChanged.connect(self.project.set_seed)
        tb.addWidget(self.seed_label)
        tb.addWidget(self.seed_box)
        self.act_teaching.triggered.connect(lambda: self.set_mode(TEACHING))
        self.act_release.triggered.connect(lambda: self.set_mode(RELEASE))
        self.addToolBar(Qt.TopToolBarArea, tb)
        self.toolbar = tb

    def _name_focused(self, _old, new) -> None:
        """A control built while its panel was shown is named at the latest when it gets the focus. The focus
        can land on a widget that is being deleted (a file dialog's own line edit): it needs no name."""
        import shiboken6

        if new is None or not shiboken6.isValid(new):
            return
        try:
            name_control(new)
        except RuntimeError:  # deleted while we read its label
            pass

    def _build_help_menu(self) -> None:
        from dpstudio.gui.help import doc_files, doc_title

        self.help_window = None
        menu = self.menuBar().addMenu("&Help")
        self.act_guide = self._action(
            "Getting started",
            self.show_guide,
            QtGui.QKeySequence.HelpContents,
            "The workflow, what epsilon means, teaching and release mode",
        )
        menu.addAction(self.act_guide)
        docs = menu.addMenu("Documentation")
        self.doc_actions = []
        for path in doc_files():
            act = self._action(
                doc_title(path),
                lambda _=False, p=path: self.show_doc(p),
                None,
                f"Show {path.name} (from the docs folder, no network)",
            )
            docs.addAction(act)
            self.doc_actions.append(act)
        docs.setEnabled(bool(self.doc_actions))
        self.help_menu = menu

    def _help(self):
        from dpstudio.gui.help import HelpWindow

        if self.help_window is None:
            self.help_window = HelpWindow(self)
        self.help_window.show()
        self.help_window.raise_()
        return self.help_window

    def show_guide(self):
        """The Help menu's short guide, in a window beside the studio."""
        win = self._help()
        win.show_guide()
        name_controls(win)
        return win

    def show_doc(self, path):
        """One of docs/*.md, in the help window."""
        win = self._help()
        win.show_doc(Path(path))
        return win

    # -- public API for panels ------------------------------------------------------------------------------
    def start_worker(self, worker: Worker, title: str = "", later: bool = False) -> Worker | None:
        """Run ``worker`` with the progress bar and Cancel; returns None (and says why) if a job is running.
        With ``later`` its thread starts in a later pass of the event loop (``TaskRunner.start``).

        The window's slots are connected before the thread starts: a job that fails at once still shows
        its message (a signal emitted before a connection exists reaches nobody)."""
        connections = [
            (worker.signals.progress, self._on_progress),
            (worker.signals.failed, self.show_error),
            (worker.signals.cancelled, lambda: self.show_info(f"{title or worker.name}: cancelled")),
        ]
        for signal, slot in connections:
            signal.connect(slot)
        try:
            self.runner.start(worker, later=later)
        except RuntimeError as exc:
            for signal, slot in connections:
                signal.disconnect(slot)
            self.show_error(str(exc))
            return None
        self.progress.setRange(0, 0)
        self.progress.setFormat(title or worker.name)
        if self.message_bar.isVisible() and not self.message_is_error:
            self.clear_message()  # an earlier note would hide the job's words (which pass of a large file)
        self._set_job_status(title or worker.name)
        return worker

    def _show_message(self, message: str, style: str, label_style: str, status: str) -> None:
        self.message_is_error = style == ERROR_STYLE
        self.message_label.setText(message)
        self.message_bar.setStyleSheet(style)
        self.message_label.setStyleSheet(label_style)
        self.message_bar.show()
        self.status_label.setText(status)
        self.status_label.hide()  # the message says it; the job's words come back when it is dismissed
        QtCore.QTimer.singleShot(0, self._update_message_more)  # once laid out: is the message cut?

    def changeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().changeEvent(event)
        if event.type() == QtCore.QEvent.ActivationChange and self.isActiveWindow():
            # the budget store may have been charged while the window was in the background (a re-run
            # script, a command on the same data): show what it holds now
            algorithm = self.panels.get("Algorithm")
            if algorithm is not None and hasattr(algorithm, "refresh_budget"):
                algorithm.refresh_budget()

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._update_message_more()

    def _update_message_more(self) -> None:
        self.message_more.setVisible(self.message_bar.isVisible() and self.message_label.is_elided())

    def show_whole_message(self) -> None:
        """The message bar's text in full, wrapped, in a dialog (for a message cut to one line)."""
        box = QtWidgets.QMessageBox(self)
        box.setIcon(QtWidgets.QMessageBox.Warning if self.message_is_error else QtWidgets.QMessageBox.Information)
        box.setWindowTitle("Message")
        box.setText(self.message_label.text())
        box.setTextInteractionFlags(QtCore.Qt.TextSelectableByMouse)
        self.message_box = box
        box.open()

    def show_error(self, message: str) -> None:
        self.last_error = message
        self._show_message(message, ERROR_STYLE, "color:white;", "error: " + message)

    def show_info(self, message: str) -> None:
        self._show_message(message, INFO_STYLE, "", message)

    def clear_message(self) -> None:
        """Dismiss the message bar (and the same words in the status bar)."""
        shown = self.message_label.text()
        self.message_is_error = False
        self.message_bar.hide()
        self.message_label.clear()
        self.message_more.hide()
        self.status_label.show()
        if shown and self.status_label.text() in (shown, "error: " + shown):
            self.status_label.clear()

    def panel(self, title: str) -> QtWidgets.QWidget:
        return self.panels[title]

    def show_panel(self, title: str) -> QtWidgets.QWidget:
        widget = self.panels[title]
        self.tabs.setCurrentWidget(widget)
        return widget

    def go_to(self, place: str, attribute: str | None = None) -> QtWidgets.QWidget | None:
        """Show where a readiness problem is fixed (``model.readiness.PLACES``): switch panel, select the
        attribute (or the input to confirm) and focus the control. Returns the focused control, if any."""
        from dpstudio.model.release.readiness import PLACES

        panel = self.show_panel(PLACES[place][0])
        if attribute is not None and place.startswith(("data.", "taxonomy")) and hasattr(panel, "select_attribute"):
            try:
                panel.select_attribute(attribute)
            except KeyError:
                pass
        if place == "export.inputs" and hasattr(panel, "inputs_list"):
            for i in range(panel.inputs_list.count()):
                if panel.inputs_list.item(i).data(Qt.UserRole) == attribute:
                    panel.inputs_list.setCurrentRow(i)
        control = {
            "data.role": "role_combo",
            "data.type": "type_combo",
            "data.types": "types_button",
            "data.bounds": "lo_edit",
            "data.classes": "classes_edit",
            "export.inputs": "confirm_button",
            "algorithm.epsilon": "eps_edit",
            "algorithm.budget": "dataset_total_edit",
            "taxonomy": "attr_list",
        }.get(place)
        widget = getattr(panel, control, None) if control else None
        if place == "algorithm.steps":
            widget = getattr(panel, "param_widgets", {}).get("steps")
        if place == "data.open":
            widget = next((w for w in panel.findChildren(QtWidgets.QPushButton) if "sample" in w.text().lower()), None)
        if widget is not None:
            widget.setFocus(Qt.OtherFocusReason)
        return widget

    # -- work -----------------------------------------------------------------------------------------------
    def _on_busy(self, busy: bool) -> None:
        """The progress bar and Cancel while a job runs; Run off meanwhile. A keyboard focus on Cancel at the
        job's end goes back to Run when Run is shown, else to the panels' tabs (not to wherever Qt puts it
        when Cancel hides: a spin box of the Watch)."""
        if busy:  # Cancel shown first: Run's focus goes to it
            self.progress.setVisible(True)
            self.cancel_button.setVisible(True)
        algorithm = self.panels.get("Algorithm") if hasattr(self, "panels") else None
        if algorithm is not None:
            algorithm.set_job_running(busy, cancel=self.cancel_button)
        if busy:
            return
        if self.cancel_button.hasFocus():
            self.tabs.tabBar().setFocus(QtCore.Qt.OtherFocusReason)
        self.progress.setVisible(False)
        self.cancel_button.setVisible(False)
        self.progress.setRange(0, 1)
        self.progress.setValue(1)
        if self.status_label.text() in self._job_status:  # the job's own words are stale now
            self.status_label.clear()
        self._job_status = set()

    def _on_progress(self, done: int, total: int, message: str) -> None:
        if total > 0:
            self.progress.setRange(0, total)
            self.progress.setValue(min(done, total))
        else:
            self.progress.setRange(0, 0)
        if message:
            self._set_job_status(message)

    def _set_job_status(self, text: str) -> None:
        self._job_status.add(text)
        self.status_label.setText(text)

    def cancel_work(self) -> None:
        if self.runner.busy:
            self.runner.cancel()
            self._set_job_status("cancelling\u2026")

    # -- data ------------------------------------------------------------------------------------------------
    def open_data_dialog(self) -> None:
        data_panel = self.panels.get("Data")
        if hasattr(data_panel, "open_dialog"):
            self.show_panel("Data")
            data_panel.open_dialog()

    def open_data(self, path) -> None:
        data_panel = self.panels.get("Data")
        if hasattr(data_panel, "open_file"):
            self.show_panel("Data")
            data_panel.open_file(path)

    def open_sample(self) -> None:
        data_panel = self.panels.get("Data")
        if hasattr(data_panel, "open_sample"):
            self.show_panel("Data")
            data_panel.open_sample()

    def dragEnterEvent(self, event: QtGui.QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QtGui.QDropEvent) -> None:
        urls = [u for u in event.mimeData().urls() if u.isLocalFile()]
        if not urls:
            return
        path = Path(urls[0].toLocalFile())
        event.acceptProposedAction()
        if path.suffix == FILE_SUFFIX:
            self.open_project(path)
        else:
            self.open_data(path)

    # -- mode -----------------------------------------------------------------------------------------------
    def set_mode(self, mode: str) -> None:
        if self.runner.busy:
            self.show_error("a job is running: cancel it before switching mode")
            self._update_banner()
            return
        try:
            self.project.set_mode(mode)
        except ProjectError as exc:
            self.show_error(str(exc))
        self._update_banner()

    def toggle_mode(self) -> None:
        self.set_mode(RELEASE if self.project.mode == TEACHING else TEACHING)

    def _update_banner(self) -> None:
        teaching = self.project.mode == TEACHING
        self.banner.setText(teaching_text(self.project) if teaching else release_text(self.project))
        self.banner.setStyleSheet(TEACHING_STYLE if teaching else RELEASE_STYLE)
        self.act_teaching.setChecked(teaching) if hasattr(self, "act_teaching") else None
        self.act_release.setChecked(not teaching) if hasattr(self, "act_release") else None
        if hasattr(self, "seed_box"):
            self.seed_box.setEnabled(teaching)
            if self.seed_box.value() != self.project.seed:
                self.seed_box.blockSignals(True)
                self.seed_box.setValue(self.project.seed)
                self.seed_box.blockSignals(False)

    def _on_project_changed(self, field: str) -> None:
        if field in ("mode", "epsilon"):
            self._update_banner()
        else:
            self._update_title()
        if field == "data":
            self.clear_message()  # the previous file's messages do not describe this one
        elif field in STALE_ERROR_FIELDS and self.message_is_error:
            self.clear_message()  # an error about the inputs before this change may no longer hold

    def _update_title(self) -> None:
        name = self.project.path.name if self.project.path else "untitled"
        data = f" \u2014 {self.project.data_path.name}" if self.project.data_path else ""
        title = f"{name}[*]{data}"
        if "dpstudio" not in QtWidgets.QApplication.applicationDisplayName():  # else Qt adds it once itself
            title = f"dpstudio \u2014 {title}"
        self.setWindowTitle(title)
        self.setWindowModified(self.project.dirty)

    # -- project files ----------------------------------------------------------------------------------------
    def _last_dir(self) -> str:
        return str(self.settings.value("last_dir", str(Path.home())))

    def save_project(self) -> bool:
        if self.project.path is None:
            return self.save_project_as()
        return self._save_to(self.project.path)

    def save_project_as(self) -> bool:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self, "Save project", self._last_dir(), f"dpstudio project (*{FILE_SUFFIX})"
        )
        if not path:
            return False
        return self._save_to(Path(path))

    def _save_to(self, path: Path) -> bool:
        try:
            saved = self.project.save(path)
        except (OSError, ValueError) as exc:
            self.show_error(f"could not save the project: {user_message(exc)}")
            return False
        self.settings.setValue("last_dir", str(saved.parent))
        self.show_info(f"project saved to {saved} (the data file itself is not copied into it)")
        return True

    def open_project_dialog(self) -> None:
        if not self.maybe_save():
            return
        path, _ = QtWidgets.QFileDialog.getOpenFileName(
            self, "Open project", self._last_dir(), f"dpstudio project (*{FILE_SUFFIX});;All files (*)"
        )
        if path:
            self.open_project(Path(path))

    def open_project(self, path) -> Worker | None:
        """Read a project file, load its data file in the worker, then restore the state."""
        path = Path(path)
        try:
            saved = Project.read_file(path)
        except ProjectError as exc:
            self.show_error(str(exc))
            return None
        data_path = self.project.resolve_data_path(saved, path)

        encoding = Project.saved_encoding(saved)

        def apply(dataset, data_path=data_path):
            try:
                warnings = self.project.apply_dict(
                    saved, dataset, data_path if dataset is not None else None, project_path=path
                )
            except (ProjectError, ValueError) as exc:
                self.show_error(f"{path}: {exc}")
                return
            self.settings.setValue("last_dir", str(path.parent))
            if warnings:
                self.show_error("; ".join(warnings))
            else:
                self.show_info(f"opened project {path.name}")
            self._update_banner()
            self._update_title()

        if data_path is None or not data_path.is_file():
            apply(None)
            return None
        from dpstudio.model.project.data import load_dataset

        worker = Worker(
            lambda progress: load_dataset(data_path, progress, encoding),
            function=True,
            name=f"loading {data_path.name}",
        )
        worker.signals.finished.connect(apply)
        worker.signals.failed.connect(lambda msg: apply(None))
        return self.start_worker(worker, f"loading {data_path.name}")

    def new_project(self) -> bool:
        """Forget the current project (after asking about unsaved changes); the start page shows again."""
        if self.runner.busy:
            self.show_error("a job is running: cancel it before starting a new project")
            return False
        if not self.maybe_save():
            return False
        self.project.reset()
        self.project.set_dirty(False)  # panels re-writing their defaults is not a change of the user's
        self.clear_message()
        self._update_banner()
        self._update_title()
        self.show_panel("Data")
        return True

    def maybe_save(self) -> bool:
        """True if it is fine to drop the current state (saved, discarded, or unchanged)."""
        if not self.project.dirty:
            return True
        text = "The project has unsaved changes. Save them first?"
        if self.project.can_export and not self.release_exported:
            text += (
                "\n\nThe release run has not been exported: its budget stays spent in the ledger, but the "
                "released values are not kept in the project file and will be lost."
            )
        answer = QtWidgets.QMessageBox.question(
            self,
            "Unsaved changes",
            text,
            QtWidgets.QMessageBox.Save | QtWidgets.QMessageBox.Discard | QtWidgets.QMessageBox.Cancel,
            QtWidgets.QMessageBox.Save,
        )
        if answer == QtWidgets.QMessageBox.Save:
            return self.save_project()
        return answer == QtWidgets.QMessageBox.Discard

    # -- layout and closing ----------------------------------------------------------------------------------
    def restore_layout(self) -> None:
        geometry = self.settings.value("window/geometry")
        if isinstance(geometry, (QtCore.QByteArray, bytes)) and geometry:
            self.restoreGeometry(geometry)
        state = self.settings.value("window/state")
        if isinstance(state, (QtCore.QByteArray, bytes)) and state:
            self.restoreState(state)
        for splitter in self.findChildren(QtWidgets.QSplitter):
            name = splitter.objectName()
            value = self.settings.value(f"splitters/{name}") if name else None
            if isinstance(value, (QtCore.QByteArray, bytes)) and value:
                splitter.restoreState(value)
        try:
            tab = int(self.settings.value("window/tab", 0))
        except (TypeError, ValueError):
            tab = 0
        if 0 <= tab < self.tabs.count():
            self.tabs.setCurrentIndex(tab)

    def save_layout(self) -> None:
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.setValue("window/tab", self.tabs.currentIndex())
        for splitter in self.findChildren(QtWidgets.QSplitter):
            if splitter.objectName():
                self.settings.setValue(f"splitters/{splitter.objectName()}", splitter.saveState())
        self.settings.sync()

    def spending_run(self) -> str:
        """What a release run now going on has spent ("" when none is running): closing loses its result,
        never its spend."""
        spent = getattr(self.project, "release_in_progress", None)
        return spent if self.runner.busy and spent else ""

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:
        running = self.spending_run()
        question = None
        if running:
            question = (
                "A release run is going on",
                f"A release run is going on. Its budget is already spent ({running}) and stays spent whether "
                "or not you close: closing now stops the run and loses its result. Close anyway?",
            )
        elif self.runner.busy:
            name = getattr(self.runner.current, "name", "") or "a job"
            question = (
                "A job is going on",
                f"{name[0].upper() + name[1:]} is going on. It spends no budget; closing now stops it and "
                "keeps nothing of it. Close anyway?",
            )
        if question is not None:
            answer = QtWidgets.QMessageBox.question(
                self, *question, QtWidgets.QMessageBox.Yes | QtWidgets.QMessageBox.No, QtWidgets.QMessageBox.No
            )
            if answer != QtWidgets.QMessageBox.Yes:
                event.ignore()
                return
        if not self.maybe_save():
            event.ignore()
            return
        self.save_layout()
        # a job that does not stop within the wait (a long step between its checks) must not keep the process
        # alive after the window: the application ends it (``gui.app.run_app``); its files are written
        # atomically, so nothing is left half-written
        self.runner.shutdown(CLOSE_WAIT_MS)
        self.job_left_running = self.runner.busy  # (waitForDone's answer is not reliable here: the job's own flag)
        for panel in self.panels.values():
            close = getattr(panel, "shutdown", None)
            if callable(close):
                close()
        event.accept()
