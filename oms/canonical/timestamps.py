"""Timestamps: RFC 3339 UTC with milliseconds, exactly `YYYY-MM-DDTHH:MM:SS.mmmZ`.

One spelling per instant, so timestamps compare correctly as strings and digests stay stable.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from oms.errors import InvalidInputError

TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")


def format_ts(moment: datetime) -> str:
    """Render an aware datetime in the canonical form (truncated to milliseconds)."""
    if moment.tzinfo is None:
        raise InvalidInputError("timestamp must be timezone-aware")
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def parse_ts(text: object, what: str = "timestamp") -> datetime:
    """Parse a canonical timestamp, or raise naming `what`."""
    if not isinstance(text, str) or TIMESTAMP.fullmatch(text) is None:
        raise InvalidInputError(f"{what} {str(text)[:40]!r} is not YYYY-MM-DDTHH:MM:SS.mmmZ")
    try:  # the grammar is fixed, so the fields are at fixed offsets (no `_strptime` import)
        return datetime(
            int(text[0:4]),
            int(text[5:7]),
            int(text[8:10]),
            int(text[11:13]),
            int(text[14:16]),
            int(text[17:19]),
            int(text[20:23]) * 1000,
            tzinfo=UTC,
        )
    except ValueError as exc:
        raise InvalidInputError(f"{what} {text!r} is not a real date and time") from exc


def now() -> str:
    """The current time, canonical."""
    return format_ts(datetime.now(UTC))


def add_ms(text: str, milliseconds: int) -> str:
    """`text` plus `milliseconds`."""
    return format_ts(parse_ts(text) + timedelta(milliseconds=milliseconds))


def next_after(previous: str, candidate: str) -> str:
    """The later of `candidate` and one millisecond after `previous` (transitions strictly advance)."""
    prev = parse_ts(previous, "previous timestamp")
    cand = parse_ts(candidate, "candidate timestamp")
    return format_ts(max(prev + timedelta(milliseconds=1), cand))
