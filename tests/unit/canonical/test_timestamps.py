"""Timestamps: one spelling per instant, strictly advancing transitions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.canonical import add_ms, format_ts, next_after, now, parse_ts
from oms.errors import InvalidInputError

moments = st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(9998, 1, 1), timezones=st.just(UTC))


@given(moments)
def test_format_parse_round_trip(moment: datetime) -> None:
    text = format_ts(moment)
    assert parse_ts(text) == moment.replace(microsecond=moment.microsecond // 1000 * 1000)
    assert format_ts(parse_ts(text)) == text


@given(moments, moments)
def test_string_order_is_time_order(a: datetime, b: datetime) -> None:
    assert (format_ts(a) < format_ts(b)) == (
        a.replace(microsecond=a.microsecond // 1000 * 1000) < b.replace(microsecond=b.microsecond // 1000 * 1000)
    )


@given(moments, moments)
def test_next_after_strictly_advances(a: datetime, b: datetime) -> None:
    prev, cand = format_ts(a), format_ts(b)
    out = next_after(prev, cand)
    assert out > prev
    assert out >= cand


@pytest.mark.parametrize(
    "bad",
    [
        "2026-01-01T00:00:00Z",
        "2026-01-01 00:00:00.000Z",
        "2026-13-01T00:00:00.000Z",
        "2026-02-30T00:00:00.000Z",
        "2026-01-01T00:00:00.000Z\n",
        "2026-01-01T00:00:00.000+00:00",
        "",
        5,
    ],
)
def test_bad_timestamps_rejected(bad: object) -> None:
    with pytest.raises(InvalidInputError):
        parse_ts(bad)


def test_naive_datetimes_rejected() -> None:
    with pytest.raises(InvalidInputError):
        format_ts(datetime(2026, 1, 1))


def test_now_and_add() -> None:
    t = now()
    assert parse_ts(add_ms(t, 1500)) - parse_ts(t) == timedelta(milliseconds=1500)
