"""Plugin discovery (no Qt): objectives from the ``lm_workbench.objectives``
entry-point group and from the user's plugins folder.

``manifest`` reads a folder plugin's ``plugin.json``; ``discovery`` finds and
loads plugins into ``PluginRecord``s (``records``), each with its status and
error; ``registry`` hands out objectives and calls them so that a broken
plugin is recorded and never takes anything else down.
"""
