"""The full-domain generalization lattice drawn (SYNTACTIC.md K1): one dot per node, by height (bottom: no
generalization), coloured by what the search found: chosen, minimal satisfying, satisfying, not satisfying,
not evaluated. Clicking a dot emits ``node_clicked(levels)``.

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

    def clear(self) -> None:
        self.scene().clear()
        self.items, self.status, self.selected = {}, {}, None

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
        for n in nodes:
            state = status.get(n, UNKNOWN)
            p = pos[n]
            item = self.scene().addEllipse(
                p.x() - DOT / 2,
                p.y() - DOT / 2,
                DOT,
                DOT,
                QtGui.QPen(QtGui.QColor("#404040"), 1),
                QtGui.QBrush(QtGui.QColor(COLOURS[state])),
            )
            item.setZValue(1)
            item.setData(0, n)
            item.setToolTip(f"levels {n}: {state}")
            self.items[n] = item
            self.status[n] = state
        self.setSceneRect(self.scene().itemsBoundingRect().adjusted(-20, -20, 20, 20))
        self.fitInView(self.sceneRect(), Qt.KeepAspectRatio)

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
        if self.items:
            self.fitInView(self.sceneRect(), Qt.KeepAspectRatio)
