"""Qt-free state of the views: plain objects that widgets observe (napari's components, without Qt)."""
