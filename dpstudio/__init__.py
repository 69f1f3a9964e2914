"""dpstudio: prepare differentially private releases of tables and histograms."""

__version__ = "0.1.0"
