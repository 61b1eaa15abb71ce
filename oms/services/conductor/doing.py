"""What the conductor is doing now, in words, for a person who presses Ctrl-C (ADR 0031).

One process-wide note: the tick sets the phase it runs, a phase the step of the item it works on
(`conductor_work`: "tkt-3: the advisor reviews dsp-... (a model call)"). Nothing decides on it;
`oms conductor run` and `tick` say it when asked to stop, so a person waiting on a long model call
sees why the conductor has not stopped yet, and that a second Ctrl-C ends it now.
"""

from __future__ import annotations

_NOW: dict[str, str | None] = {"phase": None, "step": None}


def now(phase: str | None) -> None:
    """The phase the tick runs (None: between phases); its step is cleared."""
    _NOW["phase"], _NOW["step"] = phase, None


def step(what: str) -> None:
    """The step the phase is at."""
    _NOW["step"] = what


def said() -> str:
    """What the conductor does, in one line ('' between ticks)."""
    phase, what = _NOW["phase"], _NOW["step"]
    if phase is None:
        return ""
    return f"{phase}: {what}" if what else phase
