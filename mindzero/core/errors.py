"""Errors a user can fix: the CLI prints them as one line and exits non-zero, never a traceback."""


class UserError(Exception):
    """Bad input or configuration; the message says what is wrong and, where possible, the fix."""
