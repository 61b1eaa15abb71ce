"""`--until` and `--since` as a person types them (`canonical/when.py`): a duration is exactly that
far from now, a time of day is the next (or last) such local minute, the canonical form is itself,
anything else is refused naming the forms."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.canonical.timestamps import parse_ts, render_ms
from oms.canonical.when import when
from oms.errors import InvalidInputError

NOW = st.integers(parse_ts("2000-01-01T00:00:00.000Z"), parse_ts("2090-01-01T00:00:00.000Z"))
OFFSETS = st.integers(-12 * 3600, 14 * 3600).map(lambda s: s - s % 60)


@given(NOW, st.integers(0, 400), st.integers(0, 30), st.integers(0, 3000), st.booleans())
def test_a_duration_is_exactly_that_far_from_now(
    now: int, days: int, hours: int, minutes: int, ahead: bool
) -> None:
    text = f"{days}d{hours}h{minutes}m"
    span = ((days * 24 + hours) * 60 + minutes) * 60_000
    assert parse_ts(when(text, render_ms(now), ahead=ahead)) == now + (span if ahead else -span)
    assert when(f"{minutes}m", render_ms(now), ahead=True) == render_ms(now + minutes * 60_000)


@given(NOW, st.integers(0, 23), st.integers(0, 59), OFFSETS, st.booleans())
def test_a_time_of_day_is_the_next_or_last_such_local_minute(
    now: int, hour: int, minute: int, offset: int, ahead: bool
) -> None:
    got = parse_ts(
        when(f"{hour:02d}:{minute:02d}", render_ms(now), ahead=ahead, offset=lambda _: offset)
    )
    local = got + offset * 1000
    assert (local // 60_000) % 1440 == hour * 60 + minute
    assert local % 60_000 == 0
    if ahead:
        assert now < got <= now + 86_400_000
    else:
        assert now - 86_400_000 < got <= now


def test_nine_oclock_here_and_in_new_york() -> None:
    now = "2026-12-02T13:00:00.000Z"
    assert when("09:00", now, ahead=True, offset=lambda _: 0) == "2026-12-03T09:00:00.000Z"
    assert when("9:00", now, ahead=True, offset=lambda _: -5 * 3600) == "2026-12-02T14:00:00.000Z"
    assert when("09:00", now, ahead=False, offset=lambda _: 0) == "2026-12-02T09:00:00.000Z"
    assert when("2h", now, ahead=True) == "2026-12-02T15:00:00.000Z"
    assert when("90m", now, ahead=False) == "2026-12-02T11:30:00.000Z"
    assert when(now, "2001-01-01T00:00:00.000Z", ahead=True) == now


@pytest.mark.parametrize(
    "text", ["", "2", "h", "2x", "-2h", "24:00", "9:60", "2h1d", "tomorrow", "2026-12-02", "2h\n"]
)
def test_anything_else_is_refused_naming_the_forms(text: str) -> None:
    with pytest.raises(InvalidInputError, match=r"is not a time: give a duration \(90m, 2h"):
        when(text, "2026-12-02T13:00:00.000Z", ahead=True)


def test_a_time_past_the_calendar_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="outside the years 0001-9999"):
        when("99999d", "9999-01-01T00:00:00.000Z", ahead=True)
