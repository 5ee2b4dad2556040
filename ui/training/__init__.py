"""The "Pre-train" tab: a form built from the configs, live curves, progress, Cancel, course models."""
