"""Widgets and helpers more than one view package uses (heatmap, colormap, config form, message bar, export)."""
