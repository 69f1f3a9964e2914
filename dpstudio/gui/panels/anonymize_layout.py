"""The Anonymize panel's three tabs, built once (Qt Designer's setupUi pattern): the run, the teaching view of
the lattice and the side by side with the last DP run. ``AnonymizePanel`` (``gui.panels.anonymize``) holds
the behaviour. Syntactic anonymization is not differentially private: nothing here draws noise or spends
budget."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtWidgets
from PySide6.QtCore import Qt

from dpstudio.gui.widgets.dataframe_model import DataFrameModel
from dpstudio.gui.widgets.lattice_view import CHOSEN, COLOURS, FAILING, MINIMAL, SATISFYING, UNKNOWN, LatticeView
from dpstudio.model.anonymize import compare as ac
from dpstudio.model.anonymize import job as aj
from dpstudio.model.anonymize import teaching as teach

OFF = "off"

# the metrics in words (the command line's names in brackets)
METRIC_WORDS = {
    "dm": "discernibility (dm)",
    "dm-star": "discernibility, no suppression penalty (dm-star)",
    "entropy": "non-uniform entropy (entropy)",
    "cm": "classification error (cm)",
    "avg": "average class size (avg)",
    "loss": "information loss (loss)",
}

# the side-by-side's rows, with one definition each (model.anonymize_compare)
SIDE_NOTE = "nothing compared yet: run an anonymization and a DiffGen-family DP release, then compare"

SIDE_ROWS = (
    ("accuracy", "Share of the test file's rows whose class the tree trained on the output predicts"),
    ("cells", "Every combination of generalized values, empty ones included (Compare's leaf partitions)"),
    ("classes", "Non-empty cells (equivalence classes); for the DP release, noisy size above 0"),
    (
        "discernibility (C_DM)",
        "Discernibility: the sum of squared class sizes (plus n per suppressed row); lower is finer",
    ),
    ("average class size / k (C_AVG)", "Average class size over k: rows / classes / k; 1 is the finest k allows"),
)


def _named(widget: QtWidgets.QWidget, name: str, tip: str = "") -> QtWidgets.QWidget:
    widget.setAccessibleName(name)
    if tip:
        widget.setToolTip(tip)
    return widget


def build_run_tab(panel) -> QtWidgets.QWidget:
    tab = QtWidgets.QWidget()
    row = QtWidgets.QHBoxLayout(tab)
    form_box = QtWidgets.QGroupBox("Settings")
    form = QtWidgets.QFormLayout(form_box)
    panel.qi_list = _named(
        QtWidgets.QListWidget(),
        "quasi-identifiers",
        "the project's quasi-identifiers; a lattice search needs a taxonomy for each one",
    )
    panel.qi_list.setMaximumHeight(140)
    form.addRow("Quasi-identifiers", panel.qi_list)
    panel.k_spin = _named(QtWidgets.QSpinBox(), "k", "every released class has at least k rows")
    panel.k_spin.setRange(1, 1_000_000)
    panel.k_spin.setValue(5)
    form.addRow("k", panel.k_spin)
    panel.sensitive_combo = _named(
        QtWidgets.QComboBox(),
        "sensitive attribute",
        "the attribute l-diversity protects (and t-closeness, unless it names its own)",
    )
    form.addRow("Sensitive attribute", panel.sensitive_combo)
    panel.l_kind = _named(QtWidgets.QComboBox(), "l-diversity kind")
    panel.l_kind.addItems([OFF, *aj.L_KINDS])
    panel.l_value = _named(QtWidgets.QDoubleSpinBox(), "l", "l of l-diversity (distinct and recursive: whole)")
    panel.l_value.setRange(1, 1000)
    panel.l_value.setValue(2)
    panel.c_value = _named(QtWidgets.QDoubleSpinBox(), "c of recursive l-diversity")
    panel.c_value.setRange(0.01, 1000)
    panel.c_value.setValue(3)
    l_row = QtWidgets.QHBoxLayout()
    for w in (panel.l_kind, QtWidgets.QLabel("l"), panel.l_value, QtWidgets.QLabel("c"), panel.c_value):
        l_row.addWidget(w)
    form.addRow("l-diversity", l_row)
    panel.t_kind = _named(QtWidgets.QComboBox(), "t-closeness kind")
    panel.t_kind.addItems([OFF, *aj.T_KINDS])
    panel.t_value = _named(
        QtWidgets.QDoubleSpinBox(), "t", "largest distance of a class's sensitive distribution to the whole table's"
    )
    panel.t_value.setRange(0, 1)
    panel.t_value.setDecimals(3)
    panel.t_value.setSingleStep(0.05)
    panel.t_value.setValue(0.2)
    panel.t_sensitive_combo = _named(
        QtWidgets.QComboBox(),
        "t-closeness attribute",
        "the attribute t-closeness protects (by default the sensitive attribute above, which l-diversity protects)",
    )
    t_row = QtWidgets.QHBoxLayout()
    t_row.addWidget(panel.t_kind)
    t_row.addWidget(QtWidgets.QLabel("t"))
    t_row.addWidget(panel.t_value)
    t_row.addWidget(QtWidgets.QLabel("on"))
    t_row.addWidget(panel.t_sensitive_combo, 1)
    form.addRow("t-closeness", t_row)
    panel.suppression = _named(
        QtWidgets.QDoubleSpinBox(), "suppression limit", "share of rows that may be removed (MaxSup = floor(x n))"
    )
    panel.suppression.setRange(0, 0.99)
    panel.suppression.setDecimals(3)
    panel.suppression.setSingleStep(0.01)
    form.addRow("Suppression limit", panel.suppression)
    panel.algorithm_combo = _named(QtWidgets.QComboBox(), "algorithm")
    panel.algorithm_combo.addItems(list(aj.ALGORITHMS))
    form.addRow("Algorithm", panel.algorithm_combo)
    panel.metric_combo = _named(
        QtWidgets.QComboBox(),
        "metric",
        "dm: discernibility; dm-star: sum of squared class "
        "sizes; entropy: non-uniform entropy; cm: classification (the class attribute); "
        "avg: average class size; loss",
    )
    for key in aj.METRICS:
        panel.metric_combo.addItem(METRIC_WORDS[key], key)
    form.addRow("Metric", panel.metric_combo)
    buttons = QtWidgets.QHBoxLayout()
    panel.run_button = _named(QtWidgets.QPushButton("Run"), "run anonymization")
    panel.run_button.clicked.connect(panel.run)
    panel.export_button = _named(QtWidgets.QPushButton("Export..."), "export anonymized table")
    panel.export_button.setEnabled(False)
    panel.export_button.clicked.connect(panel._export_clicked)
    buttons.addWidget(panel.run_button)
    buttons.addWidget(panel.export_button)
    form.addRow(buttons)
    form_box.setMaximumWidth(430)
    row.addWidget(form_box)

    right = QtWidgets.QVBoxLayout()
    panel.summary = QtWidgets.QLabel("Run to see the anonymized table.")
    panel.summary.setWordWrap(True)
    panel.summary.setTextInteractionFlags(Qt.TextSelectableByMouse)
    right.addWidget(panel.summary)
    panel.result_tabs = _named(QtWidgets.QTabWidget(), "anonymization results")
    lattice_tab = QtWidgets.QWidget()
    lt = QtWidgets.QVBoxLayout(lattice_tab)
    legend = "  ".join(
        f'<span style="color:{COLOURS[s] if s != UNKNOWN else "#808080"}">&#9679;</span> {s}'
        for s in (CHOSEN, MINIMAL, SATISFYING, FAILING, UNKNOWN)
    )
    panel.legend = QtWidgets.QLabel(legend)
    lt.addWidget(panel.legend)
    panel.lattice = LatticeView()
    panel.lattice.node_clicked.connect(panel.show_node)
    lt.addWidget(panel.lattice, 1)
    panel.node_info = QtWidgets.QLabel("Click a node to see its levels and metric.")
    panel.node_info.setWordWrap(True)
    panel.node_info.setTextInteractionFlags(Qt.TextSelectableByMouse)
    lt.addWidget(panel.node_info)
    for two_lines in (panel.summary, panel.node_info):
        two_lines.setMinimumHeight(2 * two_lines.fontMetrics().lineSpacing() + 6)
    panel.result_tabs.addTab(lattice_tab, "Lattice")
    panel.size_plot = pg.PlotWidget(background="w")
    panel.size_plot.setLabel("bottom", "equivalence class size (rows)")
    panel.size_plot.setLabel("left", "classes")
    panel.size_plot.setAccessibleName("equivalence class size histogram")
    panel.size_bars = pg.BarGraphItem(x=[], height=[], width=0.8, brush="#4a7fc1", pen=None)
    panel.size_plot.addItem(panel.size_bars)
    panel.result_tabs.addTab(panel.size_plot, "Class sizes")
    panel.table_view = _named(QtWidgets.QTableView(), "anonymized table preview")
    panel.table_model = DataFrameModel(parent=panel)
    panel.table_view.setModel(panel.table_model)
    panel.result_tabs.addTab(panel.table_view, "Table")
    right.addWidget(panel.result_tabs, 1)
    row.addLayout(right, 1)
    return tab


def build_teaching_tab(panel) -> QtWidgets.QWidget:
    """Three sections, in a scroll area: each keeps the height it needs to be read whole."""

    scroll = QtWidgets.QScrollArea()
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QtWidgets.QFrame.NoFrame)
    tab = QtWidgets.QWidget()
    scroll.setWidget(tab)
    lay = QtWidgets.QVBoxLayout(tab)
    attack = QtWidgets.QGroupBox("The homogeneity attack on the seed's 2-anonymous table (Sweeney)")
    al = QtWidgets.QHBoxLayout(attack)
    panel.sweeney = _named(QtWidgets.QTableWidget(len(teach.SWEENEY_ROWS), len(teach.SWEENEY_COLUMNS)), "Sweeney table")
    panel.sweeney.setHorizontalHeaderLabels(list(teach.SWEENEY_COLUMNS))
    panel.sweeney.setVerticalHeaderLabels([f"t{i + 1}" for i in range(len(teach.SWEENEY_ROWS))])
    panel.sweeney.setEditTriggers(QtWidgets.QAbstractItemView.NoEditTriggers)
    for i, r in enumerate(teach.SWEENEY_ROWS):
        for j, v in enumerate(r):
            panel.sweeney.setItem(i, j, QtWidgets.QTableWidgetItem(str(v)))
    panel.sweeney.resizeColumnsToContents()
    panel.sweeney.verticalHeader().setDefaultSectionSize(panel.sweeney.fontMetrics().height() + 4)
    panel.sweeney.setMinimumHeight(
        panel.sweeney.horizontalHeader().sizeHint().height()
        + 4
        + len(teach.SWEENEY_ROWS) * (panel.sweeney.fontMetrics().height() + 4)
    )
    al.addWidget(panel.sweeney, 1)
    steps_col = QtWidgets.QVBoxLayout()
    panel.steps = teach.homogeneity_steps()
    panel.step_title = QtWidgets.QLabel()
    panel.step_title.setStyleSheet("font-weight: bold;")
    panel.step_text = QtWidgets.QLabel()
    panel.step_text.setWordWrap(True)
    panel.step_text.setMinimumWidth(320)
    nav = QtWidgets.QHBoxLayout()
    panel.back_button = _named(QtWidgets.QPushButton("Back"), "previous attack step")
    panel.next_button = _named(QtWidgets.QPushButton("Next"), "next attack step")
    panel.back_button.clicked.connect(lambda: panel.show_step(panel.step - 1))
    panel.next_button.clicked.connect(lambda: panel.show_step(panel.step + 1))
    nav.addWidget(panel.back_button)
    nav.addWidget(panel.next_button)
    steps_col.addWidget(panel.step_title)
    panel.step_text.setAlignment(Qt.AlignTop | Qt.AlignLeft)
    steps_col.addWidget(panel.step_text, 1)
    steps_col.addLayout(nav)
    al.addLayout(steps_col, 1)
    lay.addWidget(attack, 3)

    contrast = QtWidgets.QGroupBox(
        "Neighbours: remove one record (the settings of the Anonymize tab, on the loaded data)"
    )
    cl = QtWidgets.QHBoxLayout(contrast)
    left = QtWidgets.QVBoxLayout()
    ctl = QtWidgets.QHBoxLayout()
    panel.contrast_eps = _named(
        QtWidgets.QDoubleSpinBox(),
        "contrast epsilon",
        "epsilon of the DP count drawn for comparison (densities only: nothing is spent)",
    )
    panel.contrast_eps.setRange(0.01, 10)
    panel.contrast_eps.setValue(1.0)
    panel.contrast_button = _named(QtWidgets.QPushButton("Remove one record and run again"), "run neighbour contrast")
    panel.contrast_button.clicked.connect(panel.run_contrast)
    ctl.addWidget(QtWidgets.QLabel("DP count at epsilon"))
    ctl.addWidget(panel.contrast_eps)
    ctl.addWidget(panel.contrast_button)
    left.addLayout(ctl)
    panel.contrast_text = QtWidgets.QLabel(
        "A syntactic output is a deterministic function of the data: removing one record changes it in a "
        "way anyone comparing the two outputs sees. A DP output's distribution moves by at most e^epsilon."
    )
    panel.contrast_text.setWordWrap(True)
    panel.contrast_text.setTextInteractionFlags(Qt.TextSelectableByMouse)
    left.addWidget(panel.contrast_text, 1)
    cl.addLayout(left, 1)
    panel.contrast_plot = pg.PlotWidget(background="w")
    panel.contrast_plot.setAccessibleName("DP count densities on D and D'")
    panel.contrast_plot.setMouseEnabled(False, False)  # the wheel scrolls the tab (seen: it zoomed the plot)
    panel.contrast_plot.setLabel("bottom", "noisy count of the removed record's class")
    panel.contrast_plot.addLegend(offset=(5, 5))
    cl.addWidget(panel.contrast_plot, 1)
    lay.addWidget(contrast, 2)

    loaded = QtWidgets.QGroupBox(
        "On the loaded data: background knowledge and complementary releases (the settings of the Anonymize tab)"
    )
    ll = QtWidgets.QVBoxLayout(loaded)
    row = QtWidgets.QHBoxLayout()
    row.addWidget(QtWidgets.QLabel("sensitive attribute the attacker wants:"))
    panel.attack_attribute = _named(
        QtWidgets.QComboBox(),
        "attacked sensitive attribute",
        "the attribute whose value the attacker wants to learn (not a quasi-identifier)",
    )
    row.addWidget(panel.attack_attribute)
    panel.attack_button = _named(QtWidgets.QPushButton("Show on this data"), "run attacks on the loaded data")
    panel.attack_button.clicked.connect(panel.run_attacks)
    row.addWidget(panel.attack_button)
    row.addStretch(1)
    ll.addLayout(row)
    texts = QtWidgets.QHBoxLayout()
    panel.background_text = QtWidgets.QLabel(
        "Background knowledge: how many facts about the sensitive value an attacker needs, class by class."
    )
    panel.join_text = QtWidgets.QLabel(
        "Complementary releases: the quasi-identifiers split in two, each half "
        "released k-anonymous, the two joined row by row."
    )
    for lab in (panel.background_text, panel.join_text):
        lab.setWordWrap(True)
        lab.setTextFormat(Qt.PlainText)
        lab.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        lab.setTextInteractionFlags(Qt.TextSelectableByMouse)
        texts.addWidget(lab, 1)
    ll.addLayout(texts, 1)
    loaded.setMinimumHeight(18 * panel.fontMetrics().height())
    lay.addWidget(loaded, 2)
    attack.setMinimumHeight(panel.sweeney.minimumHeight() + 3 * panel.fontMetrics().height())
    contrast.setMinimumHeight(13 * panel.fontMetrics().height())
    panel.attacks = None
    panel.qi_list.itemChanged.connect(lambda _item: panel._fill_attack_attributes())
    panel._fill_attack_attributes()
    panel.step = 0
    panel.show_step(0)
    return scroll


def build_side_tab(panel) -> QtWidgets.QWidget:
    tab = QtWidgets.QWidget()
    lay = QtWidgets.QVBoxLayout(tab)
    intro = QtWidgets.QLabel(
        "The last anonymization next to the project's last DP run on the same data. Accuracy: a tree "
        "trained on each output, tested on the test file you choose (\u201cTest file...\u201d; \u201cCompare with "
        "the last DP run\u201d uses the test file last scored here or in Compare; on the bundled Adult data, "
        "its test sample), as the Compare panel does. Cells, classes, C_DM and C_AVG need no test file. " + ac.DP_NOTE
    )
    intro.setWordWrap(True)
    lay.addWidget(intro)
    row = QtWidgets.QHBoxLayout()
    panel.side_button = _named(QtWidgets.QPushButton("Compare with the last DP run"), "compare with DP run")
    panel.side_button.clicked.connect(lambda: panel._side_clicked(None))
    panel.side_file_button = _named(QtWidgets.QPushButton("Test file..."), "side by side test file")
    panel.side_file_button.clicked.connect(panel._side_file_clicked)
    row.addWidget(panel.side_button)
    row.addWidget(panel.side_file_button)
    row.addStretch(1)
    lay.addLayout(row)
    panel.side_table = _named(QtWidgets.QTableWidget(len(SIDE_ROWS), 2), "side by side figures")
    panel.side_table.setHorizontalHeaderLabels(["anonymization (exact)", "DP release (noisy counts)"])
    panel.side_table.setVerticalHeaderLabels([r for r, _ in SIDE_ROWS])
    for i, (_, tip) in enumerate(SIDE_ROWS):
        panel.side_table.verticalHeaderItem(i).setToolTip(tip)
    panel.side_table.setEditTriggers(QtWidgets.QAbstractItemView.NoEditTriggers)
    panel.side_table.horizontalHeader().setSectionResizeMode(QtWidgets.QHeaderView.Stretch)
    panel.side_table.setMaximumHeight(
        panel.side_table.horizontalHeader().sizeHint().height()
        + 4
        + len(SIDE_ROWS) * panel.side_table.verticalHeader().defaultSectionSize()
    )
    lay.addWidget(panel.side_table)
    panel.side_note = QtWidgets.QLabel(SIDE_NOTE)
    panel.side_note.setWordWrap(True)
    panel.side_note.setTextInteractionFlags(Qt.TextSelectableByMouse)
    panel.side_note.setAlignment(Qt.AlignTop | Qt.AlignLeft)
    lay.addWidget(panel.side_note, 1)
    panel.side: tuple | None = None
    panel._side_run = None  # the DP run the side by side describes
    return tab
