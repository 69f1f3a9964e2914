"""The Data panel's attributes: the table of roles, types, public bounds and counts (missing and distinct:
private, for the data owner's eyes only), the selected attribute's editor, the class values and the
confirmation of guessed column types."""

from __future__ import annotations

from PySide6 import QtGui, QtWidgets

from dpstudio.model.numbers import bound_text
from dpstudio.model.project import provenance as pv
from dpstudio.model.project.class_values_text import format_class_values
from dpstudio.model.project.project import (
    CLASS,
    DROP_MISSING,
    IGNORE,
    KEEP_MISSING,
    NUMERIC,
    QUASI_IDENTIFIER,
    ProjectError,
)

ROLE_COLOURS = {QUASI_IDENTIFIER: "#1565c0", CLASS: "#6a1b9a", IGNORE: "#9e9e9e"}


def refresh_attributes(panel) -> None:
    p = panel.project
    if not p.has_data:
        return
    panel._updating = True
    try:
        current = panel.current_attribute()
        summary = panel.missing_summary()
        missing = summary.per_column
        panel.attr_table.setRowCount(len(p.columns))
        for r, c in enumerate(p.columns):
            b = p.bounds.get(c)
            if p.types.get(c) == NUMERIC:
                btext = f"[{bound_text(b[0])}, {bound_text(b[1])})" if b else "needed"
            else:
                btext = "\u2014"
            kind = p.numeric_types.get(c) if p.types.get(c) == NUMERIC else None
            cells = (
                c,
                p.roles.get(c, ""),
                p.types.get(c, "") + (f": {kind}" if kind else ""),
                btext,
                str(missing.get(c, 0)),
                panel._distinct_text(c),
            )
            for k, text in enumerate(cells):
                item = panel.attr_table.item(r, k)
                if item is None:
                    item = QtWidgets.QTableWidgetItem()
                    panel.attr_table.setItem(r, k, item)
                item.setText(text)
                if k == 1:
                    item.setForeground(QtGui.QColor(ROLE_COLOURS.get(p.roles.get(c), "#000")))
                if k == 3:
                    need = btext == "needed" and p.roles.get(c) == QUASI_IDENTIFIER
                    item.setForeground(QtGui.QColor("#c62828" if need else "#000"))
                if k in (2, 3):  # type, bounds: an orange mark while derived from the data
                    prov = p.provenance.get(pv.key(pv.TYPE if k == 2 else pv.BOUNDS, c))
                    if k == 2 and kind and p.provenance_of(pv.key(pv.KIND, c)).unconfirmed:
                        prov = p.provenance_of(pv.key(pv.KIND, c))
                    derived = prov is not None and prov.unconfirmed and not (k == 3 and b is None)
                    item.setToolTip(f"{prov.source}: {pv.DERIVED_NOTE}" if derived else "")
                    if derived:
                        item.setForeground(QtGui.QColor("#ef6c00"))
        parts = ", ".join(f"{c} {n:,}" for c, n in missing.items())
        if missing and not summary.exact:  # the rows per used set need a pass over the file
            panel.missing_label.setText(
                f"{summary.rows_in_used:,} of {summary.rows_total:,} rows have a missing value in some "
                f"attribute (the run counts those in the used ones as it reads the "
                f"file). Missing cells: {parts}."
            )
        elif missing:
            panel.missing_label.setText(
                f"{summary.rows_in_used:,} of {summary.rows_total:,} rows have a missing value in a used "
                f"attribute. Missing cells: {parts}."
            )
        else:
            panel.missing_label.setText("No missing values.")
        panel.drop_radio.setChecked(p.missing == DROP_MISSING)
        panel.keep_radio.setChecked(p.missing == KEEP_MISSING)
        panel.token_edit.setText(p.missing_token)
        panel.token_edit.setEnabled(p.missing == KEEP_MISSING)
        if current is not None and current in p.columns:
            panel.select_attribute(current)
    finally:
        panel._updating = False
    panel._on_attr_selected()
    panel._refresh_classes()


