"""What a command that went on past internal errors raises at its end, for the error boundary
(`boundary.py`) to turn into exit 3; beneath both the boundary and the commands that raise it."""

from __future__ import annotations


class InternalErrorsSeen(Exception):  # noqa: N818 - not an error of its own: a note of those seen
    """A command that went on past internal errors (a conductor phase, a whole tick) and showed
    them in its output ends with exit 3 all the same: no internal error exits 0. With --json its
    output already is the error document (`"ok": false`): nothing more is printed."""
