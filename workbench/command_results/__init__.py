"""What a command computes, for both front ends that print or return it: the CLI's handlers print these
results, the Python API (``lm_workbench.api``) returns them. ``compute``: the commands computed here (``info``,
``encode``, ``attention``, ``fill-mask``, ``next-token``); ``results``: the result objects (``to_dict()`` is the
command's ``--json``); ``figures``: their matplotlib figures (Agg, no Qt); ``shapes``: each command's matrices and
table; ``checks``: the argument checks both front ends share (``--k``, ``--out``). Imports neither the CLI nor
the API. Light: no torch until a command runs.
"""
