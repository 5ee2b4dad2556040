"""The Fine-tune tab: fine-tuning methods compared on one task."""
