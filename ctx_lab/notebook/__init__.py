"""Notebook adapters: the ``%ctx`` magic, DataFrames, plots and widgets (notebook extra)."""
