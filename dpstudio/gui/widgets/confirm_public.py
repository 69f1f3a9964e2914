"""Asking the data owner to confirm that one input derived from the data is public knowledge.

The same question wherever a derived input is shown (Data panel, Export panel): the proposed statement
(``provenance.default_wording``) in an editable box; the user's words are recorded verbatim in the project,
the release sidecar and the report (``Project.confirm_public``).
"""

from __future__ import annotations

from PySide6 import QtWidgets

from dpstudio.model.project import provenance as pv
from dpstudio.model.project.project import ProjectError


def confirm_public_input(parent, project, key: str, wording: str | None = None) -> tuple[bool, str]:
    """Record that the derived input ``key`` is public knowledge, in the user's words (asked for when
    ``wording`` is None). Returns (recorded, message): message is why not ("" when cancelled)."""
    if wording is None:
        proposed = pv.default_wording(key, project.provenance_of(key))
        wording, ok = QtWidgets.QInputDialog.getMultiLineText(
            parent,
            "Confirm a public input",
            f"The {pv.describe(key)} was derived from the data. Publish it only "
            "if it is public knowledge. Your statement (recorded in the project, sidecar and report):",
            proposed,
        )
        if not ok:
            return False, ""
    try:
        project.confirm_public(key, wording)
    except ProjectError as exc:
        return False, str(exc)
    return True, ""
