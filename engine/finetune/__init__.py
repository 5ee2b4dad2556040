"""Fine-tuning tasks: data readers, subword-label alignment, metrics and offline demo sets.

The methods (full, LoRA, adapters, ...) and the training view build on these; nothing here trains.
"""
