"""The window: main window, view registry and host, actions, presentation, the compare controller, model
panel, text box, status bar, geometry, About panel, plugins dialog, start-up probe. It imports the views;
no view imports it (pyproject.toml)."""
