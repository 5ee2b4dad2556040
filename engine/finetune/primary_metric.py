"""The metric each task is ranked by (light: no torch, so the window's state object can import it)."""

PRIMARY_METRIC = {"seq-cls": "accuracy", "token-cls": "f1", "qa": "f1", "seq2seq": "rougeL"}
