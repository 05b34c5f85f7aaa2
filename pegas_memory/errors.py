"""The error tree of pegas-memory.

Every expected failure is one of these. The MCP layer turns them into tool errors whose text an
agent can act on; anything else is a bug and is logged with its traceback.
"""

from __future__ import annotations


class PegasMemoryError(Exception):
    """Unexpected pegas-memory error."""

    def __init__(self, message: str | None = None):
        super().__init__(message or self.__doc__)


class InvalidInput(PegasMemoryError):
    """Arguments failed validation."""


class NotFound(PegasMemoryError):
    """No record has this id."""


class BackendUnavailable(PegasMemoryError):
    """A database, projection or model server is unreachable; retry later."""


class SliceDamaged(BackendUnavailable):
    """A slice's files are damaged (unreadable); rebuild it from PostgreSQL."""


class WriteOutcomeUnknown(BackendUnavailable):
    """The connection to PostgreSQL was lost while a write committed: whether it was kept is
    unknown; look before writing it again."""


class IngestError(PegasMemoryError):
    """A source could not be fetched or parsed."""


class SecurityRefused(IngestError):
    """The source is outside what this server is allowed to read."""


class LimitExceeded(PegasMemoryError):
    """A size or count limit was exceeded."""


class SettingsProblem(PegasMemoryError):
    """A setting is invalid: fix it (environment or env file) and restart pegas-memory."""
