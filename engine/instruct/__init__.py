"""Instruction tuning: chat templates, label masks on the answers, instruction data, before/after answers."""
