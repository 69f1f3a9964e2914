"""The Stream panel's widgets and their connections, built once (Qt Designer's setupUi pattern): the source
row, the mechanism and its settings, the chart, the ledger, the export row and the comparison.
``StreamPanel`` (``gui.panels.stream``) holds the behaviour."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from dpstudio.algorithms.stream_runs import MECHANISMS
from dpstudio.core.stream_partition import MODES
from dpstudio.gui.widgets.error_plot import ErrorPlot
from dpstudio.gui.widgets.stream_plot import StreamPlot
from dpstudio.model.stream.compare import AXES, MEASURES
from dpstudio.model.stream.session import ILINET, StreamSource, bundled_ilinet
from dpstudio.model.stream.view import NOT_DP

LITERAL_ASM = "asm-literal"

# the mechanisms and groupings in words (the command line's names in brackets; the tooltips say more)
MECHANISM_WORDS = {
    "swm": "sliding windows, each a fresh query (swm)",
    "tpm": "each count noised once (tpm)",
    "asm": "adaptive sampling, ASM-DP (asm)",
    "binary": "binary counting, per event (binary)",
    "fast": "Kalman filter sampling, FAST (fast)",
    "bd": "budget distribution (bd)",
    "ba": "budget absorption (ba)",
    "uniform": "uniform budget per step (uniform)",
}

GROUPING_WORDS = {
    "noisefirst": "groups of similar values, as many as help (noisefirst)",
    "seed": "a fixed number of groups (seed)",
    "approx": "a fixed number of groups, faster (approx)",
    "none": "no grouping (none)",
}


def build(panel) -> None:
    outer = QtWidgets.QVBoxLayout(panel)
    panel.guarantee_label = QtWidgets.QLabel()
    panel.guarantee_label.setObjectName("streamGuarantee")
    panel.guarantee_label.setWordWrap(True)
    panel.guarantee_label.setStyleSheet("background:#e8f5e9; padding:4px;")
    outer.addWidget(panel.guarantee_label)

    form = QtWidgets.QGridLayout()
    panel.source_label = QtWidgets.QLabel("no stream: open a counts file")
    panel.ilinet_button = QtWidgets.QPushButton("ILINet national")
    panel.ilinet_button.setToolTip("The bundled CDC ILINet national series from 2002-W40 (T = 1163 weeks)")
    panel.ilinet_button.setAccessibleName("Use the bundled ILINet national stream")
    panel.ilinet_button.setEnabled(bundled_ilinet() is not None)
    panel.ilinet_button.clicked.connect(lambda: panel.set_source(StreamSource(ILINET, bundled_ilinet())))
    panel.open_button = QtWidgets.QPushButton("Open\u2026")
    panel.open_button.setAccessibleName("Open a stream file")
    panel.open_button.setToolTip(
        "One count per timestamp (one per line, a CSV with a 'count' column, or .npy), a table with a column of "
        "counts, or an event log with a person and a time per event"
    )
    panel.open_button.clicked.connect(panel.open_dialog)
    form.addWidget(QtWidgets.QLabel("Stream:"), 0, 0)
    form.addWidget(panel.source_label, 0, 1, 1, 3)
    form.addWidget(panel.ilinet_button, 0, 4)
    form.addWidget(panel.open_button, 0, 5)

    panel.window_box = QtWidgets.QSpinBox()
    panel.window_box.setRange(1, 1_000_000)
    panel.window_box.setValue(52)
    panel.window_box.setAccessibleName("Window size w")
    panel.mechanism_combo = QtWidgets.QComboBox()
    for m, text in MECHANISMS.items():
        panel.mechanism_combo.addItem(MECHANISM_WORDS[m], m)
        panel.mechanism_combo.setItemData(panel.mechanism_combo.count() - 1, text, QtCore.Qt.ToolTipRole)
    panel.mechanism_combo.addItem(f"literal ASM ({NOT_DP})", LITERAL_ASM)
    panel.mechanism_combo.setCurrentIndex(panel.mechanism_combo.findData("tpm"))
    panel.mechanism_combo.setAccessibleName("Mechanism")
    panel.grouping_combo = QtWidgets.QComboBox()
    for g in MODES:
        panel.grouping_combo.addItem(GROUPING_WORDS[g], g)
    panel.grouping_combo.setAccessibleName("Grouping of each window")
    panel.recommendation = None  # the last model.stream_recommend.Recommendation shown
    panel.eps_edit = QtWidgets.QLineEdit("1")
    panel.eps_edit.setAccessibleName("Epsilon")
    panel.eps_edit.setToolTip(
        "This stream release's budget, spent over the whole horizon T. It is separate from the table "
        "release's epsilon named in the banner (the Algorithm panel's), and charged to this stream's own "
        "lifetime total."
    )
    panel.eps_edit.setMaximumWidth(90)
    panel.run_button = QtWidgets.QPushButton("Run")
    panel.run_button.setAccessibleName("Run the stream")
    panel.run_button.clicked.connect(panel.run)
    for col, (label, w) in enumerate(
        (
            ("Window w:", panel.window_box),
            ("Mechanism:", panel.mechanism_combo),
            ("Grouping:", panel.grouping_combo),
            ("stream \u03b5:", panel.eps_edit),
        )
    ):
        box = QtWidgets.QHBoxLayout()
        box.addWidget(QtWidgets.QLabel(label))
        box.addWidget(w)
        form.addLayout(box, 1, col if col < 3 else 3)
    form.addWidget(panel.run_button, 1, 5)
    outer.addLayout(form)
    panel.mechanism_combo.currentIndexChanged.connect(lambda _i: (panel._update_guarantee(), panel._update_compare()))
    panel.window_box.valueChanged.connect(lambda _v: panel._update_compare())

    split = QtWidgets.QSplitter(QtCore.Qt.Horizontal)
    split.setObjectName("streamSplitter")
    left = QtWidgets.QWidget()
    llay = QtWidgets.QVBoxLayout(left)
    llay.setContentsMargins(0, 0, 0, 0)
    panel.plot = StreamPlot()
    llay.addWidget(panel.plot, 1)
    play = QtWidgets.QHBoxLayout()
    panel.play_button = QtWidgets.QPushButton("Play")
    panel.play_button.setAccessibleName("Play the stream")
    panel.play_button.clicked.connect(panel.toggle_play)
    panel.slider = QtWidgets.QSlider(QtCore.Qt.Horizontal)
    panel.slider.setAccessibleName("Playback position")
    panel.slider.valueChanged.connect(panel.show_step)
    panel.step_label = QtWidgets.QLabel("no run yet")
    play.addWidget(panel.play_button)
    play.addWidget(panel.slider, 1)
    play.addWidget(panel.step_label)
    llay.addLayout(play)
    split.addWidget(left)

    right = QtWidgets.QWidget()
    rlay = QtWidgets.QVBoxLayout(right)
    rlay.setContentsMargins(0, 0, 0, 0)
    panel.ledger_title = QtWidgets.QLabel("Ledger")
    rlay.addWidget(panel.ledger_title)
    panel.ledger_list = QtWidgets.QListWidget()
    panel.ledger_list.setAccessibleName("Ledger of the stream run")
    rlay.addWidget(panel.ledger_list, 1)
    panel.export_button = QtWidgets.QPushButton("Export release\u2026")
    panel.export_button.setAccessibleName("Export the stream release")
    panel.export_button.clicked.connect(panel.export_dialog)
    rlay.addWidget(panel.export_button)
    panel.export_note = QtWidgets.QLabel()
    panel.export_note.setWordWrap(True)
    rlay.addWidget(panel.export_note)
    panel.error_label = QtWidgets.QLabel()  # a figure with its explanation: wrapped, never cut
    panel.error_label.setWordWrap(True)
    panel.error_label.setAccessibleName("Estimated error of one window")
    rlay.addWidget(panel.error_label)

    compare = QtWidgets.QGroupBox("Compare: error by mechanism (ungrouped windows)")
    clay = QtWidgets.QVBoxLayout(compare)
    choose = QtWidgets.QHBoxLayout()
    panel.measure_combo = QtWidgets.QComboBox()
    for key, text in MEASURES.items():
        panel.measure_combo.addItem(text, key)
    panel.measure_combo.setAccessibleName("Compare measure")
    panel.axis_combo = QtWidgets.QComboBox()
    for key, text in AXES.items():
        panel.axis_combo.addItem(f"against {text}", key)
    panel.axis_combo.setAccessibleName("Compare x axis")
    choose.addWidget(panel.measure_combo, 1)
    choose.addWidget(panel.axis_combo)
    clay.addLayout(choose)
    panel.compare_plot = ErrorPlot(ylabel="squared error, window", xlabel="epsilon")
    panel.compare_plot.setToolTip(
        "Up: the squared error of one published window (summed over its w positions), or the mean absolute "
        "error of one count, by the measure chosen above"
    )
    panel.compare_plot.setMinimumHeight(180)
    panel.compare_plot.legend.setLabelTextSize("7pt")
    clay.addWidget(panel.compare_plot, 1)
    # the chart's key and the advice are read, not hovered: wrapped, in a details area that scrolls when
    # the advice is longer than its lines (never cut to one line)
    panel.compare_note = QtWidgets.QLabel(
        "Solid: analytic (public inputs only). Dashed: measured with "
        "simulation noise against the true counts: simulation, not a release "
        "(teaching mode only)."
    )
    panel.recommend_label = QtWidgets.QLabel()
    panel.recommend_label.setAccessibleName("Recommended mechanism and why")
    words = QtWidgets.QWidget()
    wlay = QtWidgets.QVBoxLayout(words)
    wlay.setContentsMargins(0, 0, 4, 0)
    for label in (panel.compare_note, panel.recommend_label):
        label.setWordWrap(True)
        label.setTextInteractionFlags(QtCore.Qt.TextSelectableByMouse)
        wlay.addWidget(label)
    wlay.addStretch(1)
    panel.compare_words = QtWidgets.QScrollArea()
    panel.compare_words.setWidget(words)
    panel.compare_words.setWidgetResizable(True)
    panel.compare_words.setFrameShape(QtWidgets.QFrame.NoFrame)
    panel.compare_words.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarAlwaysOff)
    panel.compare_words.setFixedHeight(panel.fontMetrics().lineSpacing() * 3 + 4)
    panel.compare_words.setAccessibleName("The chart's key and the recommended mechanism")
    clay.addWidget(panel.compare_words)
    panel.measured: dict | None = None  # {"axis", "points", "errors"} of the last simulation
    panel.measure_combo.currentIndexChanged.connect(lambda _i: panel._update_compare())
    panel.axis_combo.currentIndexChanged.connect(lambda _i: panel._update_compare())
    panel.eps_edit.editingFinished.connect(panel._update_compare)
    panel.measure_button = QtWidgets.QPushButton("Measure (simulation)")
    panel.measure_button.setAccessibleName("Measure the errors by simulation")
    panel.measure_button.setToolTip("Simulation noise against the true counts: teaching mode only, not a release")
    panel.measure_button.clicked.connect(panel.measure)
    clay.addWidget(panel.measure_button)
    rlay.addWidget(compare, 3)
    split.addWidget(right)
    split.setSizes([700, 420])
    outer.addWidget(split, 1)

    panel.timer = QtCore.QTimer(panel)
    panel.timer.setInterval(40)
    panel.timer.timeout.connect(panel._tick)
    panel._update_export()
