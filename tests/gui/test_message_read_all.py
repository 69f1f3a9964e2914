"""Issue 32 item 3 for the window's message bar: a refusal too long for its one line (the event log whose
times are epoch seconds, read as dates) gets a "Read all" button that shows every word, wrapped; a short
message has none."""

from __future__ import annotations

from PySide6 import QtWidgets


def test_a_cut_message_is_read_in_full_on_a_click(qtbot, window):
    window.resize(1280, 800)
    long = (
        "no event would be counted (about 20,000 events read, 0 counted; dropped: none over the per-person cap, "
        "about 20,000 outside the range or without a person or time): the time column holds numbers, not dates; "
        "they look like epoch seconds: set 'time written as' to epoch seconds; nothing was charged"
    )
    window.show_error(long)
    qtbot.waitUntil(lambda: window.message_more.isVisible())
    assert window.message_label.is_elided()
    window.message_more.click()
    box = window.message_box
    assert isinstance(box, QtWidgets.QMessageBox) and box.text() == long and box.isVisible()
    box.close()
    window.show_error("the class values are not declared")
    qtbot.wait(10)
    assert not window.message_more.isVisible()
    window.clear_message()
    assert not window.message_more.isVisible()
