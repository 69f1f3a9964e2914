"""Every segment of the split bar has its own colour (walk finding: a DiffGen split of 13 segments cycled 10
colours, so level 8 was drawn in the selection's blue and level 9 in the split points' orange)."""

from __future__ import annotations

from PySide6 import QtGui

from dpstudio.gui.widgets.budget_bar import COLOURS, BudgetBar


def test_thirteen_segments_are_drawn_in_thirteen_colours(qtbot):
    names = ["selection", "split points"] + [f"level {i}" for i in range(11)]
    bar = BudgetBar()
    qtbot.addWidget(bar)
    bar.resize(1300, 80)
    bar.set_segments(names, [1] * len(names), 1)
    assert len(set(bar.colours)) == len(names)
    assert bar.colours[: len(COLOURS)] == COLOURS  # the first round unchanged
    image = bar.grab().toImage()
    r = bar._bar_rect()
    drawn = []
    for k in range(len(names)):  # the pixel at the bottom of each segment, left of its middle (not its text)
        x = r.left() + (k + 0.25) * r.width() / len(names)
        drawn.append(image.pixelColor(int(x), int(r.bottom() - 2)).name())
    assert drawn == bar.colours


def test_later_rounds_stay_dark_enough_for_the_white_figures():
    from dpstudio.gui.widgets.budget_bar import segment_colour

    colours = [segment_colour(k) for k in range(40)]
    assert len(set(colours)) == 40
    for c in colours[len(COLOURS) :]:
        base = QtGui.QColor(COLOURS[colours.index(c) % len(COLOURS)])
        assert QtGui.QColor(c).lightness() < base.lightness()  # darker than its first round: white reads on it
