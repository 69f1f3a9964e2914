"""Drawing each device pixel once (large trees) must paint the same picture as drawing every item."""

import numpy as np
from PySide6 import QtCore, QtGui

from dpstudio.gui.widgets import tree_view


def _render(item, dedupe_min, monkeypatch):
    monkeypatch.setattr(tree_view, "DEDUPE_MIN", dedupe_min)
    item._shown_key = None
    image = QtGui.QImage(400, 300, QtGui.QImage.Format_RGB32)
    image.fill(QtGui.QColor("white"))
    painter = QtGui.QPainter(image)
    painter.setTransform(QtGui.QTransform(0.37, 0, 0, -29.0, 7.3, 280.0))  # many points per pixel
    item.paint(painter)
    painter.end()
    return np.frombuffer(image.constBits(), dtype=np.uint32).reshape(300, 400).copy()


def _dilate(mask):
    out = mask.copy()
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            out |= np.roll(np.roll(mask, dy, axis=0), dx, axis=1)
    return out


def assert_same_picture(every, once):
    """Each painted pixel of one image is within one pixel of a painted pixel of the other (subpixel
    positions of the kept duplicates may shift a line by a pixel), and the painted areas agree."""
    a, b = every != every[0, 0], once != once[0, 0]
    assert a.sum() > 1000
    assert np.mean(b & ~_dilate(a)) < 1e-4
    assert np.mean(a & ~_dilate(b)) < 1e-4
    assert abs(int(a.sum()) - int(b.sum())) < 0.1 * a.sum()


def _dense_tree_points(n=20000, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(0, 1000, n), rng.integers(0, 9, n).astype(float)


def test_node_layer_dedupe_paints_the_same_pixels(qapp, monkeypatch):
    x, y = _dense_tree_points()
    layer = tree_view.NodeLayer("#4a7fc1", size=3)
    layer.setData(x, y)
    every = _render(layer, 10**9, monkeypatch)
    once = _render(layer, 1, monkeypatch)
    assert layer._shown.size() < x.size / 4  # it really drew fewer points
    assert_same_picture(every, once)


def test_edge_layer_dedupe_paints_the_same_pixels(qapp, monkeypatch):
    x, y = _dense_tree_points()
    parent_x = np.round(x / 40) * 40
    ex = np.empty(2 * x.size)
    ey = np.empty(2 * x.size)
    ex[0::2], ex[1::2] = parent_x, x
    ey[0::2], ey[1::2] = y + 1, y
    pen = QtGui.QPen(QtGui.QColor("#555555"))
    pen.setCosmetic(True)
    layer = tree_view.EdgeLayer(pen)
    layer.setData(ex, ey)
    every = _render(layer, 10**9, monkeypatch)
    once = _render(layer, 1, monkeypatch)
    assert layer._shown.elementCount() < ex.size / 2
    assert_same_picture(every, once)


def test_edge_layer_refuses_an_odd_number_of_points(qapp):
    layer = tree_view.EdgeLayer(QtGui.QPen())
    try:
        layer.setData([0.0, 1.0, 2.0], [0.0, 1.0, 2.0])
    except ValueError as exc:
        assert "pairs" in str(exc)
    else:
        raise AssertionError("an odd number of edge points was accepted")
    assert QtCore.QRectF() == tree_view.EdgeLayer(QtGui.QPen()).boundingRect()
