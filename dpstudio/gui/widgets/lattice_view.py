"""The full-domain generalization lattice drawn (SYNTACTIC.md K1): one dot per node, by height (bottom: no
generalization), coloured by what the search found: chosen, minimal satisfying, satisfying, not satisfying,
not evaluated. Clicking a dot emits ``node_clicked(levels)``.

Readable at any size: each row is labelled with its generalization height; dots keep their size on screen
whatever the zoom (a lattice of thousands of nodes is drawn as a band of dots, not a faint line); the chosen
node and the minimal ones are drawn larger, above the others, and the path from the bottom (no
generalization) to the chosen node is drawn in the chosen node's colour. The view opens fitted to the
lattice (never smaller than a readable scale, centred on the chosen node) and the mouse wheel zooms.

What it shows comes from a syntactic anonymization (exact, deterministic, no DP guarantee): the panel that
owns it carries the label.
"""

from __future__ import annotations

import itertools

from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtCore import Qt

CHOSEN, MINIMAL, SATISFYING, FAILING, UNKNOWN = "chosen", "minimal", "satisfying", "not satisfying", "not evaluated"
COLOURS = {CHOSEN: "#1f5fbf", MINIMAL: "#1b7a3a", SATISFYING: "#8fd19e", FAILING: "#d9d9d9", UNKNOWN: "#ffffff"}
EDGES_UP_TO = 600  # above this many nodes the edges would only blacken the picture
DOT, GAP_X, GAP_Y = 14.0, 22.0, 46.0
MARKED = {CHOSEN: 2.0, MINIMAL: 1.5}  # the dot's size, times DOT, of the nodes that matter
MIN_SCALE = 0.35  # below this the rows' labels and the gaps between dots are lost: scroll instead


