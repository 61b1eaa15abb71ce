"""`domain/routing.py`: which provider serves a dispatch, cooldowns from error texts, quota
probes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from oms.canonical import add_ms, parse_ts
from oms.domain import routing as r
from oms.limits import LIMITS

NOW = "2026-12-01T10:00:00.000Z"
LATER = "2026-12-01T10:30:00.000Z"
IDS = ["a", "b", "c", "d"]


def fleet(**overrides: r.Provider) -> r.Routing:
    providers = {
        "a": r.Provider(
            "a", "anthropic", cost_tier=2, tags=frozenset({"code"}), models={"fast": "haiku"}
        ),
        "b": r.Provider("b", "anthropic", cost_tier=4, tags=frozenset({"code", "long-context"})),
        "c": r.Provider("c", "anthropic", cost_tier=1),
        "o": r.Provider("o", "openai", cost_tier=1, tags=frozenset({"code"})),
    }
    providers.update(overrides)
    return r.Routing(providers, order=("a", "b", "c", "o"))


def test_auto_takes_the_first_provider_of_the_order_that_can_serve() -> None:
    choice = r.choose(fleet(), "claude_interactive", "sonnet", r.RouteClass(), {}, NOW)
    assert (choice.provider_id, choice.rule, choice.model) == ("a", "auto", "sonnet")
    assert choice.excluded == {
        "o": "speaks openai, the role's CLI speaks anthropic",
        "b": "a came first (auto)",
        "c": "a came first (auto)",
    }


def test_a_provider_in_cooldown_is_skipped_until_its_reset() -> None:
    standings = {"a": r.Standing(LATER, "quota", "usage limit reached")}
    assert (
        r.choose(fleet(), "claude_interactive", "m", r.RouteClass(), standings, NOW).provider_id
        == "b"
    )
    assert (
        r.choose(fleet(), "claude_interactive", "m", r.RouteClass(), standings, LATER).provider_id
        == "a"
    )


def test_a_reroute_keeps_the_class_cost_cap_and_tags() -> None:
    """The seed's reroute walked the global order and forgot the class: here `b` (tier 4) is never
    taken for a class capped at 3, and `c` (no `code` tag) never for one that requires it."""
    standings = {"a": r.Standing(LATER, "quota", "usage limit")}
    cls = r.RouteClass(max_cost_tier=3, require_tags=frozenset({"code"}))
    choice = r.choose(fleet(), "claude_interactive", "m", cls, standings, NOW)
    assert choice.provider_id is None
    assert choice.excluded["b"] == "cost tier 4 above the class's 3"
    assert choice.excluded["c"] == "missing tags code"
    assert choice.wait_until == LATER  # the queue waits for `a`'s reset


def test_quota_at_the_skip_level_excludes_and_unknown_does_not() -> None:
    standings = {"a": r.Standing(quota_percent=95), "b": r.Standing(quota_percent=None)}
    choice = r.choose(fleet(), "claude_interactive", "m", r.RouteClass(), standings, NOW)
    assert choice.provider_id == "b"
    assert choice.excluded["a"] == "quota 95% used (skipped at 95%)"


def test_the_class_provider_and_alias_come_first() -> None:
    choice = r.choose(
        fleet(), "claude_interactive", "m", r.RouteClass(provider="a", alias="fast"), {}, NOW
    )
    assert (choice.provider_id, choice.rule, choice.model) == ("a", "class", "haiku")
    no_alias = r.choose(
        fleet(), "claude_interactive", "m", r.RouteClass(provider="b", alias="fast"), {}, NOW
    )
    assert (
        no_alias.provider_id == "a"
    )  # b has no such alias: the class falls to the order, alias kept
    assert no_alias.excluded["b"] == "has no model alias fast"


def test_a_pin_skips_cooldown_and_quota_but_not_the_family_or_the_class() -> None:
    standings = {"a": r.Standing(LATER, "quota", "x", quota_percent=100)}
    pinned = r.choose(fleet(), "claude_interactive", "m", r.RouteClass(), standings, NOW, pin="a")
    assert (pinned.provider_id, pinned.rule) == ("a", "pin")
    wrong = r.choose(fleet(), "claude_interactive", "m", r.RouteClass(), {}, NOW, pin="o")
    assert wrong.provider_id is None
    assert wrong.excluded["o"] == "pinned, but speaks openai, the role's CLI speaks anthropic"
    capped = r.choose(
        fleet(), "claude_interactive", "m", r.RouteClass(max_cost_tier=3), {}, NOW, pin="b"
    )
    assert capped.provider_id is None
    disabled = fleet(a=r.Provider("a", "anthropic", enabled=False))
    assert (
        r.choose(disabled, "claude_interactive", "m", r.RouteClass(), {}, NOW, pin="a").provider_id
        is None
    )


def test_a_command_worker_routes_nowhere() -> None:
    choice = r.choose(fleet(), "command", "none", r.RouteClass(), {}, NOW)
    assert (choice.provider_id, choice.model, choice.rule) == (None, "none", "none")


PROVIDERS = st.builds(
    r.Provider,
    provider_id=st.just("x"),
    family=st.sampled_from(["anthropic", "openai"]),
    enabled=st.booleans(),
    cost_tier=st.integers(1, 5),
    tags=st.frozensets(st.sampled_from(["code", "fast", "vision"])),
    models=st.dictionaries(st.sampled_from(["default", "fast"]), st.just("model-x"), max_size=2),
    quota_skip_at=st.integers(50, 100),
)
STANDINGS = st.builds(
    r.Standing,
    cooldown_until=st.sampled_from([None, "2026-12-01T09:00:00.000Z", LATER]),
    cooldown_kind=st.sampled_from(["quota", "transient"]),
    quota_percent=st.one_of(st.none(), st.integers(0, 100)),
)
CLASSES = st.builds(
    r.RouteClass,
    provider=st.one_of(st.none(), st.sampled_from(IDS)),
    alias=st.one_of(st.none(), st.just("fast")),
    max_cost_tier=st.one_of(st.none(), st.integers(1, 5)),
    require_tags=st.frozensets(st.sampled_from(["code", "fast"]), max_size=1),
    order=st.one_of(st.none(), st.lists(st.sampled_from([*IDS, "ghost"]), max_size=5).map(tuple)),
)


@given(
    providers=st.lists(PROVIDERS, min_size=1, max_size=4),
    standings=st.lists(STANDINGS, min_size=4, max_size=4),
    cls=CLASSES,
    order=st.lists(st.sampled_from(IDS), max_size=4).map(tuple),
    active=st.one_of(st.none(), st.sampled_from(IDS)),
    pin=st.one_of(st.none(), st.sampled_from([*IDS, "ghost"])),
    transport=st.sampled_from(["claude_interactive", "codex_goal"]),
)
def test_the_choice_always_obeys_every_rule(
    providers: list[r.Provider],
    standings: list[r.Standing],
    cls: r.RouteClass,
    order: tuple[str, ...],
    active: str | None,
    pin: str | None,
    transport: str,
) -> None:
    """Whatever the fleet: a chosen provider has no exclusion (a pin: none but cooldown and quota);
    every provider not chosen has its reason; none chosen only when every configured provider is
    excluded."""
    configured = {IDS[i]: r.Provider(IDS[i], p.family, p.enabled, None, p.cost_tier, p.tags,
                                     p.models, None, p.quota_skip_at)
                  for i, p in enumerate(providers)}  # fmt: skip
    routing = r.Routing(configured, order=order, active=active)
    by_id = dict(zip(IDS, standings, strict=True))
    choice = r.choose(routing, transport, "role-model", cls, by_id, NOW, pin=pin)
    family = r.family_of(transport)
    assert family is not None
    if choice.provider_id is not None:
        pinned = choice.rule == "pin"
        assert (
            r.exclusion(
                choice.provider_id,
                routing,
                family,
                cls,
                by_id[choice.provider_id],
                NOW,
                pinned=pinned,
            )
            is None
        )
        assert choice.provider_id not in choice.excluded
        provider = configured[choice.provider_id]
        assert cls.max_cost_tier is None or provider.cost_tier <= cls.max_cost_tier
        assert cls.require_tags <= provider.tags
        assert (choice.rule == "pin") == (pin is not None)
    assert set(configured) - {choice.provider_id} <= set(
        choice.excluded
    )  # every other one says why
    if choice.provider_id is None and pin is None:  # none: every candidate is excluded
        candidates = {
            cls.provider,
            active,
            *(cls.order if cls.order is not None else order or configured),
        }
        assert all(
            r.exclusion(p, routing, family, cls, by_id[p], NOW) is not None
            for p in candidates & set(configured)
        )


@given(text=st.text(max_size=300))
def test_a_cooldown_is_bounded_whatever_the_error_says(text: str) -> None:
    found = r.cooldown_of(text, NOW, r.Routing({}))
    if found is not None:
        assert parse_ts(NOW) < parse_ts(found.until) <= parse_ts(NOW) + LIMITS.cooldown_max_s * 1000
        assert found.kind in ("quota", "transient")
        assert len(found.reason) <= 200


def test_cooldowns_from_what_providers_say() -> None:
    routing = r.Routing({})
    cases = {
        "You've hit your usage limit. Try again in 3 hours.": (add_ms(NOW, 3 * 3600_000), "quota"),
        "insufficient_quota: You exceeded your current quota": (add_ms(NOW, 30 * 60_000), "quota"),
        "Claude AI usage limit reached|1796126400": ("2026-12-01T12:00:00.000Z", "quota"),
        "weekly limit resets at 2026-12-03T00:00:00+01:00": ("2026-12-02T23:00:00.000Z", "quota"),
        "429 Too Many Requests; retry-after: 20 seconds": (add_ms(NOW, 20_000), "transient"),
        "overloaded_error": (add_ms(NOW, 90_000), "transient"),
        "quota exceeded, resets in 30 days": (add_ms(NOW, LIMITS.cooldown_max_s * 1000), "quota"),
    }
    for text, (until, kind) in cases.items():
        found = r.cooldown_of(text, NOW, routing)
        assert found is not None, text
        assert (found.until, found.kind) == (until, kind), text
    assert r.cooldown_of("the tests failed: 3 errors", NOW, routing) is None


def test_a_shorter_cooldown_never_shortens_a_rest() -> None:
    resting = r.Standing(LATER, "quota", "x")
    assert not r.later(resting, r.Cooldown(add_ms(NOW, 60_000), "transient", "429"))
    assert r.later(resting, r.Cooldown(add_ms(LATER, 1), "quota", "again"))
    assert r.later(r.Standing(), r.Cooldown(add_ms(NOW, 1), "transient", "429"))


@given(output=st.binary(max_size=5000))
def test_a_probe_reads_a_percent_or_nothing(output: bytes) -> None:
    value = r.parse_probe(output)
    assert value is None or 0 <= value <= 100
    if not any(chr(b).isdigit() for b in output[: LIMITS.provider_probe_output_bytes]):
        assert value is None


def test_probe_outputs() -> None:
    assert r.parse_probe(b"97.6% used\n") == 98
    assert r.parse_probe(b"used=140") == 100
    assert r.parse_probe(b"-3") == 0
    assert r.parse_probe(b"unknown") is None
    assert (
        r.parse_probe(b"x" * LIMITS.provider_probe_output_bytes + b"50") is None
    )  # only the first 4 KiB is read
