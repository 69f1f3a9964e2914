"""The Taxonomy panel: one tree editor per attribute, import/export, generators, and a coverage badge.

Each attribute (quasi-identifiers first, then the class) gets its own ``TaxonomyEditor`` with its own undo
history. Every valid edit is handed to the project (``Project.set_taxonomy``); a tree that is not valid
yet (a numeric parent whose children leave a gap, two leaves with one label) stays in the editor with the
problem shown, and the project keeps the last valid tree.

The badge says whether every value in the data is covered by the taxonomy's leaves, and the panel lists
the uncovered values with their row counts. Those values come from the private data: they are shown to
the data owner here and never written anywhere.

A taxonomy generated from the data's own values, or one into which uncovered values were added, is
marked "derived from the data: not private" in the project (``Project.provenance``); the mark stays
through later edits until the user confirms the tree is public knowledge (Export panel). The domain of a
release must be public knowledge: ALGORITHMS.md section 0.
"""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from dpstudio.core.taxonomy import Taxonomy, TaxonomyError
from dpstudio.gui.panels import host, taxonomy_import, taxonomy_layout
from dpstudio.gui.panels.taxonomy_import import merge_words  # noqa: F401 (also imported from here)
from dpstudio.gui.widgets.taxonomy_editor import EditError, TaxonomyEditor
from dpstudio.model.numbers import bound_text
from dpstudio.model.project import provenance as pv
from dpstudio.model.project.project import (
    CLASS,
    DRAWN_HERE,
    DROP_MISSING,
    EDITED_HERE,
    NUMERIC,
    QUASI_IDENTIFIER,
    Project,
    ProjectError,
)
from dpstudio.model.project.provenance import DERIVED_NOTE

Qt = QtCore.Qt

FORMAT_FILTERS = {
    "arx": "ARX hierarchy CSV (*.csv *.tsv)",
    "brace": "Brace text (*.brace)",
    "json": "JSON (*.json)",
    "indented": "Indented text (*.txt)",
}
FORMAT_SUFFIX = {"arx": ".csv", "brace": ".brace", "json": ".json", "indented": ".txt"}

COVERED, UNCOVERED, NONE, INVALID = "covered", "uncovered", "none", "invalid"
BADGE_COLOURS = {COVERED: "#2e7d32", UNCOVERED: "#c62828", NONE: "#757575", INVALID: "#ef6c00"}


_NOT_KEPT = object()


