"""Qt-free algorithms: DiffGen family and interval-tree histograms; each run is a generator of events."""
