"""An objective plugin that cannot even be imported."""

raise RuntimeError("this plugin is broken on purpose")
