"""The Watch panel's widgets and their connections, built once (Qt Designer's setupUi pattern): the tree and
icicle views, the step chart, the number line, a node's explanation, the noise chart and the ledger.
``WatchPanel`` (``gui.panels.watch``) holds the behaviour."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from dpstudio.gui.widgets.candidates_chart import CandidatesChart
from dpstudio.gui.widgets.icicle_view import IcicleView
from dpstudio.gui.widgets.ledger_view import LedgerView
from dpstudio.gui.widgets.noise_chart import NoiseChart
from dpstudio.gui.widgets.split_line import SplitLine
from dpstudio.gui.widgets.status_line import StatusLine
from dpstudio.gui.widgets.tree_view import (
    PALETTE_COLOURS,
    STATE_NAMES,
    TreeView,
)
from dpstudio.model.watch.replay import Replay

TICK_MS = 30

#: a whole replay at the default speed (x1) takes this long, whatever the size of the run
REPLAY_SECONDS = 30.0

SPEEDS = (0.25, 0.5, 1, 2, 4, 10, 50)  # multiples of the default speed

#: the node details' text while no node is selected (at start, and when a new run forgets the selection)
DETAILS_HINT = "click a node to see its values"
NEIGHBOUR_OFF = (
    "the neighbour view (this count on the data and on the data without one record) needs the true "
    "counts: teaching mode, a finished DiffGen run and a node with a noisy count"
)

VIEWS = ("Tree", "Icicle", "Both")  # the tree, the icicle of the released table, or both (tree above)


def build(panel, project=None, parent=None):
    panel.project = project
    panel.replay = Replay()
    panel.replay.free_later = True  # a new run or a seek to the start frees the last records in pieces
    panel.teaching: bool | None = None
    panel.epsilon: float | None = None
    panel.playing = False
    panel.live = False
    panel.follow = False  # while live: jump to the newest event on every tick
    panel.speed_factor = 1.0  # multiple of the default speed (``default_speed``)
    panel._speed_fixed: float | None = None  # steps per second set by ``set_speed``
    panel._target = 0  # playback position aimed at (reached over several ticks on huge steps)
    panel._carry = 0.0
    panel._last_tick = None

    outer = QtWidgets.QVBoxLayout(panel)
    # controls
    bar = QtWidgets.QHBoxLayout()
    panel.btn_start = QtWidgets.QToolButton(text="|<")
    panel.btn_back = QtWidgets.QToolButton(text="<")
    panel.btn_play = QtWidgets.QToolButton(text="Play")
    panel.btn_fwd = QtWidgets.QToolButton(text=">")
    panel.btn_end = QtWidgets.QToolButton(text=">|")
    for b, tip in (
        (panel.btn_start, "to the start"),
        (panel.btn_back, "one step back"),
        (panel.btn_play, "play / pause (Space)"),
        (panel.btn_fwd, "one step forward"),
        (panel.btn_end, "to the end"),
    ):
        b.setToolTip(tip)
        bar.addWidget(b)
    panel.btn_play.setShortcut("Space")
    panel.slider = QtWidgets.QSlider(QtCore.Qt.Horizontal)
    panel.slider.setRange(0, 0)
    panel.slider.setAccessibleName("Position in the run's events")
    bar.addWidget(panel.slider, 1)
    bar.addWidget(QtWidgets.QLabel("speed"))
    panel.speed_box = QtWidgets.QComboBox()
    for s in SPEEDS:
        panel.speed_box.addItem(f"x{s:g}" + (f" ({REPLAY_SECONDS:g} s)" if s == 1 else ""), s)
    panel.speed_box.setCurrentIndex(SPEEDS.index(1))
    panel.speed_box.setToolTip(
        f"x1 plays the whole run in about {REPLAY_SECONDS:g} s, one selection step or one level of the tree at a time"
    )
    bar.addWidget(panel.speed_box)
    panel.chk_true = QtWidgets.QCheckBox("show true counts")
    panel.chk_true.setToolTip("teaching mode only: overlay the true counts")
    bar.addWidget(panel.chk_true)
    panel.view_box = QtWidgets.QComboBox()
    panel.view_box.addItems(VIEWS)
    panel.view_box.setCurrentText("Both")
    panel.view_box.setAccessibleName("Watch view: tree, icicle or both")
    panel.view_box.setToolTip(
        "Tree: the partition tree; Icicle: one row per depth, each cell as wide as "
        "the released counts below it; Both: the two, one above the other"
    )
    bar.addWidget(panel.view_box)
    panel.btn_fit = QtWidgets.QToolButton(text="Fit")
    panel.btn_fit.setToolTip("zoom to the whole tree")
    bar.addWidget(panel.btn_fit)
    outer.addLayout(bar)

    status = QtWidgets.QHBoxLayout()
    panel.status = StatusLine("no run yet: run an algorithm from the Algorithm panel")
    status.addWidget(panel.status, 1)
    panel.mark = QtWidgets.QLabel("TEACHING: NOT A RELEASE")
    panel.mark.setStyleSheet("background:#f0a020;color:black;font-weight:bold;padding:2px 8px;")
    panel.mark.setVisible(False)
    status.addWidget(panel.mark)
    legend = " ".join(
        f"<span style='color:{PALETTE_COLOURS[k]}'>&#9679;</span> {STATE_NAMES[k]}" for k in sorted(STATE_NAMES)
    )
    panel.legend = QtWidgets.QLabel(legend)
    status.addWidget(panel.legend)
    outer.addLayout(status)

    split = QtWidgets.QSplitter(QtCore.Qt.Horizontal)
    panel.tree = TreeView()
    panel.icicle = IcicleView()
    panel.views = QtWidgets.QSplitter(QtCore.Qt.Vertical)
    panel.views.addWidget(panel.tree)
    panel.views.addWidget(panel.icicle)
    panel.views.setSizes([430, 230])
    split.addWidget(panel.views)
    right = QtWidgets.QSplitter(QtCore.Qt.Vertical)
    panel.candidates = CandidatesChart()
    right.addWidget(panel.candidates)
    panel.split_line = SplitLine()  # a numeric split point's candidates on a number line (teaching only)
    right.addWidget(panel.split_line)
    panel.details = QtWidgets.QLabel(DETAILS_HINT)
    panel.details.setWordWrap(True)
    panel.details.setAlignment(QtCore.Qt.AlignTop | QtCore.Qt.AlignLeft)
    panel.details.setTextInteractionFlags(QtCore.Qt.TextSelectableByMouse)
    details_box = QtWidgets.QWidget()
    dl = QtWidgets.QVBoxLayout(details_box)
    dl.setContentsMargins(0, 0, 0, 0)
    # the explanation scrolls in its pane, never clipped mid-sentence (walk finding at 1280x800)
    panel.details_scroll = QtWidgets.QScrollArea()
    panel.details_scroll.setWidgetResizable(True)
    panel.details_scroll.setFrameShape(QtWidgets.QFrame.NoFrame)
    panel.details_scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarAlwaysOff)
    panel.details_scroll.setWidget(panel.details)
    dl.addWidget(panel.details_scroll, 1)
    panel.btn_neighbour = QtWidgets.QPushButton("Remove one record...")
    panel.btn_neighbour.setAccessibleName("Neighbour view: remove one record")
    panel.btn_neighbour.setEnabled(False)
    panel.btn_neighbour.setToolTip(NEIGHBOUR_OFF)
    panel.btn_step_neighbour = QtWidgets.QPushButton("Remove one record from this step...")
    panel.btn_step_neighbour.setAccessibleName("Neighbour view of this selection step")
    panel.btn_step_neighbour.setToolTip(
        "each candidate's chance on the data and on the data without one record "
        "(teaching mode, a specialization step of a finished run)"
    )
    panel.btn_step_neighbour.setVisible(False)
    buttons = QtWidgets.QHBoxLayout()
    buttons.addWidget(panel.btn_neighbour)
    buttons.addWidget(panel.btn_step_neighbour)
    buttons.addStretch(1)
    dl.addLayout(buttons)
    right.addWidget(details_box)
    panel.noise_chart = NoiseChart()
    panel.noise_chart.setVisible(False)
    right.addWidget(panel.noise_chart)
    panel.ledger = LedgerView()
    right.addWidget(panel.ledger)
    panel.ledger.setMinimumHeight(110)
    right.setChildrenCollapsible(False)  # every pane stays visible (the ledger was collapsed at 1280x800)
    right.setSizes([240, 110, 120, 120, 200])  # one size per pane: the chart, number line, details, noise, ledger
    split.addWidget(right)
    split.setSizes([700, 420])
    outer.addWidget(split, 1)

    panel.timer = QtCore.QTimer(panel)
    panel.timer.setInterval(TICK_MS)
    panel.timer.timeout.connect(panel._on_timer)

    panel.btn_start.clicked.connect(panel.seek_start)
    panel.btn_back.clicked.connect(panel.step_back)
    panel.btn_play.clicked.connect(panel.toggle_play)
    panel.btn_fwd.clicked.connect(panel.step_forward)
    panel.btn_end.clicked.connect(panel.seek_end)
    panel.slider.valueChanged.connect(panel._on_slider)
    panel.speed_box.currentIndexChanged.connect(lambda _i: panel.set_speed_factor(panel.speed_box.currentData()))
    panel.chk_true.toggled.connect(panel.tree.set_show_true)
    panel.chk_true.toggled.connect(lambda _on: panel._selected is not None and panel._show_node(panel._selected))
    panel.btn_fit.clicked.connect(panel.tree.fit)
    panel.btn_fit.clicked.connect(panel.icicle.fit)
    panel.tree.nodeSelected.connect(panel._show_node)
    panel.tree.nodeSelected.connect(panel.icicle.select)
    panel.icicle.nodeSelected.connect(panel._on_icicle_select)
    panel.view_box.currentTextChanged.connect(panel.set_view)
    panel.btn_neighbour.clicked.connect(panel.open_neighbour_view)
    panel.btn_step_neighbour.clicked.connect(panel.open_step_neighbour_view)
    panel.neighbour_dialog = None
    panel.step_neighbour_dialog = None
    panel._selected: int | None = None
    panel.explanation = None  # the CountExplanation shown for the selected node
    panel._explained = None
    panel._steps_cache = (0, False)
    panel._step_key = None
    panel._ledger_key = None
    panel._side_drawn = 0.0  # when the step chart and the ledger were last drawn while following
    panel._side_queue = []  # side panels still to draw while following, one per pass of the event loop
    panel._discarding = False  # the undo records of the run shown before are being freed (``_discard_pass``)
    panel._side_timer = QtCore.QTimer(panel)
    panel._side_timer.setSingleShot(True)
    panel._side_timer.timeout.connect(panel._on_side_timer)
    panel._source_events = None

    if project is not None and hasattr(project, "subscribe"):
        project.subscribe(panel._on_project, "run", "mode", "algorithm")
        if getattr(project, "events", None):
            panel._load_from_project()
        else:
            panel._set_meta(None, None)
    panel._refresh()
