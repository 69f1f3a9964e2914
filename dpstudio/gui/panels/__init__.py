"""The studio's panels, one module each. The contract every panel follows:

- a ``QWidget`` subclass ``XxxPanel(project: dpstudio.model.project.project.Project, parent=None)``;
- it subscribes to the project's change notifications (``project.subscribe(callback, *fields)``) and writes
  back only through the project's setters, so other panels hear about every change;
- long work goes through the window's worker: ``self.window().start_worker(worker, title)`` when the
  panel sits in a ``MainWindow`` (progress bar + Cancel in the status bar), where ``worker`` is a
  ``dpstudio.gui.worker.Worker``; errors are shown with ``self.window().show_error(message)``.
  ``dpstudio.gui.panels.host(widget)`` returns that window (or None when the panel stands alone, as in a
  unit test), so a panel can fall back to its own ``TaskRunner``.

The main window imports each panel lazily (``PANELS`` below) and shows a "not available yet" label for a
panel whose module is missing.
"""

from __future__ import annotations

#: tab title -> (module under dpstudio.gui.panels, class name)
PANELS = {
    "Data": ("data", "DataPanel"),
    "Taxonomy": ("taxonomy", "TaxonomyPanel"),
    "Algorithm": ("algorithm", "AlgorithmPanel"),
    "Watch": ("watch", "WatchPanel"),
    "Compare": ("compare", "ComparePanel"),
    "Export": ("export", "ExportPanel"),
    "Anonymize": ("anonymize", "AnonymizePanel"),
    "Stream": ("stream", "StreamPanel"),
}


def host(widget):
    """The MainWindow holding ``widget`` (anything with ``start_worker`` and ``show_error``), or None."""
    w = widget.window() if widget is not None else None
    if w is not None and hasattr(w, "start_worker") and hasattr(w, "show_error"):
        return w
    return None
