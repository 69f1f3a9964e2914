"""The Watch panel's neighbour views (teaching mode only): one record removed and the run repeated, for the
selected node (``NeighbourDialog``) or the selection step shown (``SelectionNeighbourDialog``). A mixin of
``WatchPanel``: it reads the panel's replay, project and selection; nothing here spends budget (teaching
runs use simulation noise)."""

from __future__ import annotations

from dpstudio.gui.panels.watch_layout import NEIGHBOUR_OFF


class WatchNeighbours:
    """The neighbour-view part of ``WatchPanel``."""

    def _records_of_run(self):
        """How the neighbour view reads the run's records: the DiffGen result, or for a histogram its one
        attribute (``HistogramRecords``); None when neither is known."""
        from dpstudio.model.watch.neighbour_view import HistogramRecords

        st = self.replay.state
        result = st.result if st.result is not None else getattr(self.project, "result", None)
        if hasattr(result, "attributes"):
            return result
        project = self.project
        if result is None or getattr(project, "frame", None) is None:
            return None
        from dpstudio.model.release.runs import HISTOGRAM_NAMES, histogram_attribute

        if getattr(project, "algorithm", None) not in HISTOGRAM_NAMES:
            return None
        attr = (project.params or {}).get("attribute") or histogram_attribute(project)
        return HistogramRecords((attr,)) if attr in project.columns else None

    def _neighbour_ready(self, nid: int | None) -> bool:
        st = self.replay.state
        nd = st.nodes.get(nid) if nid is not None else None
        return (
            bool(self.teaching)
            and nd is not None
            and nd.true_count is not None
            and nd.variance is not None
            and getattr(self.project, "frame", None) is not None
            and self._records_of_run() is not None
        )

    def _neighbour_off(self) -> str:
        if getattr(self.project, "frame", None) is None and getattr(self.project, "has_data", False):
            return (
                "the neighbour view removes one record and runs again, so it needs the records in memory; "
                "this table is read through DuckDB (it is large)"
            )
        return NEIGHBOUR_OFF

    def _step_neighbour_ready(self) -> bool:
        """A selection step (a specialization or a split point) of a finished teaching run on the loaded data
        is shown."""
        cand = self.replay.state.candidates
        return (
            bool(self.teaching)
            and not self.live
            and cand is not None
            and (len(cand.labels) > 1 and "split-point" not in cand.mechanism or bool(cand.ranges))
            and getattr(self.project, "frame", None) is not None
            and bool(self.replay.events)
            and type(self.replay.events[-1]).__name__ == "RunFinished"
        )

    def open_step_neighbour_view(self):
        """The neighbour view of the selection step shown (teaching mode only): returns the dialog, shown."""
        from dpstudio.gui.widgets.selection_neighbour_dialog import SelectionNeighbourDialog

        if not self._step_neighbour_ready():
            return None
        sel = self.replay.state.candidates.selection
        self.step_neighbour_dialog = SelectionNeighbourDialog(self.project, list(self.replay.events), sel, self)
        self.step_neighbour_dialog.show()
        return self.step_neighbour_dialog

    def open_neighbour_view(self):
        """The neighbour view of the selected node (teaching mode only): returns the dialog, shown."""
        from dpstudio.gui.widgets.neighbour_dialog import NeighbourDialog

        if not self._neighbour_ready(self._selected):
            return None
        st = self.replay.state
        self.neighbour_dialog = NeighbourDialog(
            st,
            self._selected,
            self.project.frame,
            self._records_of_run(),
            dict(self.project.taxonomies),
            bool(self.teaching),
            self,
        )
        self.neighbour_dialog.show()
        return self.neighbour_dialog
