"""Timestamps: one spelling per instant, strictly advancing transitions, and integer calendar
arithmetic equal to `datetime`'s (the hook path does not import datetime)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.canonical import add_ms, format_ts, next_after, now, parse_ts
from oms.canonical.timestamps import MAX_MS, MIN_MS, render_ms
from oms.errors import InvalidInputError

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
moments = st.datetimes(
    min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59), timezones=st.just(UTC)
)
offsets = st.timedeltas(
    min_value=timedelta(hours=-23, minutes=-59), max_value=timedelta(hours=23, minutes=59)
)


def _ms(moment: datetime) -> int:
    return (moment - EPOCH) // timedelta(milliseconds=1)


def _truncated(moment: datetime) -> datetime:
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def _datetime_spelling(moment: datetime) -> str:
    utc = moment.astimezone(UTC)
    return f"{utc.year:04d}-{utc:%m-%dT%H:%M:%S}.{utc.microsecond // 1000:03d}Z"


@given(moments)
def test_format_parse_round_trip(moment: datetime) -> None:
    text = format_ts(moment)
    assert text == _datetime_spelling(moment)
    assert parse_ts(text) == _ms(_truncated(moment))
    assert (
        format_ts(datetime.fromtimestamp(0, UTC) + timedelta(milliseconds=parse_ts(text))) == text
    )


@given(st.integers(MIN_MS, MAX_MS))
def test_render_equals_datetime(moment: int) -> None:
    text = render_ms(moment)
    assert text == _datetime_spelling(EPOCH + timedelta(milliseconds=moment))
    assert parse_ts(text) == moment


@given(moments, offsets)
def test_any_timezone_renders_the_utc_instant(moment: datetime, offset: timedelta) -> None:
    local = (
        moment.astimezone(timezone(offset))
        if MIN_MS + 86_400_000 < _ms(moment) < MAX_MS - 86_400_000
        else moment
    )
    assert format_ts(local) == _datetime_spelling(moment)


@given(st.text(alphabet="0123456789-T:.Z", min_size=24, max_size=24))
def test_parse_accepts_exactly_what_datetime_accepts(text: str) -> None:
    try:
        want: int | None = _ms(
            datetime(
                int(text[0:4]),
                int(text[5:7]),
                int(text[8:10]),
                int(text[11:13]),
                int(text[14:16]),
                int(text[17:19]),
                int(text[20:23]) * 1000,
                tzinfo=UTC,
            )
        )
    except ValueError:
        want = None
    grammar = text[4] + text[7] + text[10] + text[13] + text[16] + text[19] + text[23] == "--T::.Z"
    digits = (
        text[0:4] + text[5:7] + text[8:10] + text[11:13] + text[14:16] + text[17:19] + text[20:23]
    ).isdigit()
    try:
        got: int | None = parse_ts(text)
    except InvalidInputError:
        got = None
    assert got == (want if grammar and digits else None)


@given(
    st.integers(0, 9999),
    st.integers(0, 99),
    st.integers(0, 99),
    st.integers(0, 99),
    st.integers(0, 99),
)
def test_calendar_fields_are_checked_like_datetime(
    year: int, month: int, day: int, hour: int, second: int
) -> None:
    text = f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:00:{second:02d}.000Z"
    try:
        datetime(year, month, day, hour, 0, second)
        valid = True
    except ValueError:
        valid = False
    if valid:
        assert render_ms(parse_ts(text)) == text
    else:
        with pytest.raises(InvalidInputError):
            parse_ts(text)


@given(moments, st.integers(-(10**12), 10**12))
def test_add_ms_equals_timedelta(moment: datetime, delta: int) -> None:
    text = format_ts(moment)
    try:
        want = _datetime_spelling(_truncated(moment) + timedelta(milliseconds=delta))
    except OverflowError:
        with pytest.raises(InvalidInputError):
            add_ms(text, delta)
        return
    if want.startswith("0000") or len(want) != 24:
        return
    assert add_ms(text, delta) == want


@given(moments, moments)
def test_string_order_is_time_order(a: datetime, b: datetime) -> None:
    assert (format_ts(a) < format_ts(b)) == (_truncated(a) < _truncated(b))
    assert (format_ts(a) < format_ts(b)) == (parse_ts(format_ts(a)) < parse_ts(format_ts(b)))


@given(moments, moments)
def test_next_after_strictly_advances(a: datetime, b: datetime) -> None:
    prev, cand = format_ts(a), format_ts(b)
    out = next_after(prev, cand)
    assert out > prev
    assert out >= cand
    assert parse_ts(out) == max(parse_ts(prev) + 1, parse_ts(cand))


@pytest.mark.parametrize(
    "bad",
    [
        "2026-01-01T00:00:00Z",
        "2026-01-01 00:00:00.000Z",
        "2026-13-01T00:00:00.000Z",
        "2026-02-30T00:00:00.000Z",
        "2100-02-29T00:00:00.000Z",
        "0000-01-01T00:00:00.000Z",
        "2026-01-01T24:00:00.000Z",
        "2026-01-01T00:00:60.000Z",
        "2026-01-01T00:00:00.000Z\n",
        "2026-01-01T00:00:00.000+00:00",
        "\uff12026-01-01T00:00:00.000Z",  # a fullwidth digit
        "",
        5,
    ],
)
def test_bad_timestamps_rejected(bad: object) -> None:
    with pytest.raises(InvalidInputError):
        parse_ts(bad)


def test_leap_days() -> None:
    assert render_ms(parse_ts("2000-02-29T12:00:00.000Z")) == "2000-02-29T12:00:00.000Z"
    assert add_ms("2024-02-28T23:59:59.999Z", 1) == "2024-02-29T00:00:00.000Z"


def test_out_of_range_is_an_error_not_a_crash() -> None:
    with pytest.raises(InvalidInputError):
        add_ms("9999-12-31T23:59:59.999Z", 1)
    with pytest.raises(InvalidInputError):
        add_ms("0001-01-01T00:00:00.000Z", -1)


def test_naive_datetimes_rejected() -> None:
    with pytest.raises(InvalidInputError):
        format_ts(datetime(2026, 1, 1))


def test_now_and_add() -> None:
    t = now()
    assert abs(parse_ts(t) - _ms(datetime.now(UTC))) < 5_000
    assert parse_ts(add_ms(t, 1500)) - parse_ts(t) == 1500
