"""User-facing errors.

Every failure a user can cause (bad input, a missing model, no memory) is a
``WorkbenchError`` whose message is one line that says what is wrong and,
where possible, what to do. The CLI prints it and exits 2; the window shows it.
Anything else is a bug and keeps its traceback.
"""


class WorkbenchError(Exception):
    """A problem with the user's input or environment, explained in one line."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:  # one line, always
        return " ".join(self.message.split())


class EmptyTextError(WorkbenchError):
    pass


class TextEncodingError(WorkbenchError):
    """A file that is not valid UTF-8."""


class ModelNotFoundError(WorkbenchError):
    """A folder that does not exist, or a hub id that is neither cached nor reachable."""


class ModelFormatError(WorkbenchError):
    """A folder without a config, an unknown family, or corrupt weights."""


class InsufficientMemoryError(WorkbenchError):
    pass


class MissingHeadError(WorkbenchError):
    """The model lacks the head a view needs (e.g. MiniLM has no MLM head)."""


class Cancelled(Exception):
    """Raised inside a job when its cancel token is set. Not an error."""
