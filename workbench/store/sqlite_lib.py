"""``sqlite_utils`` imported without pandas.

``sqlite_utils`` imports pandas (and with it pyarrow) when they are installed, to convert pandas values the run
store never passes; that cost ~1 s of every process that opens the store (each CLI command that records, each
long-run lane child: importing ``lm_workbench.store`` took 1.6–1.9 s, 0.65–0.7 s without). Here it is imported
while ``pandas`` is unimportable, so it keeps ``pd = None``; ``pandas`` stays importable afterwards for everyone
else (the Python API's ``to_pandas``). Where pandas is already imported, nothing is saved and nothing changes.
"""

from __future__ import annotations

import sys

if "sqlite_utils" in sys.modules or "pandas" in sys.modules:
    import sqlite_utils
else:
    sys.modules["pandas"] = None  # type: ignore[assignment]  # "import pandas" raises ImportError meanwhile
    try:
        import sqlite_utils
    finally:
        del sys.modules["pandas"]

from sqlite_utils.db import ForeignKey  # noqa: E402

__all__ = ["sqlite_utils", "ForeignKey"]
