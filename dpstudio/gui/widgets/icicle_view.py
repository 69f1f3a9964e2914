"""The icicle view of a run's tree: one row per depth, each cell as wide as the released counts below it.

The layout is ``dpstudio.model.watch.icicle_layout`` (only noisy, consistent and released numbers: fit for
release mode). Cells are coloured like the tree view's nodes (created, noised, consistent, released);
the selected node has a red outline and its path to the root a dark one. Labels (the generalized value or
interval and the released size) go wherever they fit.

Mouse: a click selects a cell (``nodeSelected(node_id)``, as the tree view); a double click zooms to the
cell's extent; the wheel zooms around the pointer; ``fit()`` shows the whole width again. Painting draws
only the cells at least half a pixel wide inside the view, one ``drawRects`` call per colour.
"""

from __future__ import annotations

import time

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from dpstudio.gui.pacing import PACING_DELAY_MS, note_busy, put_off
from dpstudio.gui.widgets.tree_view import PALETTE_COLOURS, SELECTED
from dpstudio.model.watch.icicle_layout import icicle_layout
from dpstudio.model.watch.replay import CREATED

ROW_MIN, ROW_MAX = 6, 46  # rows shrink to show every depth; labels need LABEL_MIN_ROW
LABEL_MIN_ROW = 14  # rows lower than this carry no labels
LAYOUT_INTERVAL_S = 0.3


def _short(label: str, limit: int = 22) -> str:
    return label if len(label) <= limit else label[: limit - 2] + ".."


def _size_text(v: float) -> str:
    return f"{v:,.0f}"


