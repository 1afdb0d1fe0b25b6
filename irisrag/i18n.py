"""Marking strings for translation outside the web layer (no Flask import here)."""


def N_(text: str) -> str:  # noqa: N802 - the gettext convention for "translate later"
    """Mark a message id for extraction; the web layer translates it when it shows it."""
    return text


class Label(str):
    """A message parameter that is itself a message id (a reason, a kind): translated with its message."""