def refresh_kind(panel, attr: str | None) -> None:
    p = panel.project
    numeric = attr is not None and p.types.get(attr) == NUMERIC
    declared = p.numeric_types.get(attr) if numeric else None
    kind, _, res = (declared or "").partition(":")
    prov = p.provenance_of(pv.key(pv.KIND, attr)) if numeric else None
    panel._updating, was = True, panel._updating
    try:
        panel.kind_combo.setCurrentIndex(max(0, panel.kind_combo.findData(kind or None)))
        panel.resolution_edit.setText(res)
    finally:
        panel._updating = was
    for w in (panel.kind_combo, panel.kind_propose):
        w.setEnabled(numeric)
    panel.resolution_edit.setEnabled(numeric and kind == "continuous")
    panel.kind_confirm.setEnabled(bool(prov is not None and prov.unconfirmed))
    if not numeric:
        panel.kind_note.setText("only numeric attributes have a kind" if attr else "")
        panel.kind_note.setStyleSheet("color:#616161;")
    elif declared is None:
        default = p.default_numeric_type(attr)
        panel.kind_note.setText(
            f"default from the bounds: {default}" if default else "default from the bounds (set public bounds first)"
        )
        panel.kind_note.setStyleSheet("color:#616161;")
    else:
        panel.kind_note.setText(f"{declared}: {prov.source} \u2014 {prov.status()}")
        panel.kind_note.setStyleSheet("color:#ef6c00;" if prov.unconfirmed else "color:#616161;")


def on_attr_selected(panel) -> None:
    attr = panel.current_attribute()
    enabled = attr is not None
    for w in (
        panel.role_combo,
        panel.type_combo,
        panel.lo_edit,
        panel.hi_edit,
        panel.bounds_button,
        panel.propose_button,
    ):
        w.setEnabled(enabled)
    panel._refresh_kind(attr)
    if attr is None:
        panel.attr_name.setText("\u2014")
        return
    p = panel.project
    panel.attr_name.setText(attr)
    panel.role_combo.setCurrentText(p.roles.get(attr, QUASI_IDENTIFIER))
    panel.type_combo.setCurrentText(p.types.get(attr, "categorical"))
    numeric = p.types.get(attr) == NUMERIC
    for w in (panel.lo_edit, panel.hi_edit, panel.bounds_button, panel.propose_button):
        w.setEnabled(numeric)
    b = p.bounds.get(attr)
    panel.lo_edit.setText("" if b is None else bound_text(b[0], grouped=False))
    panel.hi_edit.setText("" if b is None else bound_text(b[1], grouped=False))


def refresh_classes(panel) -> None:
    p = panel.project
    cls = p.class_attribute
    panel.classes_box.setTitle(f"Class values of {cls} (public)" if cls else "Class values (public)")
    for w in (panel.classes_edit, panel.classes_button, panel.classes_propose, panel.classes_clear):
        w.setEnabled(cls is not None)
    if not panel.classes_edit.hasFocus() or p.classes is not None:
        panel.classes_edit.setText(format_class_values(p.classes or []))
    prov = p.provenance_of(panel._classes_key()) if cls else None
    panel.classes_confirm.setEnabled(bool(cls and p.classes is not None and prov.unconfirmed))
    if cls is None:
        text, colour = "choose the class attribute (role 'class') first", "#616161"
    elif p.classes is None:
        text, colour = (
            (
                "not declared: a release lists exactly the public classes, so declare every value "
                f"{cls} can take (type them, or propose them from the data and confirm)"
            ),
            "#c62828",
        )
    else:
        text = f"{prov.source} \u2014 {prov.status()}"
        colour = "#ef6c00" if prov.unconfirmed else "#1b6b3a"
    panel.classes_status.setText(text)
    panel.classes_status.setStyleSheet(f"color:{colour};")


def confirm_types(panel, accept: bool | None = None) -> list[str]:
    """Confirm the column types read from the data, together (``ConfirmTypesDialog``). ``accept``:
    answer without showing the dialog (a driver or a test); None shows it. Returns the confirmed ones."""
    from dpstudio.gui.widgets.confirm_types import ConfirmTypesDialog

    dialog = ConfirmTypesDialog(panel.project, panel)
    panel.types_dialog = dialog
    try:
        if accept is None:
            accepted = dialog.exec() == QtWidgets.QDialog.Accepted
        else:
            accepted = accept
        if not accepted:
            return []
        try:
            return dialog.record()
        except ProjectError as exc:
            panel.show_error(str(exc))
            return []
    finally:
        dialog.deleteLater()
        panel._refresh_declarations()
