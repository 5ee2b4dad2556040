"""The built-in fine-tuning methods, registered in ``lm_workbench.finetune_methods`` like a third party's."""
