"""The Data panel's page, built once (Qt Designer's setupUi pattern): the preview, the attributes table, the
selected attribute's role, type, bounds and kind, the class values and the missing-value choice.
``DataPanel`` (``gui.panels.data``) holds the behaviour."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from dpstudio.gui.widgets.dataframe_model import DataFrameModel
from dpstudio.model.project.project import (
    ROLES,
    TYPES,
)

ENCODINGS = ("utf-8", "latin-1", "cp1252", "utf-16")

Qt = QtCore.Qt

ATTR_COLUMNS = ("Attribute", "Role", "Type", "Public bounds", "Missing", "Distinct")


#: the preview's title: every row of a table in memory, the first rows of one read through DuckDB
PREVIEW_ALL = "Preview (every row; scroll freely)"
PREVIEW_FIRST = "Preview (the first {n:,} rows: the file is read through DuckDB, not into memory)"


def encoding_combo() -> QtWidgets.QComboBox:
    """The text encoding a CSV/TSV file is read with (Excel and Parquet files carry their own)."""
    w = QtWidgets.QComboBox()
    w.setEditable(True)  # any encoding Python knows, e.g. "cp1250"
    w.addItems(ENCODINGS)
    w.setAccessibleName("Text encoding of CSV files")
    w.setToolTip(
        "How the bytes of a CSV/TSV file are read as text (UTF-8 unless the file says otherwise; "
        "older Windows files are often latin-1 or cp1252). Excel and Parquet files ignore it."
    )
    return w


def build_data_page(panel) -> QtWidgets.QWidget:
    page = QtWidgets.QWidget()
    lay = QtWidgets.QVBoxLayout(page)
    head = QtWidgets.QHBoxLayout()
    panel.file_label = QtWidgets.QLabel()
    panel.file_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
    # wraps instead of widening the window (walk 50: a file read through DuckDB made it 1605 px wide)
    panel.file_label.setWordWrap(True)
    panel.file_label.setMinimumWidth(200)
    panel.file_label.setSizePolicy(QtWidgets.QSizePolicy.Ignored, QtWidgets.QSizePolicy.Preferred)
    panel.open_button = QtWidgets.QPushButton("Open another file\u2026")
    panel.open_button.clicked.connect(panel.open_dialog)
    panel.encoding_combo = encoding_combo()
    panel.types_button = QtWidgets.QPushButton("Confirm column types\u2026")
    panel.types_button.setToolTip("Confirm together the column types read from the data's values")
    panel.types_button.clicked.connect(lambda: panel.confirm_types())
    head.addWidget(panel.file_label, 1)
    head.addWidget(panel.types_button)
    head.addWidget(QtWidgets.QLabel("Text encoding:"))
    head.addWidget(panel.encoding_combo)
    head.addWidget(panel.open_button)
    lay.addLayout(head)

    # declarations made for the file opened before: offered, never carried over silently
    panel.reapply_row = QtWidgets.QFrame()
    panel.reapply_row.setStyleSheet("QFrame{background:#fff8e1;}")
    rlay_ = QtWidgets.QHBoxLayout(panel.reapply_row)
    rlay_.setContentsMargins(6, 2, 6, 2)
    panel.reapply_label = QtWidgets.QLabel()
    panel.reapply_label.setWordWrap(True)
    panel.reapply_button = QtWidgets.QPushButton("Use them")
    panel.reapply_button.clicked.connect(lambda: panel.reapply_declarations())
    panel.reapply_dismiss = QtWidgets.QPushButton("No")
    panel.reapply_dismiss.clicked.connect(panel._dismiss_declarations)
    rlay_.addWidget(panel.reapply_label, 1)
    rlay_.addWidget(panel.reapply_button)
    rlay_.addWidget(panel.reapply_dismiss)
    panel.reapply_row.hide()
    lay.addWidget(panel.reapply_row)

    split = QtWidgets.QSplitter(Qt.Horizontal)
    split.setObjectName("dataSplitter")
    panel.preview_model = DataFrameModel()
    panel.preview = QtWidgets.QTableView()
    panel.preview.setModel(panel.preview_model)
    panel.preview.verticalHeader().setDefaultSectionSize(22)
    panel.preview.verticalHeader().setSectionResizeMode(QtWidgets.QHeaderView.Fixed)
    panel.preview.horizontalHeader().setDefaultSectionSize(110)
    # a long column name shows its start, cut at the right (centred, both ends were cut); all of it in
    # the tooltip
    panel.preview.horizontalHeader().setDefaultAlignment(Qt.AlignLeft | Qt.AlignVCenter)
    panel.preview.horizontalHeader().setTextElideMode(Qt.ElideRight)
    panel.preview.setAlternatingRowColors(True)
    box = panel.preview_box = QtWidgets.QGroupBox(PREVIEW_ALL)
    QtWidgets.QVBoxLayout(box).addWidget(panel.preview)
    split.addWidget(box)

    right = QtWidgets.QWidget()
    rlay = QtWidgets.QVBoxLayout(right)
    rlay.setContentsMargins(0, 0, 0, 0)
    attr_box = QtWidgets.QGroupBox("Attributes")
    alay = QtWidgets.QVBoxLayout(attr_box)
    panel.attr_table = QtWidgets.QTableWidget(0, len(ATTR_COLUMNS))
    panel.attr_table.setHorizontalHeaderLabels(ATTR_COLUMNS)
    panel.attr_table.verticalHeader().hide()
    panel.attr_table.setEditTriggers(QtWidgets.QAbstractItemView.NoEditTriggers)
    panel.attr_table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectRows)
    panel.attr_table.setSelectionMode(QtWidgets.QAbstractItemView.SingleSelection)
    panel.attr_table.horizontalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeToContents)
    panel.attr_table.itemSelectionChanged.connect(panel._on_attr_selected)
    panel.attr_table.setMinimumHeight(220)  # about eight attributes, however tall the form below grows
    alay.addWidget(panel.attr_table)
    rlay.addWidget(attr_box, 2)

    form_box = QtWidgets.QGroupBox("Selected attribute")
    form = QtWidgets.QFormLayout(form_box)
    panel.attr_name = QtWidgets.QLabel("\u2014")
    panel.role_combo = QtWidgets.QComboBox()
    panel.role_combo.addItems(ROLES)
    panel.role_combo.activated.connect(panel._on_role)
    panel.type_combo = QtWidgets.QComboBox()
    panel.type_combo.addItems(TYPES)
    panel.type_combo.activated.connect(panel._on_type)
    bounds_row = QtWidgets.QHBoxLayout()
    panel.lo_edit = QtWidgets.QLineEdit()
    panel.lo_edit.setPlaceholderText("lower (inclusive)")
    panel.hi_edit = QtWidgets.QLineEdit()
    panel.hi_edit.setPlaceholderText("upper (exclusive)")
    panel.bounds_button = QtWidgets.QPushButton("Set bounds")
    panel.bounds_button.clicked.connect(panel.apply_bounds)
    panel.propose_button = QtWidgets.QPushButton("Propose from the data")
    panel.propose_button.setToolTip("minimum and maximum of the data: derived from the data, not private")
    panel.propose_button.clicked.connect(lambda: panel.propose_bounds())
    panel.hi_edit.returnPressed.connect(panel.apply_bounds)
    panel.lo_edit.returnPressed.connect(panel.apply_bounds)
    bounds_row.addWidget(panel.lo_edit)
    bounds_row.addWidget(QtWidgets.QLabel("to"))
    bounds_row.addWidget(panel.hi_edit)
    bounds_row.addWidget(panel.bounds_button)
    bounds_row.addWidget(panel.propose_button)
    panel.bounds_note = QtWidgets.QLabel(
        "Bounds are public knowledge [lower, upper): type what the field's documentation says. Proposed "
        "bounds come from the data and stay marked until you confirm them as public."
    )
    panel.bounds_note.setWordWrap(True)
    panel.bounds_note.setStyleSheet("color:#616161;")
    form.addRow("Attribute", panel.attr_name)
    form.addRow("Role", panel.role_combo)
    form.addRow("Type", panel.type_combo)
    form.addRow("Public bounds", bounds_row)
    form.addRow("", panel.bounds_note)
    kind_row = QtWidgets.QHBoxLayout()
    panel.kind_combo = QtWidgets.QComboBox()
    for text, kind in (("default from the bounds", None), ("integer", "integer"), ("continuous", "continuous")):
        panel.kind_combo.addItem(text, kind)
    panel.kind_combo.activated.connect(lambda _i: panel._on_kind())
    panel.resolution_edit = QtWidgets.QLineEdit()
    panel.resolution_edit.setPlaceholderText("resolution")
    panel.resolution_edit.setToolTip(
        "continuous: split points lie on lower bound + k x resolution (empty: the default resolution)"
    )
    panel.resolution_edit.returnPressed.connect(panel._on_kind)
    panel.kind_propose = QtWidgets.QPushButton("Propose from the data")
    panel.kind_propose.setToolTip("integer if every value is a whole number: derived from the data, not private")
    panel.kind_propose.clicked.connect(lambda: panel.propose_numeric_kind())
    panel.kind_confirm = QtWidgets.QPushButton("Confirm public\u2026")
    panel.kind_confirm.clicked.connect(lambda: panel.confirm_input(panel._kind_key()))
    for w in (panel.kind_combo, panel.resolution_edit, panel.kind_propose, panel.kind_confirm):
        kind_row.addWidget(w)
    panel.kind_note = QtWidgets.QLabel("")
    panel.kind_note.setWordWrap(True)
    form.addRow("Numeric kind", kind_row)
    form.addRow("", panel.kind_note)
    rlay.addWidget(form_box)

    class_box = QtWidgets.QGroupBox("Class values (public)")
    panel.classes_box = class_box
    clay = QtWidgets.QVBoxLayout(class_box)
    crow = QtWidgets.QHBoxLayout()
    panel.classes_edit = QtWidgets.QLineEdit()
    panel.classes_edit.setPlaceholderText("value, value, ...")
    panel.classes_edit.setToolTip(
        'Every value the class can take, separated by commas ("a, b" for a value with a comma)'
    )
    panel.classes_edit.returnPressed.connect(lambda: panel.declare_classes())
    panel.classes_button = QtWidgets.QPushButton("Declare")
    panel.classes_button.clicked.connect(lambda: panel.declare_classes())
    panel.classes_propose = QtWidgets.QPushButton("Propose from the data")
    panel.classes_propose.setToolTip("the class values present in the data: derived from the data, not private")
    panel.classes_propose.clicked.connect(lambda: panel.propose_classes())
    panel.classes_clear = QtWidgets.QPushButton("Clear")
    panel.classes_clear.clicked.connect(lambda: panel.clear_classes())
    panel.classes_confirm = QtWidgets.QPushButton("Confirm public\u2026")
    panel.classes_confirm.clicked.connect(lambda: panel.confirm_input(panel._classes_key()))
    for w in (
        panel.classes_edit,
        panel.classes_button,
        panel.classes_propose,
        panel.classes_clear,
        panel.classes_confirm,
    ):
        crow.addWidget(w, 1 if w is panel.classes_edit else 0)
    panel.classes_status = QtWidgets.QLabel("")
    panel.classes_status.setWordWrap(True)
    clay.addLayout(crow)
    clay.addWidget(panel.classes_status)
    rlay.addWidget(class_box)

    miss_box = QtWidgets.QGroupBox("Missing values")
    mlay = QtWidgets.QVBoxLayout(miss_box)
    panel.missing_label = QtWidgets.QLabel()
    panel.missing_label.setWordWrap(True)
    panel.drop_radio = QtWidgets.QRadioButton("Drop rows with a missing value in a used attribute")
    panel.keep_radio = QtWidgets.QRadioButton("Keep them as a value of their own (categorical attributes)")
    token_row = QtWidgets.QHBoxLayout()
    token_row.addWidget(QtWidgets.QLabel("A missing value is written as"))
    panel.token_edit = QtWidgets.QLineEdit()
    panel.token_edit.setMaximumWidth(90)
    panel.token_edit.setAccessibleName("Missing-value token")
    panel.token_edit.setToolTip(
        "The value a kept missing cell takes: the file's own way of writing a missing answer ('?' in UCI "
        "and ARX files; empty cells are read as missing too). Every taxonomy must cover it; the "
        "Anonymize tab, the command line and the re-run scripts use the same."
    )
    token_row.addWidget(panel.token_edit)
    token_row.addStretch(1)
    panel.drop_radio.toggled.connect(panel._on_missing)
    panel.token_edit.editingFinished.connect(panel._on_missing_token)
    mlay.addWidget(panel.missing_label)
    mlay.addWidget(panel.drop_radio)
    mlay.addWidget(panel.keep_radio)
    mlay.addLayout(token_row)
    rlay.addWidget(miss_box)
    scroll = QtWidgets.QScrollArea()  # the right column scrolls on a small screen instead of squeezing
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QtWidgets.QFrame.NoFrame)
    scroll.setWidget(right)
    split.addWidget(scroll)
    split.setStretchFactor(0, 3)
    split.setStretchFactor(1, 2)
    lay.addWidget(split, 1)
    panel.splitter = split
    return page
