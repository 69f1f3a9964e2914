"""Export: the released CSV, its JSON sidecar and an HTML report, after a confirmation that states the
epsilon the release spent. Atomic writes; never overwrites (an existing file is an error that says which).

Teaching mode REFUSES: the Export button is disabled with a visible explanation, and ``export_to`` raises
``ExportRefused``. Only a finished release-mode run on secure noise can be exported
(``Project.can_export``). Everything written describes the run's snapshot (``model.release.snapshot``,
taken at Run): the public inputs with the provenance they had then, the settings the re-run scripts use. A
run whose inputs included one derived from the data and unconfirmed at Run is refused for good (confirming
it later does not change what ran: run again). The "Public inputs" list confirms the current inputs one by
one, with the user's wording, for the next run.

Public methods (for the demo driver and tests):
- ``export_to(folder, name="release", confirm=True) -> list[Path]``: writes NAME.csv, NAME.json,
  NAME.report.html, and NAME.command.sh and NAME.reproduce.py (the equivalent ``dpstudio`` command and a
  Python script through ``dpstudio.api`` that re-run the release's settings with fresh noise:
  ``model.release_export``) in ``folder``; asks for confirmation first (``QMessageBox.question``) unless
  ``confirm`` is False; raises ``ExportRefused`` (teaching mode, no run, not confirmed, simulation noise)
  or ``OutputPathError`` (a file exists, the folder is missing or not writable).
- ``refusal_reason()``: why export is not possible now ("" when it is).
- ``confirm_input(key, wording=None)``: ask for (or with ``wording``, record) the confirmation that one
  derived input is public knowledge.
"""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from dpstudio.algorithms import registry
from dpstudio.gui.panels import host
from dpstudio.io.atomic import OutputPathError
from dpstudio.io.report import is_histogram
from dpstudio.model.project import provenance as pv
from dpstudio.model.release.export import (
    check_release_paths,
    export_refusal,
    free_release_name,
    release_paths,
    write_export,
)


class ExportRefused(RuntimeError):
    """Export is not allowed now; the message says why."""


def studio_words(exc: OutputPathError) -> OutputPathError:
    """The error in the studio's words: an existing file is named with what to do here (the library's
    message speaks to the command line: "pass --overwrite")."""
    p = exc.existing
    if p is None:
        return exc
    return OutputPathError(
        f"{p.name} already exists in {p.parent}: choose another file name or folder for "
        "this release (the studio never replaces release files; nothing was written)",
        p,
    )


