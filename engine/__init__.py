"""The engine: models, analysis, embeddings, pre-training objectives, pre-training data and training.

No Qt here. Everything heavy is a plain function or a generator that reports
progress and checks a cancel token, so the GUI, the CLI and tests drive the
same code.
"""

from lm_workbench.engine.errors import WorkbenchError

__all__ = ["WorkbenchError"]
