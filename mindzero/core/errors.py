"""Errors a user can fix: the CLI prints them as one line and exits non-zero, never a traceback."""


class UserError(Exception):
    """Bad input or configuration; the message says what is wrong and, where possible, the fix."""


#: The most characters of an offending input an error message quotes.
QUOTE_CHARS = 200


def clip(text: str, limit: int = QUOTE_CHARS) -> str:
    """``text`` as an error message may quote it: at most ``limit`` characters, then its length (a
    1 MB line is not echoed back)."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def plural(noun: str, n: int) -> str:
    """``noun`` as a count of ``n`` reads (1 plate, 0 plates, 2 glasses, 3 candies)."""
    if n == 1:
        return noun
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in tuple("aeiou"):
        return noun[:-1] + "ies"
    return noun + "s"
