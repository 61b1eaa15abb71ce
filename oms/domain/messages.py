"""A person's message into a live agent's conversation (`oms worker send`, ADR 0036), pure: what
may be sent to which attempt, and what of the text reaches the pane.

What reaches the pane is text, never a key nor a command. `clean` drops every C0 control but the
newline (a CR or CR LF is one newline first), DEL and every C1 control, so no escape sequence, no
bracketed-paste marker and no Enter but the one oms presses reaches the agent's terminal; each
newline is typed as a line feed, which the agent CLIs read as "a new line in the message"
(Ctrl+J: Claude Code and Codex in raw mode), a command worker's cooked terminal as the end of a
line. A message whose first character a CLI reads as a command (`/` a slash command, `!` a shell
command, `#` a memory) is typed after a space, so it stays a message.

Who may be sent a message: an agent that reads its terminal (`check_reads`: its provider says so in
the registry; `codex exec` does not), and then (`check_send`) a live, unfenced attempt — its
dispatch accepted or acknowledged (no result yet), its worker idle or working and healthy or
stalled, its session running, its pane live. Anything else is refused in one line saying why.
"""

from __future__ import annotations

import re

from oms.errors import InvalidInputError

_CONTROLS = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")
COMMAND_MARKS = ("/", "!", "#")  # what a CLI reads as a command when a message begins with it


_SURROGATE = re.compile("[\ud800-\udfff]")  # bytes that were not UTF-8 (an argument's)


def check_utf8(text: str, what: str) -> None:
    """`InvalidInputError` when `text` holds a lone surrogate: an argument whose bytes were not
    UTF-8 (Python's `surrogateescape`), which can be neither recorded nor typed."""
    bad = _SURROGATE.search(text)
    if bad is not None:
        raise InvalidInputError(f"{what} is not UTF-8 (character {bad.start()})")


def clean(text: str) -> str:
    """The text that is typed: newlines normalised, every other control character dropped, a
    leading command mark defused, surrounding blank lines trimmed. `InvalidInputError` if nothing is
    left, or if it is not UTF-8 (`check_utf8`)."""
    check_utf8(text, "the message")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROLS.sub("", text).strip("\n")
    if not text.strip():
        raise InvalidInputError(
            "the message is empty (after its control characters were dropped)",
            hint="give the text to send as an argument, with --file, or on stdin (`-`)",
        )
    if text.startswith(COMMAND_MARKS):
        text = " " + text
    return text


def check_size(size: int, bound: int) -> None:
    """A message of `size` bytes as read may be sent (`InvalidInputError` otherwise)."""
    if size > bound:
        raise InvalidInputError(
            f"the message is {size} bytes, more than the {bound} a message may be",
            hint="shorten it, or commit the long text and send its path",
        )


def check_reads(transport: str, takes_messages: bool) -> None:
    """May a message be typed to a worker of `transport` at all? Only one whose provider says its
    agent reads its terminal (`Provider.takes_messages`, the registry): `codex exec` takes its
    prompt from its command line and reads nothing typed (ADR 0045 amendment `ends`)."""
    if not takes_messages:
        raise InvalidInputError(
            f"worker cannot be sent a message: its agent ({transport}) reads nothing from its "
            "terminal; nothing was sent",
            hint="stop it (`oms worker stop`) and dispatch the ticket again with the note in it",
        )


def check_send(
    *,
    dispatch_state: str,
    activity: str,
    health: str,
    session_state: str | None,
    pane_live: bool,
) -> None:
    """May a message be typed into this attempt's agent now? (`InvalidInputError` says why not;
    the fence is asked before this, by the shell.)"""
    if dispatch_state not in ("accepted", "acknowledged"):
        raise InvalidInputError(
            f"worker cannot be sent a message: its dispatch is {dispatch_state} "
            "(only a running attempt without a result takes one)"
        )
    if activity not in ("idle", "working"):
        raise InvalidInputError(f"worker cannot be sent a message: it is {activity}")
    if health == "parked":
        raise InvalidInputError(
            "worker cannot be sent a message: it is parked",
            hint="`oms worker resume` it first, then send",
        )
    if health not in ("healthy", "stalled"):
        raise InvalidInputError(f"worker cannot be sent a message: its health is {health}")
    if session_state is None:
        raise InvalidInputError(
            "worker cannot be sent a message: it has no session yet",
            hint="deliver it first (`oms worker deliver`, or the conductor)",
        )
    if session_state != "running":
        raise InvalidInputError(f"worker cannot be sent a message: its session is {session_state}")
    if not pane_live:
        raise InvalidInputError(
            "worker cannot be sent a message: its pane is not live",
            hint="`oms worker observe` records how it ended",
        )
