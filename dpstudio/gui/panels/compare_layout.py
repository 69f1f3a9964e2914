"""The Compare panel's widgets and their connections, built once (Qt Designer's setupUi pattern): the error
curves and their measure, the verdict, the Monte-Carlo bands, the scatter and the classification row.
``ComparePanel`` (``gui.panels.compare``) holds the behaviour."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from dpstudio.gui.widgets.error_plot import ErrorPlot
from dpstudio.model.compare import comparison as cmp

SCATTER_TITLE = "per node: noisy (x) against consistent (y)"

#: the accuracy axis shows 0 to 1 with this share of room around (the tick label "1.0" was cut)
ACCURACY_PADDING = 0.06


#: why Compare has no classification check after a histogram run
CLASSIFICATION_ABSENT = (
    "Classification (accuracy on a test file) is for table releases (DiffGen, DiffGen with consistency, "
    "MAXGDDP): a histogram of one attribute has no class to predict."
)


def build(panel, project, parent=None):
    panel.project = project
    panel.curves: cmp.Curves | None = None
    panel.mc_curves: cmp.Curves | None = None
    panel.scores: cmp.ClassificationScores | None = None
    panel.worker = None
    panel._runner = None

    outer = QtWidgets.QVBoxLayout(panel)
    panel.mode_label = QtWidgets.QLabel()
    panel.mode_label.setWordWrap(True)
    outer.addWidget(panel.mode_label)
    top = QtWidgets.QHBoxLayout()
    panel.source = QtWidgets.QLabel("no run yet")
    panel.source.setWordWrap(True)
    top.addWidget(panel.source, 1)
    top.addWidget(QtWidgets.QLabel("runs"))
    panel.runs_box = QtWidgets.QSpinBox()
    panel.runs_box.setRange(2, 1000)
    panel.runs_box.setValue(30)
    top.addWidget(panel.runs_box)
    panel.mc_button = QtWidgets.QPushButton("Monte-Carlo bands")
    panel.mc_button.setToolTip("simulate the same mechanism many times (simulation noise, not a release)")
    panel.cancel_button = QtWidgets.QPushButton("Cancel")
    panel.cancel_button.setEnabled(False)
    panel.progress = QtWidgets.QProgressBar()
    panel.progress.setMaximumWidth(200)
    panel.progress.setVisible(False)
    top.addWidget(panel.mc_button)
    top.addWidget(panel.cancel_button)
    top.addWidget(panel.progress)
    outer.addLayout(top)

    split = QtWidgets.QSplitter(QtCore.Qt.Horizontal)
    panel.plot = ErrorPlot()
    # fixed width: an axis first drawn empty is too narrow for the decade labels that come later
    panel.plot.getAxis("left").setWidth(58)
    panel.plot.legend.setLabelTextSize("8pt")
    split.addWidget(panel.plot)
    right = QtWidgets.QSplitter(QtCore.Qt.Vertical)
    panel.scatter = pg.PlotWidget(background="w")
    panel.scatter.setMenuEnabled(False)
    panel.scatter.setLabel("bottom", "noisy count")
    panel.scatter.setLabel("left", "consistent count")
    panel.scatter.setTitle(SCATTER_TITLE, size="9pt")
    panel.scatter_item = pg.ScatterPlotItem(size=5, pen=None, brush=pg.mkBrush("#4a7fc1"))
    panel.diag = pg.PlotCurveItem(pen=pg.mkPen("#999999", style=QtCore.Qt.DashLine))
    panel.scatter.addItem(panel.diag)
    panel.scatter.addItem(panel.scatter_item)
    right.addWidget(panel.scatter)

    cbox = QtWidgets.QGroupBox("Classification (DiffGen family)")
    clay = QtWidgets.QVBoxLayout(cbox)
    row = QtWidgets.QHBoxLayout()
    panel.test_button = QtWidgets.QPushButton("Test file...")
    panel.test_button.setToolTip("a labelled test table with the same attributes (e.g. adult.test)")
    row.addWidget(panel.test_button)
    panel.class_label = QtWidgets.QLabel("accuracy of a tree trained on the release")
    panel.class_label.setWordWrap(True)
    row.addWidget(panel.class_label, 1)
    clay.addLayout(row)
    panel.acc_plot = pg.PlotWidget(background="w")
    panel.acc_plot.setMenuEnabled(False)
    panel.acc_plot.setMouseEnabled(x=False, y=False)
    panel.acc_plot.setLabel("left", "accuracy")
    panel.acc_bars = pg.BarGraphItem(x=[], height=[], width=0.6, brushes=[])
    panel.acc_plot.addItem(panel.acc_bars)
    panel.acc_plot.getAxis("bottom").setTicks([[(0, "majority"), (1, "release"), (2, "raw data")]])
    panel.acc_plot.setYRange(0.0, 1.0, padding=ACCURACY_PADDING)  # room above 1.0 for its tick label
    clay.addWidget(panel.acc_plot)
    right.addWidget(cbox)
    panel.class_box = cbox
    # said where the classification box would be (walk finding: it vanished after a histogram, unexplained)
    panel.class_absent = QtWidgets.QLabel(CLASSIFICATION_ABSENT)
    panel.class_absent.setWordWrap(True)
    panel.class_absent.setStyleSheet("color:#616161;")
    panel.class_absent.setVisible(False)
    right.addWidget(panel.class_absent)
    split.addWidget(right)
    split.setSizes([650, 450])
    outer.addWidget(split, 1)
    panel.verdict = QtWidgets.QLabel()
    panel.verdict.setWordWrap(True)
    panel.verdict.setStyleSheet("font-weight:bold;")
    outer.addWidget(panel.verdict)
    panel.note = QtWidgets.QLabel(cmp.SIMULATION_LABEL)
    panel.note.setWordWrap(True)
    panel.note.setStyleSheet("color:#8a5a00;")
    outer.addWidget(panel.note)

    panel.mc_button.clicked.connect(lambda: panel.run_monte_carlo(panel.runs_box.value()))
    panel.cancel_button.clicked.connect(panel.cancel)
    panel.test_button.clicked.connect(panel._choose_test_file)
    panel._on_project = lambda _f: panel._project_changed()
    project.subscribe(panel._on_project, "run", "mode")
    panel.refresh()
