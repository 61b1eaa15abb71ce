"""The one wait of the suite, `tests.helpers.eventually` (and its mirror `stays`), on a fake
clock: it returns what the condition returned once it holds, polls with a short doubling sleep that
never passes the deadline, scales its deadline by OMS_TEST_SLOWDOWN, checks once more at the
deadline, and fails saying what it last saw. Nothing here sleeps for real."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tests.helpers import DEFAULT_SLOWDOWN, SLOWDOWN_ENV, eventually, slowdown, stays


class FakeClock:
    """A monotonic clock that moves only when the code under test sleeps."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds > 0
        self.sleeps.append(seconds)
        self.now += seconds


def _after(clock: FakeClock, at: float, value: object = "ready") -> Callable[[], object]:
    """A condition that holds from `at` seconds after the start on `clock`."""
    start = clock.now
    return lambda: value if clock.now - start >= at else None


@pytest.fixture(autouse=True)
def _one_x(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SLOWDOWN_ENV, "1")


def test_returns_the_value_at_once_without_sleeping() -> None:
    fake = FakeClock()
    assert eventually(lambda: 42, clock=fake.clock, sleep=fake.sleep) == 42
    assert fake.sleeps == []


def test_polls_with_a_doubling_sleep_up_to_the_cap() -> None:
    fake = FakeClock()
    got = eventually(_after(fake, 1.0), timeout=5, clock=fake.clock, sleep=fake.sleep)
    assert got == "ready"
    assert fake.sleeps[:5] == [0.01, 0.02, 0.04, 0.08, 0.16]
    assert set(fake.sleeps[5:]) == {0.25}


def test_fails_at_the_deadline_saying_what_it_last_saw() -> None:
    fake = FakeClock()
    seen = iter(range(1000))
    with pytest.raises(AssertionError) as failed:
        eventually(
            lambda: next(seen) > 10**6 and "never",
            timeout=2,
            what="the ticket is leased",
            clock=fake.clock,
            sleep=fake.sleep,
        )
    message = str(failed.value)
    assert message.startswith("the ticket is leased: not within 2 s (2 s x OMS_TEST_SLOWDOWN 1);")
    assert message.endswith("last seen: False")
    assert fake.now == pytest.approx(102.0)  # it slept to the deadline, not past it


def test_an_assertion_or_an_ignored_exception_is_not_yet_and_is_reported() -> None:
    fake = FakeClock()
    calls: list[int] = []

    def flaky() -> str:
        calls.append(1)
        if len(calls) == 1:
            raise FileNotFoundError("no result.json yet")
        if len(calls) == 2:
            raise AssertionError("state is 'open'")
        return "leased"

    got = eventually(flaky, ignoring=(FileNotFoundError,), clock=fake.clock, sleep=fake.sleep)
    assert got == "leased"

    def stuck() -> None:
        raise AssertionError("state is 'open'")

    with pytest.raises(AssertionError, match=r"stuck: .* last seen: AssertionError: state is"):
        eventually(stuck, timeout=1, clock=fake.clock, sleep=fake.sleep)


def test_an_exception_it_does_not_ignore_fails_at_once() -> None:
    fake = FakeClock()

    def broken() -> bool:
        raise KeyError("health")

    with pytest.raises(KeyError):
        eventually(broken, clock=fake.clock, sleep=fake.sleep)
    assert fake.sleeps == []


def test_the_deadline_is_scaled_by_the_slowdown_knob(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SLOWDOWN_ENV, "4")
    fake = FakeClock()
    assert eventually(_after(fake, 7.5), timeout=2, clock=fake.clock, sleep=fake.sleep)
    with pytest.raises(AssertionError, match=r"not within 8 s \(2 s x OMS_TEST_SLOWDOWN 4\)"):
        eventually(_after(fake, 10**6), timeout=2, clock=fake.clock, sleep=fake.sleep)


def test_the_slowdown_default_and_refusals(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SLOWDOWN_ENV)
    assert slowdown() == DEFAULT_SLOWDOWN >= 2  # sized for two busy cores
    for bad in ("0.5", "fast", "nan", "-3"):
        monkeypatch.setenv(SLOWDOWN_ENV, bad)
        with pytest.raises(ValueError, match="give a number of at least 1"):
            slowdown()


@given(
    at=st.floats(min_value=0, max_value=30, allow_nan=False),
    timeout=st.floats(min_value=0.1, max_value=30, allow_nan=False),
)
def test_holds_iff_the_condition_holds_by_the_deadline(at: float, timeout: float) -> None:
    assume(abs(at - timeout) > 1e-6)  # (float rounding at the deadline itself)
    fake = FakeClock()
    condition = _after(fake, at)
    if at < timeout:
        assert eventually(condition, timeout=timeout, clock=fake.clock, sleep=fake.sleep)
        assert fake.now - 100.0 <= at + 0.25  # noticed within one capped poll
    else:
        with pytest.raises(AssertionError, match="last seen: None"):
            eventually(condition, timeout=timeout, clock=fake.clock, sleep=fake.sleep)
        assert fake.now - 100.0 == pytest.approx(timeout)


def test_stays_looks_for_the_whole_scaled_window(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SLOWDOWN_ENV, "2")
    fake = FakeClock()
    looks: list[float] = []

    def look() -> bool:
        looks.append(fake.now)
        return True

    stays(look, seconds=1.5, clock=fake.clock, sleep=fake.sleep)
    assert fake.now == pytest.approx(103.0)  # 1.5 s x 2
    assert len(looks) >= 30  # every 0.1 s, the last at the window's end
    assert looks[-1] == pytest.approx(103.0)


def test_stays_fails_at_the_first_look_that_does_not_hold() -> None:
    fake = FakeClock()
    started = _after(fake, 0.35, value="the agent started")
    with pytest.raises(AssertionError, match="no agent yet: no longer held; last seen: False"):
        stays(
            lambda: not started(),
            seconds=2,
            what="no agent yet",
            clock=fake.clock,
            sleep=fake.sleep,
        )
    assert fake.now - 100.0 == pytest.approx(0.4)  # it stopped looking there