class TaxonomyPanel(QtWidgets.QWidget):
    """See the module docstring. Public methods: ``select_attribute``, ``editor``, ``import_file``,
    ``import_folder``, ``export_file``, ``generate_numeric``, ``flat_from_data``, ``grouped_from_data``,
    ``add_uncovered``,
    ``badge``; ``last_error`` holds the last message shown."""

    def __init__(self, project: Project, parent=None):
        super().__init__(parent)
        taxonomy_layout.build(self, project, parent)

    # -- messages ------------------------------------------------------------------------------------------------
    def show_error(self, message: str) -> None:
        self.last_error = message
        self.error_label.setText(message)
        self.error_label.show()
        win = host(self)
        if win is not None:
            win.show_error(message)

    def clear_error(self) -> None:
        self.last_error = ""
        self.error_label.hide()

    # -- attributes ---------------------------------------------------------------------------------------------------
    def attributes(self) -> list[str]:
        """Attributes that need a taxonomy view: quasi-identifiers, then the class."""
        p = self.project
        return p.attributes(QUASI_IDENTIFIER) + p.attributes(CLASS)

    def current_attribute(self) -> str | None:
        item = self.attr_list.currentItem()
        return None if item is None else item.data(Qt.UserRole)

    def select_attribute(self, name: str) -> TaxonomyEditor:
        for r in range(self.attr_list.count()):
            if self.attr_list.item(r).data(Qt.UserRole) == name:
                self.attr_list.setCurrentRow(r)
                return self.editor(name)
        raise KeyError(f"{name!r} is not a quasi-identifier or the class")

    def editor(self, attribute: str) -> TaxonomyEditor:
        """The editor of ``attribute`` (created on first use, loaded from the project)."""
        ed = self.editors.get(attribute)
        if ed is None:
            ed = TaxonomyEditor()
            ed.set_taxonomy(self.project.taxonomies.get(attribute))
            ed.changed.connect(lambda a=attribute: self._editor_changed(a))
            ed.error.connect(self.show_error)
            self.editors[attribute] = ed
            self.editor_stack.addWidget(ed)
        return ed

    def _on_current(self, *_):
        attr = self.current_attribute()
        if attr is None:
            self.editor_stack.setCurrentWidget(self.empty_label)
            self.title.setText("")
            self.source_label.setText("")
            self._show_grid(None)
            self._show_coverage(None)
            return
        ed = self.editor(attr)
        self.editor_stack.setCurrentWidget(ed)
        kind = self.project.types.get(attr, "")
        self.title.setText(f"<b>{attr}</b> ({self.project.roles.get(attr)}, {kind})")
        self._show_source(attr)
        numeric = kind == NUMERIC
        b = self.project.bounds.get(attr)
        self.gen_lo.setText("" if b is None else bound_text(b[0], grouped=False))
        self.gen_hi.setText("" if b is None else bound_text(b[1], grouped=False))
        for w in (self.gen_lo, self.gen_hi, self.gen_fanout, self.gen_depth, self.gen_button):
            w.setEnabled(numeric)
        self.flat_button.setEnabled(not numeric)
        self.grouped_button.setEnabled(not numeric)
        self._show_coverage(attr)

    def _show_grid(self, attr: str | None) -> None:
        from dpstudio.model.project.numeric_taxonomy import grid_note

        usable, text = grid_note(self.project, attr) if attr else (True, "")
        self.grid_label.setText(text)
        self.grid_label.setStyleSheet("color:#616161;" if usable else "color:#ef6c00; font-weight:bold;")
        self.grid_label.setVisible(bool(text))

    def _show_source(self, attr: str) -> None:
        self._show_grid(attr)
        src = self.project.taxonomy_sources.get(attr, "")
        prov = self.project.provenance.get(pv.key(pv.TAXONOMY, attr))
        if prov is not None and prov.unconfirmed:
            self.source_label.setText(f"\u26a0 {prov.source}: {DERIVED_NOTE}")
            self.source_label.setStyleSheet("color:#ef6c00; font-weight:bold;")
        elif prov is not None and prov.derived:
            self.source_label.setText(
                f"{prov.source}: derived from the data, confirmed public knowledge (\u201c{prov.confirmed}\u201d)"
            )
            self.source_label.setStyleSheet("color:#616161;")
        else:
            authored = src.startswith((DRAWN_HERE, EDITED_HERE))
            self.source_label.setText(src if authored else (f"from {src}" if src else ""))
            self.source_label.setStyleSheet("color:#616161;")

    # -- coverage --------------------------------------------------------------------------------------------------
    def uncovered(self, attr: str) -> tuple:
        """((value, rows), ...) for ``attr``, cached per taxonomy object and data frame."""
        tax = self.project.taxonomies.get(attr)
        data = (self.project.dataset, self.project.types.get(attr))
        cached = self._coverage.get(attr)
        if cached is not None and cached[0] is tax and cached[1][0] is data[0] and cached[1][1] == data[1]:
            return cached[2]
        found = self.project.uncovered(attr)
        self._coverage[attr] = (tax, data, found)
        return found

    def badge(self, attr: str) -> tuple[str, str]:
        """(state, text): state is 'covered', 'uncovered', 'none' (no taxonomy) or 'invalid'."""
        ed = self.editors.get(attr)
        if ed is not None and ed.problem:
            return INVALID, "not valid yet"
        if attr not in self.project.taxonomies:
            if self.project.roles.get(attr) == CLASS:
                return NONE, "class: no taxonomy needed"
            if self.project.types.get(attr) == NUMERIC:
                b = self.project.bounds.get(attr)
                if b is not None:
                    return NONE, f"no taxonomy: intervals grow from the bounds [{bound_text(b[0])}, {bound_text(b[1])})"
                return NONE, "needs public bounds (Data tab); a taxonomy is optional"
            return NONE, "no taxonomy"
        if not self.project.has_data:
            return COVERED, "no data to check"
        found = self.uncovered(attr)
        if not found:
            return COVERED, "\u2713 every value covered" + self._missing_words(attr)
        rows = sum(c for _, c in found)
        return UNCOVERED, (
            f"\u2717 {len(found)} value{'s' if len(found) != 1 else ''} uncovered "
            f"({rows:,} row{'s' if rows != 1 else ''})"
        )

    def _missing_words(self, attr: str) -> str:
        """What the badge adds when rows miss a value of ``attr`` (the data owner's eyes only): left out of a
        release, or kept as the missing token, which the taxonomy then covers."""
        missing = self.project.missing_rows(attr)
        if not missing:
            return ""
        rows = f"{missing:,} row{'s' if missing != 1 else ''} without a value"
        if self.project.missing == DROP_MISSING:
            return f"; {rows} are left out (Data tab: missing values)"
        return f"; {rows} count as {self.project.missing_token!r}"

    def _show_coverage(self, attr: str | None) -> None:
        self.uncovered_list.clear()
        if attr is None:
            self.badge_label.setText("")
            self.add_uncovered_button.setEnabled(False)
            return
        state, text = self.badge(attr)
        ed = self.editors.get(attr)
        if state == INVALID and ed is not None:
            text = f"not valid yet: {ed.problem}"
        self.badge_label.setText(f"<b>{attr}</b>: {text}")
        self.badge_label.setStyleSheet(f"color:{BADGE_COLOURS[state]};")
        found = self.uncovered(attr) if state == UNCOVERED else ()
        for value, rows in found[:500]:
            label = "missing" if value is None else str(value)
            item = QtWidgets.QListWidgetItem(f"{label}  ({rows:,} row{'s' if rows != 1 else ''})")
            item.setData(Qt.UserRole, None if value is None else str(value))
            self.uncovered_list.addItem(item)
        if len(found) > 500:
            self.uncovered_list.addItem(f"\u2026 and {len(found) - 500} more")
        numeric = self.project.types.get(attr) == NUMERIC
        self.add_uncovered_button.setEnabled(bool(found) and not numeric)

    def _refresh_badges(self) -> None:
        for r in range(self.attr_list.count()):
            item = self.attr_list.item(r)
            attr = item.data(Qt.UserRole)
            state, text = self.badge(attr)
            item.setText(f"{attr}\n    {text}")
            item.setToolTip(f"{attr}: {text}")
            item.setForeground(QtGui.QColor(BADGE_COLOURS[state]))
            item.setData(Qt.UserRole + 1, state)
        self._show_coverage(self.current_attribute())

    # -- refresh from the project --------------------------------------------------------------------------------------
    def _on_project(self, field: str) -> None:
        if self._pushing:
            return
        if field == "algorithm":
            self._show_grid(self.current_attribute())
            return
        if field == "missing":  # kept missing cells take the token: the badges check it like any value
            self._coverage.clear()
            self._refresh_badges()
            return
        if field == "taxonomies":
            for attr, ed in self.editors.items():
                tax = self.project.taxonomies.get(attr)
                try:
                    same = ed.root is not None and tax is not None and ed.taxonomy(attr) == tax
                except TaxonomyError:
                    same = False
                if not same and not (tax is None and ed.root is None):
                    ed.set_taxonomy(tax)
            self._refresh_badges()
            attr = self.current_attribute()
            if attr:
                self._show_source(attr)
            if not self.without_taxonomy():
                self.offer_bar.hide()
            return
        if field == "data":
            self._coverage.clear()
            for ed in self.editors.values():
                self.editor_stack.removeWidget(ed)
                ed.deleteLater()
            self.editors.clear()
            self.summary_label.hide()
        self.refresh()
        if field in ("data", "roles", "types"):
            self.offer_folder_beside_data()

    def refresh(self) -> None:
        current = self.current_attribute()
        shown = [self.attr_list.item(r).data(Qt.UserRole) for r in range(self.attr_list.count())]
        if shown != self.attributes():  # rebuilt only when the attributes change: the list stays under the pointer
            self.attr_list.blockSignals(True)
            self.attr_list.clear()
            for attr in self.attributes():
                item = QtWidgets.QListWidgetItem(attr)
                item.setData(Qt.UserRole, attr)
                self.attr_list.addItem(item)
            self.attr_list.blockSignals(False)
        self._refresh_badges()
        has = self.project.has_data
        for b in (
            self.import_button,
            self.import_folder_button,
            self.export_button,
            self.flat_button,
            self.grouped_button,
        ):
            b.setEnabled(has)
        attrs = self.attributes()
        if attrs:
            self.select_attribute(current if current in attrs else attrs[0])
        self._on_current()

    # -- editor -> project -----------------------------------------------------------------------------------------------
    def _editor_changed(self, attr: str, source: str | None = None, derived: bool = False) -> None:
        ed = self.editors[attr]
        if ed.replaying:  # the last folder import's summary no longer describes the trees
            self.summary_label.hide()
        restore = self._step_provenance(attr, ed)
        if ed.root is None:
            tax = None
        else:
            try:
                tax = ed.taxonomy(attr)
            except TaxonomyError:
                self._refresh_badges()  # invalid for now: the project keeps the last valid tree
                return
        self._pushing = True
        try:
            self.project.set_taxonomy(
                attr, tax, source if source is not None else "edited here", derived=derived, edit=source is None
            )
        except ProjectError as exc:
            self.show_error(str(exc))
        finally:
            self._pushing = False
        if restore is not _NOT_KEPT:
            self.project.restore_provenance(pv.key(pv.TAXONOMY, attr), restore)  # type: ignore[arg-type]
        self._refresh_badges()
        self._show_source(attr)

    def _step_provenance(self, attr: str, ed: TaxonomyEditor) -> object:
        """Keep the tree's provenance with each step of the editor's history, so that Undo of "add as
        leaves" also takes back its "derived from the data" mark. Returns the provenance to restore after an
        undo or redo (``_NOT_KEPT`` for a new edit or a step never seen)."""
        now = self.project.provenance.get(pv.key(pv.TAXONOMY, attr))
        idx = ed.step
        if ed.replaying:
            ed.step_notes[idx + 1 if ed.replaying == "undo" else idx - 1] = now
            return ed.step_notes.get(idx, _NOT_KEPT)
        for later in [i for i in ed.step_notes if i >= idx]:
            del ed.step_notes[later]
        ed.step_notes[idx - 1] = now
        return _NOT_KEPT

    def _replace(self, attr: str, tax: Taxonomy, text: str, source: str | None, derived: bool = False) -> None:
        """Put ``tax`` in the editor of ``attr`` as one undoable edit and hand it to the project (``source``
        None: an edit made here)."""
        ed = self.editor(attr)
        ed.changed.disconnect()
        try:
            ed.set_root(tax.to_node(), text)
        finally:
            ed.changed.connect(lambda a=attr: self._editor_changed(a))
        self._editor_changed(attr, source, derived)

    def _need_attribute(self) -> str | None:
        attr = self.current_attribute()
        if attr is None:
            self.show_error("select an attribute first (open data in the Data panel)")
        return attr

    # -- import / export ---------------------------------------------------------------------------------------------------
    def import_file(self, path, attribute: str | None = None, format: str | None = None) -> bool:
        """Read a taxonomy file into ``attribute`` (default (``taxonomy_import.import_file``)."""
        return taxonomy_import.import_file(self, path, attribute, format)

    def import_folder(self, folder) -> list[str]:
        """See ``taxonomy_import.import_folder``."""
        return taxonomy_import.import_folder(self, folder)

    def without_taxonomy(self) -> list[str]:
        """Quasi-identifiers that still need a taxonomy (categorical ones without a tree)."""
        p = self.project
        return [a for a in p.attributes(QUASI_IDENTIFIER) if p.types.get(a) != NUMERIC and a not in p.taxonomies]

    def offer_folder_beside_data(self) -> None:
        """Offer a taxonomy folder beside the data whose file names match the attributes (not imported
        until the user says so: a file is a public input only when chosen)."""
        from dpstudio.model.project.taxonomy_folder import folder_beside

        self.offered = None
        self.offer_bar.hide()
        if not self.project.has_data or not self.without_taxonomy():
            return
        found = folder_beside(self.project.data_path, self.without_taxonomy())  # only what still needs one
        if found is None or not found.matched:
            return
        self.offered = found.folder
        self.offer_label.setText(
            f"{found.folder} holds taxonomies named after {len(found.matched)} "
            f"attribute{'s' if len(found.matched) != 1 else ''} "
            f"({', '.join(found.matched)}). Import them?"
        )
        self.offer_bar.show()

    def _import_offered(self) -> None:
        if self.offered is not None:
            self.import_folder(self.offered)

    def export_file(
        self, path, format: str | None = None, attribute: str | None = None, overwrite: bool = False
    ) -> bool:
        from dpstudio.io.atomic import OutputPathError
        from dpstudio.io.taxonomy_formats import write_taxonomy

        attr = attribute or self._need_attribute()
        if attr is None:
            return False
        tax = self.project.taxonomies.get(attr)
        if tax is None:
            self.show_error(f"{attr} has no valid taxonomy to export")
            return False
        try:
            write_taxonomy(tax, path, format=format, overwrite=overwrite)
        except (TaxonomyError, OutputPathError, OSError, ValueError) as exc:
            self.show_error(f"could not export the taxonomy of {attr}: {exc}")
            return False
        self.clear_error()
        return True

    def _import_clicked(self) -> None:
        if self._need_attribute() is None:
            return
        settings = QtCore.QSettings()
        start = str(settings.value("last_taxonomy_dir", str(self._data_folder() or Path.home())))
        filters = ";;".join(
            ["Taxonomy files (*.csv *.tsv *.json *.txt *.brace)", *FORMAT_FILTERS.values(), "All files (*)"]
        )
        path, chosen = QtWidgets.QFileDialog.getOpenFileName(self, "Import taxonomy", start, filters)
        if not path:
            return
        settings.setValue("last_taxonomy_dir", str(Path(path).parent))
        fmt = next((k for k, v in FORMAT_FILTERS.items() if v == chosen), None)
        self.import_file(path, format=fmt)

    def _data_folder(self) -> Path | None:
        """The data file's folder (where the file dialogs start), or None without data."""
        return self.project.data_path.parent if self.project.data_path is not None else None

    def _import_folder_clicked(self) -> None:
        settings = QtCore.QSettings()
        start = str(self._data_folder() or settings.value("last_taxonomy_dir", str(Path.home())))
        folder = QtWidgets.QFileDialog.getExistingDirectory(self, "Import taxonomies from a folder", start)
        if folder:
            settings.setValue("last_taxonomy_dir", folder)
            self.import_folder(folder)

    def _export_clicked(self) -> None:
        attr = self._need_attribute()
        if attr is None:
            return
        settings = QtCore.QSettings()
        start = Path(str(settings.value("last_taxonomy_dir", str(Path.home())))) / f"{attr}.csv"
        path, chosen = QtWidgets.QFileDialog.getSaveFileName(
            self, "Export taxonomy", str(start), ";;".join(FORMAT_FILTERS.values())
        )
        if not path:
            return
        fmt = next((k for k, v in FORMAT_FILTERS.items() if v == chosen), None)
        if fmt and not Path(path).suffix:
            path += FORMAT_SUFFIX[fmt]
        # the dialog already asked about replacing an existing file
        self.export_file(path, format=fmt, overwrite=True)

    # -- generators -----------------------------------------------------------------------------------------------------
    def generate_numeric(self, lo, hi, fanout: int, depth: int, attribute: str | None = None) -> bool:
        """Equal-width intervals over the public bounds [lo, hi); whole-number edges for an integer attribute
        (declared, or by default when the bounds are whole numbers)."""
        from dpstudio.core.taxonomy_generators import numeric_equal_width

        attr = attribute or self._need_attribute()
        if attr is None:
            return False
        if self.project.types.get(attr) != NUMERIC:
            self.show_error(f"{attr} is categorical: intervals are for numeric attributes")
            return False
        try:
            lo_f, hi_f = float(str(lo).strip()), float(str(hi).strip())
        except ValueError:
            self.show_error(f"bounds for {attr}'s intervals must be numbers, got {lo!r} and {hi!r}")
            return False
        declared = self.project.numeric_types.get(attr)  # integer attributes get whole-number edges
        integer = str(declared).startswith("integer") if declared else (lo_f.is_integer() and hi_f.is_integer())
        try:
            tax = numeric_equal_width(lo_f, hi_f, int(fanout), int(depth), attr, integer=integer)
        except TaxonomyError as exc:
            self.show_error(f"could not generate intervals for {attr}: {exc}")
            return False
        if attr not in self.project.bounds or self.project.bounds[attr] != (lo_f, hi_f):
            try:
                self.project.set_bounds(attr, lo_f, hi_f)
            except ProjectError as exc:
                self.show_error(str(exc))
                return False
        self._replace(attr, tax, f"Generate {fanout}-ary intervals", f"equal width, fan-out {fanout}, depth {depth}")
        self.clear_error()
        return True

    def _generate_clicked(self) -> None:
        self.generate_numeric(self.gen_lo.text(), self.gen_hi.text(), self.gen_fanout.value(), self.gen_depth.value())

    def flat_from_data(self, attribute: str | None = None, grouped: bool = False) -> bool:
        """Root -> every distinct value in the data (``grouped``: about sqrt(n) groups of consecutive values
        between them, ``grouped_categorical``): marked 'derived from the data: not private'."""
        from dpstudio.core.taxonomy_generators import flat_categorical, grouped_categorical

        attr = attribute if isinstance(attribute, str) else self._need_attribute()
        if attr is None:
            return False
        if not self.project.has_data:
            self.show_error("open data first")
            return False
        values = sorted({str(v) for v in self.project.value_counts(attr)[0]})
        if not values:
            self.show_error(f"{attr} has no values")
            return False
        try:
            tax = (grouped_categorical if grouped else flat_categorical)(values, attr)
        except TaxonomyError as exc:
            self.show_error(str(exc))
            return False
        if grouped:
            self._replace(attr, tax, "Two-level tree from the data", pv.GROUPED_FROM_DATA, derived=True)
        else:
            self._replace(attr, tax, "Flat tree from the data", pv.FLAT_FROM_DATA, derived=True)
        self.clear_error()
        return True

    def grouped_from_data(self, attribute: str | None = None) -> bool:
        """Two levels from the data's values (``flat_from_data(grouped=True)``)."""
        return self.flat_from_data(attribute, grouped=True)

    def add_uncovered(self, attribute: str | None = None, parent=None, values=None) -> bool:
        """Add uncovered values as leaves under ``parent`` (a path; default the selected node or root):
        ``values``, else those selected in the list of uncovered values, else all of them."""
        attr = attribute or self._need_attribute()
        if attr is None:
            return False
        ed = self.editor(attr)
        found = self.uncovered(attr)
        if not found:
            return False
        if values is None and attr == self.current_attribute():
            chosen = [i.data(Qt.UserRole) for i in self.uncovered_list.selectedItems()]
            values = [v for v in chosen if v is not None] or None
        if values is None:
            values = [str(v) for v, _ in found if v is not None]
        if parent is None:
            parent = ed.selected_path() or ()
        try:
            ed.add_children(tuple(parent), [str(v) for v in values])
        except EditError as exc:
            self.show_error(str(exc))
            return False
        if attr in self.project.taxonomies:  # the tree now holds values copied from the data
            self.project.mark_derived(pv.key(pv.TAXONOMY, attr), pv.ADDED_FROM_DATA)
            self._show_source(attr)
        return True

    def _add_uncovered_clicked(self) -> None:
        self.add_uncovered()