def _pixel_runs(px0: np.ndarray, depth: np.ndarray, status: np.ndarray, mask: np.ndarray, width: int) -> list:
    """Cells thinner than half a pixel (4,096 bins on 700 pixels): one pixel per row and pixel column they fall
    in (the status of the first such cell there), consecutive pixels of one status merged: [(x, depth, width,
    status)], at most a row's width per depth, so the paint stays cheap however many cells there are."""
    idx = np.flatnonzero(mask)
    if not idx.size:
        return []
    w = max(int(width), 1)
    pix = np.clip(np.floor(px0[idx]).astype(np.int64), 0, w - 1)
    key = depth[idx].astype(np.int64) * w + pix
    keys, first = np.unique(key, return_index=True)
    codes = status[idx][first]
    brk = np.flatnonzero((np.diff(keys) != 1) | (np.diff(codes) != 0) | (np.diff(keys // w) != 0)) + 1
    starts = np.concatenate([[0], brk])
    ends = np.concatenate([brk, [keys.size]])
    return [(int(keys[a] % w), int(keys[a] // w), int(b - a), int(codes[a])) for a, b in zip(starts, ends)]


class IcicleView(QtWidgets.QWidget):
    """Paints a ``TreeState`` as an icicle; ``set_state`` keeps the latest, ``redraw`` on demand."""

    nodeSelected = QtCore.Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setAccessibleName("Icicle view of the released tree")
        self.setToolTip(
            "each row is a depth of the tree; a cell is as wide as the released counts below it. "
            "Click to select, double-click to zoom in, Fit to see all"
        )
        self.setMinimumHeight(80)
        self.setMouseTracking(False)
        self.state = None
        self.layout_data = None
        self._layout_key = None
        self._layout_time = 0.0
        self._catch_up = False
        self._layout_due = False  # a layout pass is scheduled (``set_state``)
        self.selected: int | None = None
        self.waiting = False
        self.view = (0.0, 1.0)  # visible part of [0, 1]
        self.labels_drawn: list[str] = []  # the texts of the last paint (tests read them)
        self._font = QtGui.QFont("Sans", 8)
        self._colours = {k: QtGui.QColor(c) for k, c in PALETTE_COLOURS.items()}

    # -- public API ---------------------------------------------------------------------------------
    def set_state(self, state) -> None:
        """Keep the latest state. A new layout is made in a pass of the event loop of its own, before the
        paint (on a tree of tens of thousands of nodes each takes several milliseconds)."""
        self.state = state
        if self.isVisible():
            self._lay_out_then_paint()

    def set_waiting(self, waiting: bool) -> None:
        """While a run is live the icicle is not laid out; it says so and is drawn when the run ends."""
        if waiting != self.waiting:
            self.waiting = waiting
            self._lay_out_then_paint()

    def _lay_out_then_paint(self) -> None:
        st = self.state
        if self.waiting or st is None or (id(st), st.structure_version, st.position) == self._layout_key:
            self.update()
        elif not self._layout_due:
            self._layout_due = True
            QtCore.QTimer.singleShot(PACING_DELAY_MS, self, self._layout_pass)

    def _layout_pass(self) -> None:
        if put_off(self, "layout", self._layout_pass):  # other long work ended in this pass: a little later
            return
        self._layout_due = False
        if self.waiting:
            self.update()
            return
        self._layout(throttle=True)
        note_busy()
        QtCore.QTimer.singleShot(PACING_DELAY_MS, self, self.update)  # the paint in a later pass

    def select(self, node_id: int | None) -> None:
        self.selected = node_id
        self.update()

    def fit(self) -> None:
        self.view = (0.0, 1.0)
        self.update()

    def zoom_to(self, node_id: int) -> None:
        L = self._layout()
        pos = None if L is None else L.position_of(node_id)
        if pos is not None and L.x1[pos] > L.x0[pos]:
            pad = 0.02 * (L.x1[pos] - L.x0[pos])
            self.view = (max(0.0, L.x0[pos] - pad), min(1.0, L.x1[pos] + pad))
            self.update()

    def cell_rect(self, node_id: int) -> QtCore.QRectF | None:
        """Where the cell of ``node_id`` is painted (widget coordinates), None if it is not in view."""
        L = self._layout()
        pos = None if L is None else L.position_of(node_id)
        if pos is None:
            return None
        x0, x1 = self._to_px(L.x0[pos]), self._to_px(L.x1[pos])
        rh = self._row_height(L)
        return QtCore.QRectF(x0, L.depth[pos] * rh, x1 - x0, rh)

    # -- geometry -----------------------------------------------------------------------------------
    def _layout(self, throttle: bool = False):
        """The layout of the current state. ``throttle`` (painting): while a replay moves, at most one new
        layout every ``LAYOUT_INTERVAL_S`` (a 67,000-node tree takes about 0.15 s) while the old one still
        lines up with the state (nodes were only added); a paint after the interval catches up."""
        st = self.state
        if st is None or not st.order:
            return None
        key = (id(st), st.structure_version, st.position)
        if key != self._layout_key:
            now = time.perf_counter()
            if throttle and self._still_lines_up(st) and now - self._layout_time < LAYOUT_INTERVAL_S:
                if not self._catch_up:
                    self._catch_up = True
                    QtCore.QTimer.singleShot(int(LAYOUT_INTERVAL_S * 1000), self._after_interval)
                return self.layout_data
            self.layout_data = icicle_layout(st)
            self._layout_key = key
            self._layout_time = time.perf_counter()
        return self.layout_data

    def _still_lines_up(self, st) -> bool:
        """The last layout is a prefix of the state's nodes (the replay only added nodes since)."""
        L = self.layout_data
        if L is None or self._layout_key is None or self._layout_key[0] != id(st):
            return False
        k = L.ids.size
        return 0 < k <= len(st.order) and st.order[k - 1] == L.ids[k - 1] and st.order[0] == L.ids[0]

    def _after_interval(self) -> None:
        self._catch_up = False
        self.update()

    def _row_height(self, L) -> float:
        return float(np.clip(self.height() / max(L.height, 1), ROW_MIN, ROW_MAX))

    def _to_px(self, x) -> np.ndarray:
        a, b = self.view
        return (np.asarray(x) - a) / max(b - a, 1e-12) * self.width()

    def _to_x(self, px: float) -> float:
        a, b = self.view
        return a + px / max(self.width(), 1) * (b - a)

    def node_at_point(self, pt: QtCore.QPointF) -> int | None:
        L = self._layout()
        if L is None:
            return None
        depth = int(pt.y() // self._row_height(L))
        return L.node_at(self._to_x(pt.x()), depth)

    # -- events -------------------------------------------------------------------------------------
    def mousePressEvent(self, ev: QtGui.QMouseEvent) -> None:
        if ev.button() == QtCore.Qt.LeftButton:
            nid = self.node_at_point(ev.position())
            if nid is not None:
                self.select(nid)
                self.nodeSelected.emit(nid)
        super().mousePressEvent(ev)

    def mouseDoubleClickEvent(self, ev: QtGui.QMouseEvent) -> None:
        nid = self.node_at_point(ev.position())
        if nid is not None:
            self.zoom_to(nid)

    def wheelEvent(self, ev: QtGui.QWheelEvent) -> None:
        factor = 0.8 if ev.angleDelta().y() > 0 else 1.25
        a, b = self.view
        c = self._to_x(ev.position().x())
        w = min(1.0, max(1e-6, (b - a) * factor))
        a = min(max(0.0, c - (c - a) * w / (b - a)), 1.0 - w)
        self.view = (a, a + w)
        self.update()

    # -- painting -----------------------------------------------------------------------------------
    def paintEvent(self, ev) -> None:
        p = QtGui.QPainter(self)
        p.fillRect(self.rect(), QtGui.QColor("white"))
        self.labels_drawn = []
        if self.waiting:
            p.setPen(QtGui.QColor("#666"))
            p.drawText(
                self.rect(), QtCore.Qt.AlignCenter, "the icicle of the released table is drawn when the run ends"
            )
            return
        L = self._layout(throttle=True)
        if L is None:
            p.setPen(QtGui.QColor("#666"))
            p.drawText(self.rect(), QtCore.Qt.AlignCenter, "no run yet")
            return
        st = self.state
        rh = self._row_height(L)
        px0, px1 = self._to_px(L.x0), self._to_px(L.x1)
        inside = (px1 >= 0) & (px0 <= self.width()) & (L.depth * rh < self.height())
        vis = inside & (px1 - px0 >= 0.5)
        status = np.asarray(st.status, dtype=np.int64)[: L.ids.size]
        thin = _pixel_runs(px0, L.depth, status, inside & ~vis, self.width())
        p.setRenderHint(QtGui.QPainter.Antialiasing, False)
        white = QtGui.QPen(QtGui.QColor("white"))
        white.setWidth(1)

        def cell(i):
            return QtCore.QRectF(float(px0[i]), float(L.depth[i] * rh), float(px1[i] - px0[i]), rh)

        for code, colour in self._colours.items():
            rows = np.flatnonzero(vis & (status == code))
            wide = (px1[rows] - px0[rows]) >= 3  # a white border only where the cell is wider than it
            narrow = [cell(i) for i in rows[~wide]]
            narrow += [QtCore.QRectF(float(x), float(d * rh), float(w), rh) for x, d, w, c in thin if c == code]
            p.setBrush(colour)
            if wide.any():
                p.setPen(white if rows.size < 4000 else QtCore.Qt.NoPen)
                p.drawRects([cell(i) for i in rows[wide]])
            if narrow:  # cells under 3 px, and the pixel runs of those under half a pixel: no border
                p.setPen(QtCore.Qt.NoPen)
                p.drawRects(narrow)
        self._paint_selection(p, L, px0, px1, rh)
        self._paint_labels(p, L, px0, px1, rh, vis)
        note_busy()  # a laid-out icicle of a large tree takes several milliseconds to paint

    def _paint_selection(self, p, L, px0, px1, rh) -> None:
        if self.selected is None:
            return
        path = self.path_positions()
        p.setBrush(QtCore.Qt.NoBrush)
        for k, pos in enumerate(path):
            pen = QtGui.QPen(self._colours[SELECTED] if k == 0 else QtGui.QColor("#222"))
            pen.setWidth(2)
            p.setPen(pen)
            p.drawRect(
                QtCore.QRectF(
                    float(px0[pos]) + 1, float(L.depth[pos] * rh) + 1, max(float(px1[pos] - px0[pos]) - 2, 1.0), rh - 2
                )
            )

    def path_positions(self) -> list[int]:
        L = self.layout_data
        if L is None or self.selected is None:
            return []
        return [L.position_of(i) for i in L.path_to_root(self.selected)]

    def _paint_labels(self, p, L, px0, px1, rh, vis) -> None:
        if rh < LABEL_MIN_ROW:
            return
        p.setFont(self._font)
        fm = QtGui.QFontMetrics(self._font)
        two_lines = rh >= 2 * fm.height() + 2
        st = self.state
        status = np.asarray(st.status, dtype=np.int64)[: L.ids.size]
        widths = px1 - px0
        cand = np.flatnonzero(vis & (widths >= 24))
        for i in cand[np.argsort(-widths[cand], kind="stable")][:400]:
            node = st.nodes.get(int(L.ids[i]))
            if node is None:
                continue
            size = _size_text(L.size[i]) if L.known[i] else ""
            name = _short(node.label)
            text = f"{name}\n{size}" if two_lines and size else (f"{name} {size}".strip())
            lines = text.split("\n")
            if max(fm.horizontalAdvance(t) for t in lines) + 6 > widths[i]:
                text = size or name
                if fm.horizontalAdvance(text) + 6 > widths[i]:
                    continue
            p.setPen(QtGui.QColor("black" if status[i] == CREATED else "white"))  # the other fills are dark
            left = max(float(px0[i]), 0.0)
            right = min(float(px1[i]), float(self.width()))
            p.drawText(
                QtCore.QRectF(left + 3, float(L.depth[i] * rh), right - left - 6, rh),
                QtCore.Qt.AlignVCenter | QtCore.Qt.AlignLeft,
                text,
            )
            self.labels_drawn.append(text)