class LatticeView(QtWidgets.QGraphicsView):
    """``show_lattice(heights, status)`` with ``status``: levels -> one of the states above."""

    node_clicked = QtCore.Signal(tuple)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setScene(QtWidgets.QGraphicsScene(self))
        self.setRenderHint(QtGui.QPainter.Antialiasing)
        self.setDragMode(QtWidgets.QGraphicsView.ScrollHandDrag)
        self.setAccessibleName("generalization lattice")
        self.setToolTip("the generalization lattice: click a node to see its levels and metric")
        self.items: dict[tuple, QtWidgets.QGraphicsEllipseItem] = {}
        self.status: dict[tuple, str] = {}
        self.selected: tuple | None = None
        self.chosen: tuple | None = None
        self.zoomed = False  # the user zoomed: a resize keeps their zoom
        self.height_labels: list[str] = []
        self.path_items: list[QtWidgets.QGraphicsLineItem] = []

    def clear(self) -> None:
        self.scene().clear()
        self.items, self.status, self.selected, self.chosen, self.zoomed = {}, {}, None, None, False
        self.height_labels: list[str] = []
        self.path_items: list[QtWidgets.QGraphicsLineItem] = []

    def show_lattice(self, heights, status: dict) -> None:
        self.clear()
        nodes = list(itertools.product(*[range(h + 1) for h in heights]))
        by_height: dict[int, list] = {}
        for n in nodes:
            by_height.setdefault(sum(n), []).append(n)
        widest = max(len(v) for v in by_height.values())
        pos = {}
        for h, row in by_height.items():
            x0 = (widest - len(row)) * GAP_X / 2
            for i, n in enumerate(sorted(row)):
                pos[n] = QtCore.QPointF(x0 + i * GAP_X, -h * GAP_Y)
        if len(nodes) <= EDGES_UP_TO:
            pen = QtGui.QPen(QtGui.QColor("#b0b0b0"), 0.8)
            for n in nodes:
                for j in range(len(n)):
                    if n[j] < heights[j]:
                        up = n[:j] + (n[j] + 1,) + n[j + 1 :]
                        self.scene().addLine(QtCore.QLineF(pos[n], pos[up]), pen)
        # the rows' heights, drawn at the view's left edge whatever the zoom or scroll (drawForeground)
        self.height_labels = [f"height {h}" for h in sorted(by_height)]
        chosen = next((n for n in nodes if status.get(n) == CHOSEN), None)
        if chosen is not None:  # the path from no generalization to the chosen node, one level at a time
            pen = QtGui.QPen(QtGui.QColor(COLOURS[CHOSEN]), 2.5)
            pen.setCosmetic(True)
            step = tuple(0 for _ in heights)
            for j in range(len(heights)):
                while step[j] < chosen[j]:
                    up = step[:j] + (step[j] + 1,) + step[j + 1 :]
                    line = self.scene().addLine(QtCore.QLineF(pos[step], pos[up]), pen)
                    line.setZValue(0.5)
                    self.path_items.append(line)
                    step = up
        for n in nodes:
            state = status.get(n, UNKNOWN)
            size = DOT * MARKED.get(state, 1.0)
            item = self.scene().addEllipse(
                -size / 2,
                -size / 2,
                size,
                size,
                QtGui.QPen(QtGui.QColor("#404040"), 1),
                QtGui.QBrush(QtGui.QColor(COLOURS[state])),
            )
            item.setPos(pos[n])
            item.setFlag(QtWidgets.QGraphicsItem.ItemIgnoresTransformations)  # the same size on screen at any zoom
            item.setZValue(3 if state == CHOSEN else 2 if state == MINIMAL else 1)
            item.setData(0, n)
            item.setToolTip(f"levels {n} (height {sum(n)}): {state}")
            self.items[n] = item
            self.status[n] = state
        self.setSceneRect(self.scene().itemsBoundingRect().adjusted(-20, -20, 20, 20))
        self.chosen = chosen
        self.fit()

    def fit(self) -> None:
        """The whole lattice in view, or, when that would make it unreadable, the readable scale centred on
        the chosen node (scroll or drag to see the rest; the wheel zooms)."""
        self.resetTransform()
        rect = self.sceneRect()
        view = self.viewport().rect()
        if rect.width() <= 0 or rect.height() <= 0 or view.width() <= 0:
            return
        scale = min(view.width() / rect.width(), view.height() / rect.height())
        if scale >= MIN_SCALE:
            self.fitInView(rect, Qt.KeepAspectRatio)
            return
        self.scale(MIN_SCALE, MIN_SCALE)
        if self.chosen is not None:
            self.centerOn(self.items[self.chosen])

    def drawForeground(self, painter: QtGui.QPainter, rect) -> None:  # noqa: N802
        """Each row's height at the left edge of the view, on a light backing, at its row's height on screen."""
        if not self.items:
            return
        painter.save()
        painter.resetTransform()
        fm = painter.fontMetrics()
        for h, text in enumerate(self.height_labels):
            y = self.mapFromScene(QtCore.QPointF(0, -h * GAP_Y)).y()
            if not -10 <= y <= self.viewport().height() + 10:
                continue
            box = QtCore.QRect(2, y - fm.height() // 2, fm.horizontalAdvance(text) + 6, fm.height())
            painter.fillRect(box, QtGui.QColor(255, 255, 255, 210))
            painter.setPen(QtGui.QColor("#404040"))
            painter.drawText(box, Qt.AlignCenter, text)
        painter.restore()

    def wheelEvent(self, event: QtGui.QWheelEvent) -> None:  # noqa: N802
        if not self.items:
            return super().wheelEvent(event)
        factor = 1.25 if event.angleDelta().y() > 0 else 0.8
        self.setTransformationAnchor(QtWidgets.QGraphicsView.AnchorUnderMouse)
        self.scale(factor, factor)
        self.zoomed = True
        event.accept()

    def node_point(self, levels) -> QtCore.QPoint:
        """Where node ``levels`` is in the viewport (for tests and keyboard users of the panel)."""
        return self.mapFromScene(self.items[tuple(levels)].sceneBoundingRect().center())

    def select(self, levels) -> None:
        if self.selected in self.items:
            self.items[self.selected].setPen(QtGui.QPen(QtGui.QColor("#404040"), 1))
        self.selected = tuple(levels)
        if self.selected in self.items:
            self.items[self.selected].setPen(QtGui.QPen(QtGui.QColor("#e07000"), 3))

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:
        item = self.itemAt(event.position().toPoint())
        levels = item.data(0) if item is not None else None
        if event.button() == Qt.LeftButton and levels is not None:
            self.select(levels)
            self.node_clicked.emit(tuple(levels))
            event.accept()
            return
        super().mousePressEvent(event)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.items and not self.zoomed:
            self.fit()
