"""`domain/hosts.py`: a host's name (the same rule as schemas/defs.schema.json's `host_name`), which
workers a host acts on (never another host's; a record without a host is the reader's), and when a
host is reachable (its newest heartbeat not expired)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.canonical import add_ms
from oms.domain import hosts as rules
from oms.errors import ConfigError, SchemaValidationError
from oms.limits import LIMITS
from oms.schemas import validate
from oms.schemas.payloads import WorkerPayload
from tests.helpers import T0, worker_sample

NAMES = st.sampled_from(["a", "b", "host-1", "box.lan", "c_d"])
PAYLOADS = st.fixed_dictionaries(
    {"dispatch_id": st.integers(0, 10**6).map(lambda n: f"dsp-{n}")}, optional={"host": NAMES}
).map(lambda fields: worker_sample(**fields))


@given(st.lists(PAYLOADS, max_size=30), NAMES)
def test_a_host_acts_only_on_its_own_workers_and_those_naming_none(
    payloads: list[WorkerPayload], this: str
) -> None:
    kept = rules.ours(payloads, lambda p: p, this)
    assert kept == [p for p in payloads if p.get("host", this) == this]  # order kept, none lost
    assert all(rules.host_of(p, this) == this for p in kept)
    for p in payloads:
        if "host" in p and p["host"] != this:
            assert p not in kept or p.get("host") == this
            assert not rules.mine(p, this)
            assert rules.host_of(p, this) == p["host"]


@given(st.text(max_size=80) | st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,70}", fullmatch=True))
def test_a_name_is_accepted_exactly_when_the_schema_accepts_it(name: str) -> None:
    try:
        validate("host-settings", {"host": {"name": name}}, where="host.toml")
        schema_ok = True
    except SchemaValidationError:
        schema_ok = False
    try:
        rules.check_name(name, "OMS_HOST")
        ok = True
    except ConfigError as exc:
        ok = False
        assert exc.message.startswith("OMS_HOST: ")
        assert "\n" not in exc.message
    assert ok == schema_ok
    assert not ok or len(name) <= LIMITS.host_name_chars


def test_where_the_name_comes_from() -> None:
    assert rules.resolve({"OMS_HOST": "b"}, "s", "/h.toml", "m") == ("b", "OMS_HOST")
    assert rules.resolve({}, "s", "/h.toml", "m") == ("s", "/h.toml")
    assert rules.resolve({}, None, "/h.toml", "m") == ("m", "hostname")
    long = "x" * 70 + ".example.com"  # an FQDN longer than a name: its first label, if that is one
    with pytest.raises(ConfigError, match="the machine's hostname"):
        rules.resolve({}, None, "/h.toml", long)
    assert rules.resolve({}, None, "/h.toml", "m" * 60 + ".lan").name == "m" * 60  # 64: too long
    with pytest.raises(ConfigError, match=r"^OMS_HOST: 'no spaces' is not a host name"):
        rules.resolve({"OMS_HOST": "no spaces"}, None, "/h.toml", "m")
    with pytest.raises(ConfigError, match=r"/h.toml: \[host\] name"):
        rules.resolve({}, "-bad", "/h.toml", "m")


def test_the_settings_file() -> None:
    assert rules.parse_settings(b'[host]\nname = "b-1"\n', "/h.toml") == "b-1"
    for bad in (b"[host]\n", b'[host]\nname = "a b"\n', b"[notify]\n", b"\xff", b"[host"):
        with pytest.raises(ConfigError, match=r"^/h\.toml: "):
            rules.parse_settings(bad, "/h.toml")
    env = {"HOME": "/home/p"}
    assert rules.settings_path(env) == "/home/p/.config/oms/host.toml"
    assert rules.settings_path({**env, "XDG_CONFIG_HOME": "/x"}) == "/x/oms/host.toml"


@given(st.integers(0, 3 * LIMITS.host_lease_s * 1000))
def test_another_host_is_up_until_its_heartbeat_expires(after_ms: int) -> None:
    beat = rules.beat("b", T0, 42)
    validate("host-beat", beat, where="beat")
    now = add_ms(T0, after_ms)
    expected = rules.UP if after_ms < LIMITS.host_lease_s * 1000 else rules.UNREACHABLE
    assert rules.state("b", beat, now, "a") == expected
    assert rules.state("a", beat, now, "a") == rules.UP  # this host, always
    assert rules.state("b", None, now, "a") == rules.UNREACHABLE  # never heard from
    due = rules.beat_due(beat, now)
    assert due == (after_ms >= LIMITS.host_lease_s * 1000 // 3)
    # a beat renewed whenever due never lets the lease lapse between two renewals
    assert not due or rules.state("b", rules.beat("b", now, 42), now, "a") == rules.UP


@given(st.integers(0, 3 * LIMITS.host_lease_s * 1000))
def test_a_leased_beat_is_up_while_it_is_there_whatever_the_clocks_say(after_ms: int) -> None:
    # etcd (amendment `etcdhost`): the key goes with its lease; no clock is compared
    beat, now = rules.beat("b", T0, 42), add_ms(T0, after_ms)
    assert rules.state("b", beat, now, "a", leased=True) == rules.UP
    assert rules.state("b", None, now, "a", leased=True) == rules.UNREACHABLE
    assert rules.state("a", None, now, "a", leased=True) == rules.UP


def test_a_clock_stepped_back_beats_again() -> None:
    beat = rules.beat("b", add_ms(T0, 10_000), 42)
    assert rules.beat_due(beat, T0)
    assert rules.beat_due(None, T0)


def test_the_refusal_names_the_host() -> None:
    assert rules.refusal("dsp-1", "b") == "worker dsp-1 runs on host b; run this there"


def test_a_pool_tickets_chain_is_its_workers_host_s_else_the_leasing_host_s() -> None:
    """ADR 0043 amendment `leasehost`: before its worker names a host, the host that leased it."""
    a: WorkerPayload = {**worker_sample(), "host": "host-a"}
    assert rules.chain_is_mine("host-a", None, "host-a")
    assert not rules.chain_is_mine("host-a", None, "host-b")  # leased by a, no worker yet
    assert rules.chain_is_mine(None, None, "host-b")  # a lease that names no host: anyone's
    assert not rules.chain_is_mine("host-b", a, "host-b")  # its worker runs on a: a's
    assert rules.chain_is_mine("host-b", a, "host-a")
