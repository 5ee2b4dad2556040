"""Layer-wise probing and sentence similarity for any model the workbench loads (no Qt).

``readers`` reads the task files, ``representations`` extracts every layer
once per corpus, ``probes`` fits the linear probes and the control task,
``sts`` scores sentence similarity, ``sweep`` puts them together as job
generators, and ``demo`` names the built-in data sets.
"""
