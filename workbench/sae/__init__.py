"""Sparse autoencoders and steering in the workbench (issue 47): the training run's spec and recorder (kind
``sae``), evaluation, feature reading and steering jobs shared by the CLI, the Features view and the Python API."""
