"""Timestamps: RFC 3339 UTC with milliseconds, exactly `YYYY-MM-DDTHH:MM:SS.mmmZ` (years 0001-9999).

One spelling per instant, so timestamps compare correctly as strings and digests stay stable. An
instant is handled as integer milliseconds since 1970-01-01T00:00:00.000Z: plain arithmetic on the
proleptic Gregorian calendar, no `datetime` import on the hook path (docs/adr/0010). Property tests
prove parsing, rendering and arithmetic equal to `datetime`'s.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING

from oms.errors import InvalidInputError

if TYPE_CHECKING:
    from datetime import datetime

TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")
_DAY_MS = 86_400_000
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
MIN_MS = -62_135_596_800_000  # 0001-01-01T00:00:00.000Z
MAX_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (eras of 400 years, years starting in
    March)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month - 3 if month > 2 else month + 9) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146_097 + day_of_era - 719_468


def _civil_from_days(days: int) -> tuple[int, int, int]:
    """The inverse of `_days_from_civil`."""
    days += 719_468
    era = days // 146_097
    day_of_era = days - era * 146_097
    year_of_era = (
        day_of_era - day_of_era // 1460 + day_of_era // 36_524 - day_of_era // 146_096
    ) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    shifted_month = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * shifted_month + 2) // 5 + 1
    month = shifted_month + 3 if shifted_month < 10 else shifted_month - 9
    return year_of_era + era * 400 + (month <= 2), month, day


def parse_ts(text: object, what: str = "timestamp") -> int:
    """A canonical timestamp as milliseconds since the epoch, or raise naming `what`."""
    if not isinstance(text, str) or TIMESTAMP.fullmatch(text) is None:
        raise InvalidInputError(f"{what} {str(text)[:40]!r} is not YYYY-MM-DDTHH:MM:SS.mmmZ")
    # the grammar is fixed, so the fields are at fixed offsets
    year, month, day = int(text[0:4]), int(text[5:7]), int(text[8:10])
    hour, minute, second = int(text[11:13]), int(text[14:16]), int(text[17:19])
    month_days = (
        29 if month == 2 and _leap(year) else _MONTH_DAYS[month - 1] if 1 <= month <= 12 else 0
    )
    if year < 1 or not 1 <= day <= month_days or hour > 23 or minute > 59 or second > 59:
        raise InvalidInputError(f"{what} {text!r} is not a real date and time")
    clock = ((hour * 60 + minute) * 60 + second) * 1000 + int(text[20:23])
    return _days_from_civil(year, month, day) * _DAY_MS + clock


def render_ms(moment: int) -> str:
    """The canonical spelling of `moment` (milliseconds since the epoch)."""
    if not MIN_MS <= moment <= MAX_MS:
        raise InvalidInputError(f"instant {moment} ms is outside the years 0001-9999")
    days, clock = divmod(moment, _DAY_MS)
    year, month, day = _civil_from_days(days)
    seconds, millis = divmod(clock, 1000)
    minutes, second = divmod(seconds, 60)
    hour, minute = divmod(minutes, 60)
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}.{millis:03d}Z"


def format_ts(moment: datetime) -> str:
    """Render an aware datetime in the canonical form (truncated to milliseconds)."""
    offset = moment.utcoffset()
    if offset is None:
        raise InvalidInputError("timestamp must be timezone-aware")
    seconds = _days_from_civil(moment.year, moment.month, moment.day) * 86_400
    seconds += (
        (moment.hour * 60 + moment.minute) * 60
        + moment.second
        - offset.days * 86_400
        - offset.seconds
    )
    return render_ms((seconds * 1_000_000 + moment.microsecond - offset.microseconds) // 1000)


def now() -> str:
    """The current time, canonical."""
    return render_ms(time.time_ns() // 1_000_000)


def add_ms(text: str, milliseconds: int) -> str:
    """`text` plus `milliseconds`."""
    return render_ms(parse_ts(text) + milliseconds)


def next_after(previous: str, candidate: str) -> str:
    """The later of `candidate` and one millisecond after `previous` (transitions strictly
    advance)."""
    prev = parse_ts(previous, "previous timestamp")
    cand = parse_ts(candidate, "candidate timestamp")
    return render_ms(max(prev + 1, cand))
