"""Two small inline SVG charts for the HTML report (no scripts, no fonts or files fetched).

``bars_svg``: one labelled horizontal bar per item (the split of epsilon); ``curve_svg``: a line of points
on a logarithmic x axis (the expected error by query size). Both draw only what they are handed: the
report hands them public, data-independent figures.
"""

from __future__ import annotations

import html
import math
import textwrap

FONT = "font-family='sans-serif' font-size='12'"
CHAR_PX = 7.2  # a generous average advance of FONT (DejaVu Sans: about 6.6): labels wrap to stay inside


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _g(v: float) -> str:
    return f"{v:.3g}"


def bars_svg(items, title: str, width: int = 640) -> str:
    """Horizontal bars, one row per (label, value): the label on a line of its own above its bar (the whole
    width: a label beside the bar had to be cut), the bar labelled with its value (3 significant digits)."""
    rows = [(textwrap.wrap(str(label), int(width / CHAR_PX)) or [""], float(v)) for label, v in items]
    top = max((v for _, v in rows), default=0.0) or 1.0
    line_h, bar_h, gap, right = 14, 14, 6, 70
    height = 30 + sum(line_h * len(lines) + bar_h + gap for lines, _ in rows)
    out = [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' role='img' "
        f"aria-label='{_e(title)}'>",
        f"<text x='0' y='16' {FONT} font-weight='bold'>{_e(title)}</text>",
    ]
    y = 26
    for lines, v in rows:
        for line in lines:
            out.append(f"<text x='0' y='{y + line_h - 3}' {FONT}>{_e(line)}</text>")
            y += line_h
        w = max(1.0, (width - right) * v / top)
        out.append(f"<rect x='0' y='{y}' width='{w:.1f}' height='{bar_h}' fill='#2e9e5b'/>")
        out.append(f"<text x='{w + 4:.1f}' y='{y + bar_h - 3}' {FONT}>{_g(v)}</text>")
        y += bar_h + gap
    out.append("</svg>")
    return "\n".join(out)


def curve_svg(points, title: str, x_label: str, y_label: str, width: int = 640, height: int = 260) -> str:
    """A polyline of (x, y) points, x on a log scale (x >= 1), y from 0; ticks at the first, middle and last x."""
    pts = sorted((float(x), float(y)) for x, y in points if x >= 1 and math.isfinite(y))
    left, bottom, top_pad, right = 60, 40, 28, 20
    out = [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' role='img' "
        f"aria-label='{_e(title)}'>",
        f"<text x='0' y='16' {FONT} font-weight='bold'>{_e(title)}</text>",
    ]
    if pts:
        x0, x1 = math.log10(pts[0][0]), math.log10(pts[-1][0])
        span = (x1 - x0) or 1.0
        ymax = max(y for _, y in pts) * 1.1 or 1.0
        pw, ph = width - left - right, height - top_pad - bottom

        def sx(x):
            return left + pw * (math.log10(x) - x0) / span if x1 > x0 else left + pw / 2

        def sy(y):
            return top_pad + ph * (1 - y / ymax)

        out.append(f"<line x1='{left}' y1='{top_pad + ph}' x2='{left + pw}' y2='{top_pad + ph}' stroke='#444'/>")
        out.append(f"<line x1='{left}' y1='{top_pad}' x2='{left}' y2='{top_pad + ph}' stroke='#444'/>")
        for y in (0.0, ymax / 2, ymax / 1.1):
            out.append(f"<text x='{left - 4}' y='{sy(y) + 4:.1f}' {FONT} text-anchor='end'>{_g(y)}</text>")
        ticks = sorted({pts[0][0], pts[len(pts) // 2][0], pts[-1][0]})
        for x in ticks:  # the end ticks lean inwards: centred on the edge, they were cut by it
            anchor = "start" if x == ticks[0] and len(ticks) > 1 else "end" if x == ticks[-1] else "middle"
            out.append(f"<text x='{sx(x):.1f}' y='{top_pad + ph + 16}' {FONT} text-anchor='{anchor}'>{_g(x)}</text>")
        line = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in pts)
        out.append(f"<polyline points='{line}' fill='none' stroke='#2e9e5b' stroke-width='2'/>")
        out += [f"<circle cx='{sx(x):.1f}' cy='{sy(y):.1f}' r='3' fill='#2e9e5b'/>" for x, y in pts]
        out.append(f"<text x='{left + pw / 2}' y='{height - 6}' {FONT} text-anchor='middle'>{_e(x_label)}</text>")
        out.append(
            f"<text x='12' y='{top_pad + ph / 2}' {FONT} text-anchor='middle' "
            f"transform='rotate(-90 12 {top_pad + ph / 2})'>{_e(y_label)}</text>"
        )
    out.append("</svg>")
    return "\n".join(out)
