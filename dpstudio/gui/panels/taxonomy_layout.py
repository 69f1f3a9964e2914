"""The Taxonomy panel's widgets and their connections, built once (Qt Designer's setupUi pattern): the
attribute list with its coverage badges, the editor, the import, generate and merge actions.
``TaxonomyPanel`` (``gui.panels.taxonomy``) holds the behaviour."""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtWidgets

from dpstudio.core.taxonomy_merge import Merged
from dpstudio.gui.widgets.elided_label import ErrorLine
from dpstudio.gui.widgets.taxonomy_editor import TaxonomyEditor
from dpstudio.gui.widgets.yes_no import exec_modal
from dpstudio.model.project.project import (
    Project,
)
from dpstudio.model.project.provenance import DERIVED_NOTE

Qt = QtCore.Qt


def build(panel, project: Project, parent=None):
    panel.project = project
    panel.exec_dialog = exec_modal  # how questions are shown (a test or the demo answers them)
    panel.last_error = ""
    panel.kept: list[str] = []  # attributes whose tree made here an import left in place
    # what each merge did, in words, by attribute (a folder import starts it afresh and reports it)
    panel.merges: dict[str, str] = {}
    panel.merged: dict[str, Merged] = {}  # the last merge per attribute (what it added)
    panel.last_merge = ""  # what the last merge did, in words (also the window's message)
    panel.editors: dict[str, TaxonomyEditor] = {}
    panel._coverage: dict[str, tuple] = {}  # attr -> (taxonomy, frame, uncovered) it was computed for
    panel._pushing = False

    # left: attributes with badges, coverage details
    panel.attr_list = QtWidgets.QListWidget()
    panel.attr_list.setAccessibleName("Attributes and whether their taxonomy covers the data")
    # two lines per attribute (name, then its badge), wrapped: readable at any width, never cut off
    panel.attr_list.setWordWrap(True)
    panel.attr_list.setTextElideMode(Qt.ElideNone)
    panel.attr_list.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
    panel.attr_list.setMinimumWidth(300)
    panel.attr_list.setVerticalScrollMode(QtWidgets.QAbstractItemView.ScrollPerPixel)
    panel.attr_list.currentItemChanged.connect(panel._on_current)
    cov_box = QtWidgets.QGroupBox("Coverage of the data")
    clay = QtWidgets.QVBoxLayout(cov_box)
    panel.badge_label = QtWidgets.QLabel()
    panel.badge_label.setWordWrap(True)
    panel.uncovered_list = QtWidgets.QListWidget()
    panel.uncovered_list.setToolTip("Values in the data that no leaf covers (private: shown only here)")
    panel.uncovered_list.setSelectionMode(QtWidgets.QAbstractItemView.ExtendedSelection)
    panel.add_uncovered_button = QtWidgets.QPushButton("Add the selected values as leaves")
    panel.add_uncovered_button.setToolTip(
        "Adds the values selected in the list (all of them when none is selected) as leaves under the node "
        "selected in the tree (the root when none is). The tree then holds values read from the data: it "
        "is marked derived until you confirm it is public knowledge."
    )
    panel.add_uncovered_button.clicked.connect(panel._add_uncovered_clicked)
    clay.addWidget(panel.badge_label)
    clay.addWidget(panel.uncovered_list, 1)
    clay.addWidget(panel.add_uncovered_button)
    left = QtWidgets.QWidget()
    llay = QtWidgets.QVBoxLayout(left)
    llay.setContentsMargins(0, 0, 0, 0)
    attr_box = QtWidgets.QGroupBox("Attributes")
    QtWidgets.QVBoxLayout(attr_box).addWidget(panel.attr_list)
    llay.addWidget(attr_box, 3)
    llay.addWidget(cov_box, 2)

    # right: the editor of the selected attribute, file and generator tools
    panel.title = QtWidgets.QLabel()
    panel.source_label = QtWidgets.QLabel()
    panel.source_label.setWordWrap(True)
    panel.grid_label = QtWidgets.QLabel()
    panel.grid_label.setWordWrap(True)
    panel.grid_label.setAccessibleName("How the chosen algorithm uses this numeric taxonomy")
    panel.grid_label.hide()
    panel.editor_stack = QtWidgets.QStackedWidget()
    panel.empty_label = QtWidgets.QLabel(
        "Open data first (Data panel), then give each attribute a taxonomy: "
        "import a file, generate intervals, or build one here."
    )
    panel.empty_label.setWordWrap(True)
    panel.empty_label.setAlignment(Qt.AlignCenter)
    panel.editor_stack.addWidget(panel.empty_label)

    files = QtWidgets.QHBoxLayout()
    panel.import_button = QtWidgets.QPushButton("Import\u2026")
    panel.import_button.setToolTip("Read a taxonomy file: ARX CSV, brace, JSON or indented text")
    panel.import_button.clicked.connect(panel._import_clicked)
    panel.import_folder_button = QtWidgets.QPushButton("Import folder\u2026")
    panel.import_folder_button.setToolTip("Read one file per attribute from a folder (named after the attributes)")
    panel.import_folder_button.clicked.connect(panel._import_folder_clicked)
    panel.export_button = QtWidgets.QPushButton("Export\u2026")
    panel.export_button.clicked.connect(panel._export_clicked)
    panel.flat_button = QtWidgets.QPushButton("Flat tree from the data's values")
    panel.flat_button.setToolTip("Root -> every value in the data (" + DERIVED_NOTE + ")")
    panel.flat_button.clicked.connect(lambda: panel.flat_from_data())
    panel.grouped_button = QtWidgets.QPushButton("Two levels")
    panel.grouped_button.setToolTip(
        "Root -> about sqrt(n) groups of the data's values in name order -> the values: a run refines one "
        "group at a time instead of splitting into every value at once (" + DERIVED_NOTE + ")"
    )
    panel.grouped_button.clicked.connect(lambda: panel.grouped_from_data())
    for b in (panel.import_button, panel.import_folder_button, panel.export_button, panel.flat_button):
        files.addWidget(b)
    files.addWidget(panel.grouped_button)
    files.addStretch(1)

    gen_box = QtWidgets.QGroupBox("Generate numeric intervals (equal width)")
    glay = QtWidgets.QHBoxLayout(gen_box)
    panel.gen_lo = QtWidgets.QLineEdit()
    panel.gen_lo.setPlaceholderText("lower")
    panel.gen_hi = QtWidgets.QLineEdit()
    panel.gen_hi.setPlaceholderText("upper")
    panel.gen_fanout = QtWidgets.QSpinBox()
    panel.gen_fanout.setRange(2, 64)
    panel.gen_fanout.setValue(2)
    panel.gen_depth = QtWidgets.QSpinBox()
    panel.gen_depth.setRange(0, 12)
    panel.gen_depth.setValue(3)
    panel.gen_button = QtWidgets.QPushButton("Generate")
    panel.gen_button.clicked.connect(panel._generate_clicked)
    for text, w in (
        ("from", panel.gen_lo),
        ("to", panel.gen_hi),
        ("fan-out", panel.gen_fanout),
        ("depth", panel.gen_depth),
    ):
        glay.addWidget(QtWidgets.QLabel(text))
        glay.addWidget(w)
    glay.addWidget(panel.gen_button)

    panel.offered: Path | None = None
    panel.offer_bar = QtWidgets.QWidget()
    olay = QtWidgets.QHBoxLayout(panel.offer_bar)
    olay.setContentsMargins(0, 0, 0, 0)
    panel.offer_label = QtWidgets.QLabel()
    panel.offer_label.setWordWrap(True)
    panel.offer_button = QtWidgets.QPushButton("Import them")
    panel.offer_button.setAccessibleName("Import the taxonomy folder found beside the data")
    panel.offer_button.clicked.connect(panel._import_offered)
    olay.addWidget(panel.offer_label, 1)
    olay.addWidget(panel.offer_button)
    panel.offer_bar.hide()
    panel.last_summary = ""
    panel.summary_label = QtWidgets.QLabel()
    panel.summary_label.setWordWrap(True)
    panel.summary_label.setAccessibleName("Summary of the last folder import")
    panel.summary_label.hide()

    panel.error_label = ErrorLine(colour="#c62828", bold=True)
    panel.error_label.hide()
    right = QtWidgets.QWidget()
    rlay = QtWidgets.QVBoxLayout(right)
    rlay.setContentsMargins(0, 0, 0, 0)
    rlay.addWidget(panel.title)
    rlay.addWidget(panel.source_label)
    rlay.addWidget(panel.grid_label)
    rlay.addLayout(files)
    rlay.addWidget(panel.offer_bar)
    rlay.addWidget(panel.summary_label)
    rlay.addWidget(panel.editor_stack, 1)
    rlay.addWidget(gen_box)
    rlay.addWidget(panel.error_label)

    split = QtWidgets.QSplitter(Qt.Horizontal)
    split.setObjectName("taxonomySplitter")
    split.addWidget(left)
    split.addWidget(right)
    split.setStretchFactor(0, 1)
    split.setStretchFactor(1, 2)
    lay = QtWidgets.QVBoxLayout(panel)
    lay.addWidget(split)
    panel.splitter = split

    project.subscribe(panel._on_project, "data", "roles", "types", "bounds", "taxonomies", "algorithm", "missing")
    panel.refresh()
