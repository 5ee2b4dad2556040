"""Plugin discovery (no Qt), for every extension kind: entry-point groups and the user's plugins folder.

``extension_kind`` says what a kind is (its entry-point group, the plugin-API
class its contributions subclass, how to check and describe one); ``kinds``
lists the kinds (objectives, ``objective_kind``, are the first). ``manifest``
reads a folder plugin's ``plugin.json``; ``discovery`` finds and loads
plugins of every kind into ``PluginRecord``s (``records``), each with its
status and error; ``registry`` hands out contributions of one kind and calls
them so that a broken plugin is recorded and never takes anything else down.
"""
