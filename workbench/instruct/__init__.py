"""Instruction tuning's application side: chatting with a model or an instruct run through its chat template
(``chat``: ``generate --chat``), and the Fine-tune tab's instruct preview (``preview``: one example's tokens
coloured trained / not trained, the template's text, the trained tokens per batch)."""
