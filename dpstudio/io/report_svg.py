"""Two small inline SVG charts for the HTML report (no scripts, no fonts or files fetched).

``bars_svg``: one labelled horizontal bar per item (the split of epsilon); ``curve_svg``: a line of points
on a logarithmic x axis (the expected error by query size). Both draw only what they are handed: the
report hands them public, data-independent figures.
"""

from __future__ import annotations

import html
import math

FONT = "font-family='sans-serif' font-size='12'"


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _g(v: float) -> str:
    return f"{v:.3g}"


def bars_svg(items, title: str, width: int = 640) -> str:
    """Horizontal bars, one row per (label, value); each bar labelled with its value (3 significant digits)."""
    items = [(str(label) if len(str(label)) <= 44 else str(label)[:42] + "...", float(v)) for label, v in items]
    top = max((v for _, v in items), default=0.0) or 1.0
    row, left, right = 22, 290, 70
    height = 30 + row * len(items)
    out = [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' role='img' "
        f"aria-label='{_e(title)}'>",
        f"<text x='0' y='16' {FONT} font-weight='bold'>{_e(title)}</text>",
    ]
    for i, (label, v) in enumerate(items):
        y = 26 + i * row
        w = max(1.0, (width - left - right) * v / top)
        out.append(f"<text x='{left - 6}' y='{y + 13}' {FONT} text-anchor='end'>{_e(label)}</text>")
        out.append(f"<rect x='{left}' y='{y + 2}' width='{w:.1f}' height='{row - 6}' fill='#2e9e5b'/>")
        out.append(f"<text x='{left + w + 4:.1f}' y='{y + 13}' {FONT}>{_g(v)}</text>")
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
        for x in sorted({pts[0][0], pts[len(pts) // 2][0], pts[-1][0]}):
            out.append(f"<text x='{sx(x):.1f}' y='{top_pad + ph + 16}' {FONT} text-anchor='middle'>{_g(x)}</text>")
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
