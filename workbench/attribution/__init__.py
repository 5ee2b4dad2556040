"""Attribution ("Why" in the README, "Explain" in the views, ``attribute`` in the CLI): the jobs behind them.

``view_tasks``: one explain job builder for every view (a prediction, a prompt's label, a fine-tuned run's label,
the same prediction in model B); ``run_models``: the one cache of fine-tuned runs' models it reloads;
``attention``: the attention row the CLI's ``attribute --attention-layer`` adds, as the views show it.
"""
