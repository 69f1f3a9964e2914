"""dpstudio: prepare differentially private releases of tables and histograms."""

__version__ = "0.2.0"
