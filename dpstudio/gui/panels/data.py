"""The Data panel: open a CSV (dialog, drag and drop, or the bundled Adult sample), preview it, and set each
attribute's role, type and public bounds, and what to do with missing values.

The preview is a ``DataFrameModel`` (a QAbstractTableModel reading cells on demand), so a million rows
open as fast as a hundred. Loading runs in the window's worker with a progress bar and Cancel.

Bounds are public knowledge typed by the user (or read from the bundled sample's public bounds file). The
panel fills them in from the data only when asked (*Propose from the data*: minimum and maximum), and
then they are marked "derived from the data: not private" in the project, as are types read from the
values (until chosen by hand); a release with such an input is exported only after the user confirms it
is public knowledge (here, or in the Export panel).

Two more public inputs are declared here. The *class values* (every value the class attribute can take,
in release order): typed, or proposed from the data and then marked derived until confirmed; a release run
refuses while they are not declared. The *numeric kind* of a numeric attribute (integer, or continuous
with a resolution): chosen, or proposed from the data (marked derived); undeclared, the run uses the
default from the public bounds, shown as such. Opening the bundled Adult sample declares its documented
class values and integer kinds (``model.data.declare_bundled_sample``).
"""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from dpstudio.gui.panels import data_attributes, data_layout, host
from dpstudio.gui.panels.data_attributes import ROLE_COLOURS  # noqa: F401 (also imported from here)
from dpstudio.gui.panels.data_layout import ATTR_COLUMNS, ENCODINGS, Qt, encoding_combo  # noqa: F401 (also imported from here)
from dpstudio.gui.widgets.elided_label import ErrorLine
from dpstudio.gui.worker import TaskRunner, Worker, user_message
from dpstudio.model.project import provenance as pv
from dpstudio.model.project.class_values_text import parse_class_values
from dpstudio.model.project.project import (
    DROP_MISSING,
    IGNORE,
    KEEP_MISSING,
    Project,
    ProjectError,
)

FILE_FILTER = (
    "Tables (*.csv *.csv.gz *.tsv *.tsv.gz *.txt *.data *.xlsx *.parquet);;CSV/TSV text (*.csv *.csv.gz "
    "*.tsv *.tsv.gz *.txt *.data);;Excel (*.xlsx);;Parquet (*.parquet);;All files (*)"
)


class StartPage(QtWidgets.QWidget):
    """Shown before any data is loaded: open a file, the bundled sample, or drop a file."""

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addStretch(1)
        title = QtWidgets.QLabel(
            "<h2>Prepare a differentially private release</h2>"
            "<p>Start with a table of records (CSV). Nothing leaves this machine.</p>"
        )
        title.setAlignment(Qt.AlignCenter)
        lay.addWidget(title)
        row = QtWidgets.QHBoxLayout()
        row.addStretch(1)
        self.open_button = QtWidgets.QPushButton("Open a CSV file\u2026")
        self.sample_button = QtWidgets.QPushButton("Open the bundled Adult sample")
        for b in (self.open_button, self.sample_button):
            b.setMinimumHeight(40)
            b.setMinimumWidth(240)
            row.addWidget(b)
        row.addStretch(1)
        lay.addLayout(row)
        enc_row = QtWidgets.QHBoxLayout()
        enc_row.addStretch(1)
        self.encoding_combo = encoding_combo()
        enc_row.addWidget(QtWidgets.QLabel("Text encoding of CSV files:"))
        enc_row.addWidget(self.encoding_combo)
        enc_row.addStretch(1)
        lay.addLayout(enc_row)
        hint = QtWidgets.QLabel("or drop a CSV file anywhere on this window")
        hint.setAlignment(Qt.AlignCenter)
        hint.setStyleSheet("color:#757575;")
        lay.addWidget(hint)
        lay.addStretch(2)


