"""The report's two charts keep every word inside the picture (issue 24 item 8: the budget chart's labels
were cut at 44 characters and the error curve's last x tick by the right edge)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from dpstudio.io.report_svg import CHAR_PX, bars_svg, curve_svg


def _texts(svg: str):
    root = ET.fromstring(svg)
    width = float(root.get("width"))
    for t in root.iter("{http://www.w3.org/2000/svg}text"):
        if t.get("transform"):  # the rotated y title: checked against the height by its length alone
            continue
        x, w = float(t.get("x")), len(t.text or "") * CHAR_PX
        anchor = t.get("text-anchor", "start")
        lo = x - w if anchor == "end" else x - w / 2 if anchor == "middle" else x
        yield t.text, lo, lo + w, width


def test_budget_bars_show_whole_labels_inside_the_picture():
    label = "counts: level 1 of the DiffGen tree x class, exponential mechanism over split-point intervals"
    svg = bars_svg([(label, 0.231), ("discrete Laplace", 0.577)], "where epsilon = 1 was spent (the ledger)")
    words = " ".join(t.text for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text"))
    assert label in words  # all of it, over two lines
    for text, lo, hi, width in _texts(svg):
        assert lo >= 0 and hi <= width, (text, lo, hi, width)


def test_error_curve_ticks_stay_inside_the_picture():
    points = [(1, 0.5), (54, 40.0), (4321, 88.2)]
    svg = curve_svg(points, "expected error by query size", "released cells", "RMSE")
    assert re.search(r">4\.32e\+03<", svg)
    for text, lo, hi, width in _texts(svg):
        assert lo >= 0 and hi <= width, (text, lo, hi, width)