class ExportPanel(QtWidgets.QWidget):
    exported = QtCore.Signal(list)

    def __init__(self, project, parent=None):
        super().__init__(parent)
        self.project = project
        self.last_paths: list[Path] = []
        self._exported_result = None  # the run whose files last_paths lists
        outer = QtWidgets.QVBoxLayout(self)

        self.banner = QtWidgets.QLabel()
        self.banner.setWordWrap(True)
        outer.addWidget(self.banner)

        box = QtWidgets.QGroupBox("What will be written")
        form = QtWidgets.QFormLayout(box)
        self.summary = QtWidgets.QLabel("")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(QtCore.Qt.TextSelectableByMouse)
        form.addRow(self.summary)
        row = QtWidgets.QHBoxLayout()
        self.folder_edit = QtWidgets.QLineEdit()
        self.folder_edit.setPlaceholderText("folder for the release files")
        browse = QtWidgets.QPushButton("Browse...")
        row.addWidget(self.folder_edit, 1)
        row.addWidget(browse)
        form.addRow("folder", row)
        self.name_edit = QtWidgets.QLineEdit("release")
        form.addRow("file name", self.name_edit)
        self.expand = QtWidgets.QCheckBox("one row per released record (tables only)")
        form.addRow("", self.expand)
        self.omit_zero = QtWidgets.QCheckBox("leave out cells whose released count is 0 (large sparse tables)")
        self.omit_zero.setToolTip(
            "The sidecar says so and gives the number of cells: a leaf partition x class of the released cut "
            "without a row has count 0"
        )
        form.addRow("", self.omit_zero)
        self.files_label = QtWidgets.QLabel("")
        form.addRow("files", self.files_label)
        outer.addWidget(box)

        ibox = QtWidgets.QGroupBox("Public inputs of this release")
        ilay = QtWidgets.QVBoxLayout(ibox)
        self.inputs_list = QtWidgets.QListWidget()
        self.inputs_list.setToolTip(
            "Where each public input came from; inputs derived from the data must be "
            "confirmed as public knowledge before a release is exported"
        )
        self.confirm_button = QtWidgets.QPushButton("Confirm the selected input is public knowledge...")
        ilay.addWidget(self.inputs_list)
        ilay.addWidget(self.confirm_button)
        outer.addWidget(ibox)

        self.export_button = QtWidgets.QPushButton("Export release...")
        outer.addWidget(self.export_button)
        self.message = QtWidgets.QLabel("")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(QtCore.Qt.TextSelectableByMouse)
        outer.addWidget(self.message)
        outer.addStretch(1)

        browse.clicked.connect(self._browse)
        self.confirm_button.clicked.connect(self._on_confirm_clicked)
        self.inputs_list.currentItemChanged.connect(lambda *_: self._update_confirm_button())
        self.export_button.clicked.connect(self._on_export_clicked)
        self.name_edit.textChanged.connect(lambda _t: self._update_files())
        self.folder_edit.textChanged.connect(lambda _t: self._update_files())
        project.subscribe(lambda _f: self.refresh(), "run", "mode", "ledger", "provenance", "roles", "algorithm")
        project.subscribe(lambda _f: self._name_for_data(), "data")
        self.refresh()

    def _name_for_data(self) -> None:
        """A new dataset: the file name starts again from its own name (one typed for the last data would
        name this release after other records)."""
        path = getattr(self.project, "data_path", None)
        self.name_edit.setText(f"{Path(path).name.split('.')[0]}_release" if path else "release")

    def _offer_free_name(self) -> None:
        """A new release after an export: its files get a name of their own when the last name's files are in
        the folder (walk 52: the second release's export was refused until renamed)."""
        folder = self.folder_edit.text().strip()
        if folder:
            self.name_edit.setText(free_release_name(folder, self.name_edit.text()))

    # -- state --------------------------------------------------------------------------------------
    def refusal_reason(self) -> str:
        return export_refusal(self.project)

    def refresh(self) -> None:
        if self.last_paths and getattr(self.project, "result", None) is not self._exported_result:
            self.last_paths = []  # those files belong to an earlier release: not listed under a new one
            self.message.setText("")
            self._offer_free_name()
        reason = self.refusal_reason()
        teaching = self.project.teaching
        self.export_button.setEnabled(not reason)
        if teaching:
            self.banner.setText(
                "<b>TEACHING: NOT A RELEASE</b> - export is disabled. Teaching runs use seeded "
                "simulation noise and may show true counts, so their output is not a release. "
                "Switch to release mode and run again to export (that run spends the budget)."
            )
            self.banner.setStyleSheet("background:#f0a020;color:black;padding:6px;")
        elif reason:
            self.banner.setText(reason)
            self.banner.setStyleSheet("background:#eeeeee;padding:6px;")
        else:
            self.banner.setText("<b>release</b> - secure noise; the budget below is already recorded in the ledger")
            self.banner.setStyleSheet("background:#e3f3e8;padding:6px;")
        self.summary.setText(self._summary_text())
        self._refresh_inputs()
        r = getattr(self.project, "result", None)
        self.expand.setEnabled(r is not None and not self._is_histogram(r))
        self.omit_zero.setEnabled(r is not None and not self._is_histogram(r))
        self._update_files()

    def _summary_text(self) -> str:
        p = self.project
        r = getattr(p, "result", None)
        if r is None:
            return "nothing to export"
        ledger = p.run_ledger
        spent = float(ledger.spent) if ledger is not None else float("nan")
        if self._is_histogram(r):
            what = f"histogram of {r.plan.tree.n_bins} bins ({registry.histogram_name(r.plan.algorithm)})"
        else:
            what = (
                f"generalized table: {r.n_partitions} leaf partitions x {len(r.classes)} classes ({r.params.algorithm})"
            )
        return (
            f"{what}; this run spent epsilon {spent:g} of its {float(ledger.total):g}; "
            f"{len(ledger.entries)} ledger entries"
        )

    def _refresh_inputs(self) -> None:
        current = self.inputs_list.currentItem()
        keep = current.data(QtCore.Qt.UserRole) if current is not None else None
        self.inputs_list.clear()
        for k in self.project.release_inputs():
            prov = self.project.provenance_of(k)
            if not self.project.input_is_set(k):  # not yet a public input: the release needs it set
                item = QtWidgets.QListWidgetItem(f"{pv.describe(k)}: not set yet \u2014 the release needs it")
                item.setForeground(QtGui.QColor("#b35900"))
            else:
                item = QtWidgets.QListWidgetItem(f"{pv.describe(k)}: {prov.source} \u2014 {prov.status()}")
            item.setData(QtCore.Qt.UserRole, k)
            if prov.unconfirmed:
                item.setForeground(QtGui.QColor("#c62828"))
            self.inputs_list.addItem(item)
            if k == keep:
                self.inputs_list.setCurrentItem(item)
        self._update_confirm_button()

    def _update_confirm_button(self) -> None:
        item = self.inputs_list.currentItem()
        ok = item is not None and self.project.provenance_of(item.data(QtCore.Qt.UserRole)).unconfirmed
        self.confirm_button.setEnabled(ok)

    def confirm_input(self, key: str, wording: str | None = None) -> bool:
        """Record that the derived input ``key`` is public knowledge, in the user's words (asked for, with a
        proposed statement, when ``wording`` is None). False if cancelled or refused (message shown)."""
        from dpstudio.gui.widgets.confirm_public import confirm_public_input

        ok, message = confirm_public_input(self, self.project, key, wording)
        if message:
            self.message.setText(message)
        return ok

    def _on_confirm_clicked(self) -> None:
        item = self.inputs_list.currentItem()
        if item is not None:
            self.confirm_input(item.data(QtCore.Qt.UserRole))

    @staticmethod
    def _is_histogram(r) -> bool:
        return is_histogram(r)

    def paths(self, folder, name: str) -> list[Path]:
        return release_paths(folder, name)

    def _update_files(self) -> None:
        folder = self.folder_edit.text().strip()
        if not folder:
            self.files_label.setText("choose a folder")
            return
        self.files_label.setText(", ".join(p.name for p in self.paths(folder, self.name_edit.text())))

    # -- exporting ----------------------------------------------------------------------------------
    def confirm_text(self) -> str:
        from dpstudio.model.release.spent_figures import spend_sentence

        record = self.project.record  # what ran: the charge and the ledger of the run being exported
        sentence = spend_sentence(record.budget if record else None, record.ledger if record else None)
        return (
            f"{sentence} (neighbouring datasets: add/remove one record).\n\n"
            "Once published it cannot be taken back, and this data's budget stays spent. Write the release "
            "files now?"
        )

    def export_to(self, folder, name: str = "release", confirm: bool = True) -> list[Path]:
        """Write the release CSV, its JSON sidecar and the HTML report; see the module docstring."""
        reason = self.refusal_reason()
        if reason:
            raise ExportRefused(reason)
        made = None
        if not Path(folder).exists() and Path(folder).parent.is_dir():
            try:  # the folder typed for this release: made for it, and removed again if nothing is written
                Path(folder).mkdir()
                made = Path(folder)
            except OSError as exc:
                raise OutputPathError(f"could not create the folder {folder}: {exc.strerror or exc}") from None
        try:
            return self._export_into(folder, name, confirm)
        finally:
            if made is not None and made.is_dir() and not any(made.iterdir()):
                made.rmdir()

    def _export_into(self, folder, name: str, confirm: bool) -> list[Path]:
        paths = self.paths(folder, name)
        try:
            check_release_paths(paths)  # before asking or writing anything
        except OutputPathError as exc:
            raise studio_words(exc) from None
        self.message.setText("")  # an earlier refusal (another name) no longer applies beside the question
        win = host(self)
        if win is not None and hasattr(win, "clear_message"):
            win.clear_message()
        if confirm:
            answer = QtWidgets.QMessageBox.question(
                self,
                "Publish this release?",
                self.confirm_text(),
                QtWidgets.QMessageBox.Yes | QtWidgets.QMessageBox.No,
                QtWidgets.QMessageBox.No,
            )
            if answer != QtWidgets.QMessageBox.Yes:
                raise ExportRefused("export cancelled: nothing was written")
        try:
            written = write_export(
                self.project,
                folder,
                name,
                expand_records=self.expand.isChecked(),
                omit_zero_cells=self.omit_zero.isChecked(),
            )
        except OutputPathError as exc:
            raise studio_words(exc) from None
        except ValueError as exc:  # refused: the run cannot be exported
            raise ExportRefused(str(exc)) from None
        r = self.project.result
        self.last_paths = list(written)
        self._exported_result = r
        self.message.setText("Written:\n" + "\n".join(str(p) for p in self.last_paths))
        self.exported.emit(list(self.last_paths))
        return list(self.last_paths)

    def _browse(self) -> None:
        d = QtWidgets.QFileDialog.getExistingDirectory(self, "Folder for the release files")
        if d:
            self.folder_edit.setText(d)

    def _on_export_clicked(self) -> None:
        folder = self.folder_edit.text().strip()
        if not folder:
            self._browse()
            folder = self.folder_edit.text().strip()
            if not folder:
                return
        try:
            self.export_to(folder, self.name_edit.text())
        except (ExportRefused, OutputPathError, OSError, ValueError) as exc:
            self.message.setText(str(exc))
            win = host(self)
            if win is not None:
                win.show_error(str(exc))