class DataPanel(QtWidgets.QWidget):
    """See the module docstring. Public methods: ``open_file(path)``, ``open_sample()``, ``open_dialog()``,
    ``select_attribute(name)``, ``apply_bounds()``, ``declare_classes()``, ``propose_classes()``,
    ``clear_classes()``, ``set_numeric_kind(kind, resolution)``, ``propose_numeric_kind()``,
    ``confirm_input(key, wording=None)``; ``last_error`` holds the last message shown."""

    loaded = QtCore.Signal()  # after a dataset was adopted by the project
    load_failed = QtCore.Signal(str)

    def __init__(self, project: Project, parent=None):
        super().__init__(parent)
        self.project = project
        self.last_error = ""
        self._own_runner: TaskRunner | None = None
        self._updating = False
        self.setAcceptDrops(True)

        self.stack = QtWidgets.QStackedWidget()
        self.start_page = StartPage()
        self.start_page.open_button.clicked.connect(self.open_dialog)
        self.start_page.sample_button.clicked.connect(self.open_sample)
        self.stack.addWidget(self.start_page)
        self.stack.addWidget(self._build_data_page())
        for combo in (self.start_page.encoding_combo, self.encoding_combo):  # one choice, shown on both pages
            combo.currentTextChanged.connect(self.set_encoding)
        self.error_label = ErrorLine(colour="#c62828", bold=True, keep_room=False)
        self.error_label.hide()
        lay = QtWidgets.QVBoxLayout(self)
        lay.addWidget(self.error_label)
        lay.addWidget(self.stack, 1)

        project.subscribe(self._on_project, "data", "roles", "types", "bounds", "missing", "classes", "provenance")
        self.refresh()

    # -- layout ---------------------------------------------------------------------------------------------
    def _build_data_page(self) -> QtWidgets.QWidget:
        return data_layout.build_data_page(self)

    # -- messages and work ----------------------------------------------------------------------------------------
    def show_error(self, message: str) -> None:
        self.last_error = message
        win = host(self)
        if win is not None:
            win.show_error(message)
        self.error_label.setText(message)
        self.error_label.show()

    def clear_error(self) -> None:
        self.last_error = ""
        self.error_label.hide()

    def _start(self, worker: Worker, title: str) -> Worker | None:
        win = host(self)
        if win is not None:
            return win.start_worker(worker, title)
        if self._own_runner is None:
            self._own_runner = TaskRunner(self)
        try:
            return self._own_runner.start(worker)
        except RuntimeError as exc:
            self.show_error(str(exc))
            return None

    @property
    def runner(self) -> TaskRunner | None:
        win = host(self)
        return win.runner if win is not None else self._own_runner

    # -- opening data -----------------------------------------------------------------------------------------------
    def open_dialog(self) -> None:
        settings = QtCore.QSettings()
        start = str(settings.value("last_data_dir", str(Path.home())))
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Open data", start, FILE_FILTER)
        if path:
            settings.setValue("last_data_dir", str(Path(path).parent))
            self.open_file(path)

    @property
    def encoding(self) -> str:
        return self.encoding_combo.currentText().strip() or "utf-8"

    def set_encoding(self, name: str) -> None:
        """The text encoding CSV/TSV files are opened with (both pages show the same choice). A choice holds for
        the next file opened and for that file after (not for another file, which starts from UTF-8)."""
        self._encoding_chosen = True
        self._show_encoding(name)

    def _show_encoding(self, name: str) -> None:
        for combo in (self.start_page.encoding_combo, self.encoding_combo):
            if combo.currentText() != name:
                combo.blockSignals(True)
                combo.setCurrentText(name)
                combo.blockSignals(False)

    def open_file(self, path) -> Worker | None:
        """Load ``path`` in the worker with the chosen text encoding; on success the project adopts it, on
        failure a message is shown."""
        from dpstudio.model.project.data import load_dataset

        path = Path(path)
        chosen, self._encoding_chosen = getattr(self, "_encoding_chosen", False), False
        if not chosen and getattr(self, "_encoding_path", path) != path:
            self._show_encoding("utf-8")  # the encoding chosen for another file does not carry over
        self._encoding_path = path
        encoding = self.encoding
        worker = Worker(
            lambda progress: load_dataset(path, progress, encoding), function=True, name=f"loading {path.name}"
        )
        worker.signals.finished.connect(lambda ds: self._adopt(ds, path, encoding=encoding))
        worker.signals.failed.connect(lambda msg: self._load_failed(path, msg))
        started = self._start(worker, f"loading {path.name}")
        if started is not None:
            worker.signals.cancelled.connect(lambda *_: self.refresh())  # back to the data still loaded
            self._first_look(path, encoding)
        return started

    def _first_look(self, path: Path, encoding: str) -> None:
        """While a large file's counts are computed (minutes for a billion rows), its first rows in the
        preview at once, with a line saying what is still being read; the panel's figures stay those of the
        data still loaded until the file is adopted (``refresh`` then), and come back if it is cancelled."""
        from dpstudio.io.engine_table import PREVIEW_ROWS, first_rows, opens_with_engine

        if not opens_with_engine(path, encoding):
            return  # a file read into memory opens in seconds: its preview comes with it
        try:
            frame = first_rows(path)
        except Exception:  # the worker reports why the file cannot be read
            return
        self.stack.setCurrentIndex(1)
        self.preview_model.set_frame(frame)
        self.file_label.setText(
            f"<b>{path.name}</b> — its first {min(PREVIEW_ROWS, len(frame)):,} rows; reading the whole file"
        )
        self.file_label.setToolTip(
            f"{path}\nThe counts of every row come when the whole file is read (the progress bar below); the "
            "attributes on the right stay those of the data loaded before until then, and Cancel keeps that data."
        )

    def open_sample(self) -> Worker | None:
        """Load the bundled Adult sample (and its public bounds) in the worker."""
        from dpstudio.model.project.data import bundled_sample_path, load_bundled_sample

        try:
            path = bundled_sample_path()
        except FileNotFoundError as exc:
            self.show_error(f"the bundled Adult sample is missing: {exc}")
            return None
        worker = Worker(load_bundled_sample, function=True, name="loading the Adult sample")
        worker.signals.finished.connect(lambda ds: self._adopt(ds, path, sample=True))
        worker.signals.failed.connect(lambda msg: self._load_failed(path, msg))
        return self._start(worker, "loading the bundled Adult sample")

    def _load_failed(self, path: Path, message: str) -> None:
        detail = message.replace(
            "or load it with its encoding, e.g. encoding='latin-1'",
            f"or choose its text encoding (e.g. latin-1; now {self.encoding}) beside the Open button and open it again",
        )
        if detail.startswith(f"{path.name} "):  # "empty.csv is empty" -> "could not open empty.csv: it is empty"
            detail = "it " + detail[len(path.name) + 1 :]
        elif detail.startswith(f"{path.name}: "):
            detail = detail[len(path.name) + 2 :]
        text = f"{path.name}: {detail}"
        self.refresh()  # a large file's first rows may be showing: back to the data still loaded
        self.show_error(f"could not open {text}")
        self.load_failed.emit(text)

    # -- declarations of another file, column types ------------------------------------------------------
    def _refresh_declarations(self) -> None:
        from dpstudio.gui.widgets.confirm_types import unconfirmed_types

        p = self.project
        stash = getattr(p, "previous_declarations", None)
        fits = stash.applicable_inputs(p.columns) if stash is not None and p.has_data else []
        if fits:  # offered only when some of them name columns of this data
            target = p.data_path.name if p.data_path is not None else "this data"
            named = ", ".join(fits[:6]) + (f" and {len(fits) - 6} more" if len(fits) > 6 else "")
            self.reapply_label.setText(
                f"Use the declarations made for {stash.label} for {target}? {len(fits)} of its {stash.count()} "
                f"public inputs name columns of this data ({named}); each will say it was re-applied by you."
            )
            self.reapply_label.setToolTip("\n".join(fits))
            self.reapply_row.show()
        else:
            self.reapply_row.hide()
        n = len(unconfirmed_types(p)) if p.has_data else 0
        self.types_button.setEnabled(n > 0)
        self.types_button.setText(f"Confirm column types ({n})\u2026" if n else "Column types confirmed")

    def reapply_declarations(self) -> list[str]:
        """Re-apply the previous file's declarations (``Project.reapply_declarations``); returns them."""
        try:
            done, skipped = self.project.reapply_declarations()
        except ProjectError as exc:
            self.show_error(str(exc))
            return []
        win = host(self)
        if win is not None:
            kept = list(dict.fromkeys(skipped))  # bounds and kind of one missing column: named once
            extra = (
                f"; not re-applied: {'; '.join(kept[:6])}" + (f" and {len(kept) - 6} more" if len(kept) > 6 else "")
                if kept
                else ""
            )
            win.show_info(f"re-applied {len(done)} declarations{extra}")
        self._refresh_declarations()
        return done

    def _dismiss_declarations(self) -> None:
        self.project.previous_declarations = None
        self._refresh_declarations()

    def confirm_types(self, accept: bool | None = None) -> list[str]:
        """See ``data_attributes.confirm_types``."""
        return data_attributes.confirm_types(self, accept)

    def _adopt(self, dataset, path: Path, sample: bool = False, encoding: str = "utf-8") -> None:
        try:
            if sample:
                from dpstudio.model.project.data import adopt_bundled_sample

                adopt_bundled_sample(self.project, dataset, path)
            else:
                self.project.set_data(dataset, path, encoding=encoding)
        except (ProjectError, ValueError, OSError) as exc:
            self.show_error(f"could not use {path.name}: {user_message(exc)}")
            self.load_failed.emit(str(exc))
            return
        self.clear_error()
        win = host(self)
        if win is not None:
            p = self.project
            how = "; read through DuckDB, not loaded into memory" if p.engine_table is not None else ""
            win.show_info(f"opened {path.name}: {p.n_rows:,} rows, {len(p.columns)} attributes{how}")
        self.loaded.emit()

    def dragEnterEvent(self, event: QtGui.QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QtGui.QDropEvent) -> None:
        urls = [u for u in event.mimeData().urls() if u.isLocalFile()]
        if urls:
            event.acceptProposedAction()
            self.open_file(urls[0].toLocalFile())

    # -- attribute settings ---------------------------------------------------------------------------------------------
    def current_attribute(self) -> str | None:
        rows = self.attr_table.selectionModel().selectedRows() if self.attr_table.selectionModel() else []
        if not rows:
            return None
        item = self.attr_table.item(rows[0].row(), 0)
        return item.text() if item else None

    def select_attribute(self, name: str) -> None:
        for r in range(self.attr_table.rowCount()):
            if self.attr_table.item(r, 0).text() == name:
                self.attr_table.selectRow(r)
                return
        raise KeyError(name)

    def _on_attr_selected(self) -> None:
        return data_attributes.on_attr_selected(self)

    def set_role(self, attr: str, role: str) -> None:
        try:
            self.project.set_role(attr, role)
        except ProjectError as exc:
            self.show_error(str(exc))

    def set_type(self, attr: str, kind: str) -> bool:
        try:
            self.project.set_type(attr, kind)
        except (ProjectError, ValueError) as exc:
            self.show_error(str(exc))
            self._on_attr_selected()
            return False
        return True

    def _on_role(self) -> None:
        attr = self.current_attribute()
        if attr:
            self.set_role(attr, self.role_combo.currentText())

    def _on_type(self) -> None:
        attr = self.current_attribute()
        if attr:
            self.set_type(attr, self.type_combo.currentText())

    def apply_bounds(self) -> bool:
        """Set the typed bounds of the selected attribute; a specific message if they are not valid."""
        attr = self.current_attribute()
        if attr is None:
            self.show_error("select an attribute first")
            return False
        lo, hi = self.lo_edit.text().strip(), self.hi_edit.text().strip()
        if not lo or not hi:
            self.show_error(f"bounds of {attr}: type both the lower and the upper bound")
            return False
        try:
            self.project.set_bounds(attr, lo, hi)
        except ProjectError as exc:
            self.show_error(str(exc))
            return False
        self.clear_error()
        return True

    def propose_bounds(self, attr: str | None = None) -> bool:
        """Bounds of the selected attribute from the data's minimum and maximum, marked derived."""
        attr = attr or self.current_attribute()
        if attr is None:
            self.show_error("select an attribute first")
            return False
        try:
            self.project.propose_bounds(attr)
        except ProjectError as exc:
            self.show_error(str(exc))
            return False
        self.clear_error()
        return True

    def _try(self, change, prefix: str = "") -> bool:
        """Make one change to the project: True, or False with its ProjectError shown."""
        try:
            change()
        except ProjectError as exc:
            self.show_error(prefix + str(exc))
            return False
        self.clear_error()
        return True

    # -- numeric kind ----------------------------------------------------------------------------------------------
    def _kind_key(self) -> str:
        return pv.key(pv.KIND, self.current_attribute() or "")

    def set_numeric_kind(self, kind: str | None, resolution: str = "") -> bool:
        """Declare the selected numeric attribute integer or continuous (with ``resolution``, empty: the
        default); None goes back to the default from the bounds."""
        attr = self.current_attribute()
        if attr is None:
            self.show_error("select an attribute first")
            return False
        resolution = str(resolution or "").strip()
        declaration = (
            None if kind is None else (f"{kind}:{resolution}" if resolution and kind == "continuous" else kind)
        )
        done = self._try(lambda: self.project.set_numeric_type(attr, declaration))
        if not done:
            self._refresh_kind(attr)
        return done

    def propose_numeric_kind(self) -> bool:
        """The selected attribute's kind read from its values, marked derived from the data."""
        return self._try(lambda: self.project.propose_numeric_type(self.current_attribute() or ""))

    def _on_kind(self) -> None:
        if not self._updating:
            self.set_numeric_kind(self.kind_combo.currentData(), self.resolution_edit.text())

    def _refresh_kind(self, attr: str | None) -> None:
        return data_attributes.refresh_kind(self, attr)

    # -- class values ----------------------------------------------------------------------------------------------
    def _classes_key(self) -> str:
        return pv.key(pv.CLASSES, self.project.class_attribute or "")

    def declare_classes(self, text: str | None = None) -> bool:
        """Declare the class values typed in the box (or ``text``), separated by commas. Typed over values
        proposed from the data, they keep the derived mark (clear first to declare afresh)."""
        if text is not None:
            self.classes_edit.setText(text)
        try:
            values = parse_class_values(self.classes_edit.text())
        except ValueError as exc:
            self.show_error(f"class values: {exc}")
            return False
        if self.project.class_attribute is None:
            self.show_error("class values: choose the class attribute first (role 'class')")
            return False
        return self._try(lambda: self.project.set_classes(values, edit=True), "class values: ")

    def propose_classes(self) -> bool:
        """Fill the class values from the data, marked "derived from the data: not private"."""
        return self._try(self.project.propose_classes)

    def clear_classes(self) -> None:
        self.project.set_classes(None)

    def confirm_input(self, key: str, wording: str | None = None) -> bool:
        """Confirm that the derived input ``key`` is public knowledge (asks for the wording when None)."""
        from dpstudio.gui.widgets.confirm_public import confirm_public_input

        ok, message = confirm_public_input(self, self.project, key, wording)
        if message:
            self.show_error(message)
        return ok

    def _refresh_classes(self) -> None:
        return data_attributes.refresh_classes(self)

    def _on_missing(self) -> None:
        if self._updating:
            return
        self.project.set_missing(DROP_MISSING if self.drop_radio.isChecked() else KEEP_MISSING)

    def _on_missing_token(self) -> None:
        if self._updating:
            return
        try:
            self.project.set_missing_token(self.token_edit.text())
        except ProjectError as exc:
            self.show_error(str(exc))
            self.token_edit.setText(self.project.missing_token)

    # -- refresh from the project ----------------------------------------------------------------------------------------
    def _on_project(self, field: str) -> None:
        if field in ("data", "types", "provenance"):
            self._refresh_declarations()
        if field == "data":
            self.refresh()
            self.preview.scrollToTop()  # a new file starts at its first row and column
            self.preview.horizontalScrollBar().setValue(0)
            return
        if field in ("classes", "provenance"):
            self._refresh_classes()
            self._on_attr_selected()
            return
        if field == "types" and self.project.has_data:
            self.preview_model.set_frame(self._preview_frame())  # a type change replaces the column
        self._refresh_attributes()

    def _preview_frame(self):
        """The rows the preview shows (``DataSource.preview_frame``); its title says which (walk 51: "every
        row" above the first 1,000 rows of a file read through DuckDB)."""
        frame = self.project.preview_frame()
        title = data_layout.PREVIEW_ALL
        if self.project.engine_table is not None and frame is not None:
            title = data_layout.PREVIEW_FIRST.format(n=len(frame))
        self.preview_box.setTitle(title)
        return frame

    def missing_summary(self):
        """The model's missing-value figures for the columns a release may use (every column not ignored)."""
        from dpstudio.model.project.missing import missing_summary

        p = self.project
        return missing_summary(p, [c for c in p.columns if p.roles.get(c) != IGNORE])

    def missing_report(self) -> dict[str, int]:
        """Missing cells per attribute of the loaded data (attributes with none are left out)."""
        return self.missing_summary().per_column

    def refresh(self) -> None:
        if not self.project.has_data:
            self.preview_model.set_frame(None)
            self.stack.setCurrentIndex(0)
            return
        self.stack.setCurrentIndex(1)
        self.preview_model.set_frame(self._preview_frame())
        path = self.project.data_path
        name = path.name if path else "data"
        engine = ""
        if self.project.engine_table is not None:
            from dpstudio.io.engine_table import PREVIEW_ROWS

            engine = (
                f"; read through DuckDB (the file is large): not loaded into memory, the preview shows the "
                f"first {min(PREVIEW_ROWS, self.project.n_rows):,} rows"
            )
        self.file_label.setText(
            f"<b>{name}</b> \u2014 {self.project.n_rows:,} rows \u00d7 {len(self.project.columns)} "
            f"attributes{engine}" + (f" <span style='color:#757575'>({path.parent})</span>" if path else "")
        )
        self.file_label.setToolTip(f"{path}\nSHA-256 {self.project.data_hash}" if path else "")
        self._refresh_attributes()
        if self.project.columns and self.current_attribute() is None:
            self.attr_table.selectRow(0)

    def _distinct_text(self, attr: str) -> str:
        """The Distinct cell: exact, or DuckDB's estimate (≈) for a column with very many values
        (``DataSource.distinct_count``)."""
        n, approx = self.project.distinct_count(attr)
        return ("\u2248" if approx else "") + f"{n:,}"

    def _refresh_attributes(self) -> None:
        return data_attributes.refresh_attributes(self)

    def shutdown(self) -> None:
        if self._own_runner is not None:
            self._own_runner.shutdown()
