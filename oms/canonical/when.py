"""The times a person types for `--until` and `--since` (issue 26): the full canonical timestamp,
a duration from now (`90m`, `2h`, `1d12h`, `45s`), or a local time of day (`09:00`: the next one
from now when the time is ahead, as `oms worker park --until`, the last one when it is behind, as
`oms audit log --since`).

Pure but for the local clock's offset, which is a parameter (`local_offset`, seconds east of UTC at
an instant): the tests give their own. Every answer is canonical (`timestamps.py`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from oms.canonical.timestamps import TIMESTAMP, parse_ts, render_ms
from oms.errors import InvalidInputError

DURATION = re.compile(r"(?:([0-9]{1,5})d)?(?:([0-9]{1,6})h)?(?:([0-9]{1,7})m)?(?:([0-9]{1,9})s)?")
CLOCK = re.compile(r"([01]?[0-9]|2[0-3]):([0-5][0-9])")
FORMS = "a duration (90m, 2h, 1d12h, 45s), a local time of day (09:00) or YYYY-MM-DDTHH:MM:SS.mmmZ"
_UNIT_MS = (86_400_000, 3_600_000, 60_000, 1000)
_DAY_MS = 86_400_000


def local_offset(moment_ms: int) -> int:
    """This machine's offset from UTC at `moment_ms`, in seconds (east positive)."""
    return time.localtime(moment_ms // 1000).tm_gmtoff


def when(
    text: str,
    now: str,
    *,
    ahead: bool,
    what: str = "--until",
    offset: Callable[[int], int] = local_offset,
) -> str:
    """The canonical timestamp `text` names, seen from `now` (canonical): `ahead` for a time to
    come (a duration is added, a time of day is the next one), else for one past (a duration is
    taken away, a time of day is the last one). Anything else: `InvalidInputError` with the forms.
    """
    base = parse_ts(now, "now")
    shown = text[:40]
    if TIMESTAMP.fullmatch(text):
        return render_ms(parse_ts(text, what))
    span = DURATION.fullmatch(text)
    if span is not None and text:
        total = sum(int(n) * unit for n, unit in zip(span.groups(), _UNIT_MS, strict=True) if n)
        return _render(base + total if ahead else base - total, what, shown)
    clock = CLOCK.fullmatch(text)
    if clock is None:
        raise InvalidInputError(f"{what} {shown!r} is not a time: give {FORMS}")
    minute_of_day = (int(clock.group(1)) * 60 + int(clock.group(2))) * 60_000
    local_now = base + offset(base) * 1000
    local = local_now - local_now % _DAY_MS + minute_of_day  # that time today, local
    if ahead and local <= local_now:
        local += _DAY_MS
    elif not ahead and local > local_now:
        local -= _DAY_MS
    guess = local - offset(base) * 1000
    return _render(local - offset(guess) * 1000, what, shown)  # the offset then (DST moves it)


def _render(moment: int, what: str, shown: str) -> str:
    try:
        return render_ms(moment)
    except InvalidInputError:
        raise InvalidInputError(f"{what} {shown!r} is outside the years 0001-9999") from None
