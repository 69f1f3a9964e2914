"""Reusable widgets of the studio: the data frame model, the taxonomy editor, tree view, budget bar, error plot."""
