"""The engine's public plugin API: the only engine module plugins may import.

Plugins (the built-in objectives in ``plugins/`` and third-party packages)
build on what is exported here and nothing else, so the engine's inside can
change without breaking them; ``API_VERSION`` rises when this surface changes
incompatibly. The objective protocol itself arrives with the objectives issue;
what is here now is what any contribution needs: errors, progress and
cancellation, and the model families.
"""

from engine.errors import Cancelled, WorkbenchError
from engine.families import Family
from engine.progress import CancelToken, Partial, Progress

API_VERSION = 1

__all__ = ["API_VERSION", "Cancelled", "CancelToken", "Family", "Partial", "Progress", "WorkbenchError"]
