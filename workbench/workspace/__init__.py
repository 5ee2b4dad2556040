"""Workspaces: a whole session saved to one file and reopened (no Qt here).

A workspace is a zip of JSON members (never pickle): ``workspace.json`` (the
format, its version, the model given by its spec, the text box and pair, the
current view, the running lecture preset and step) and one
``views/<id>.json`` per view with state of its own (its settings and small
artifacts such as a corpus's lines). ``format`` writes and reads it; a newer
or damaged file opens what it can and lists what it could not.
"""
