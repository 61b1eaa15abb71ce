"""Which provider serves a dispatch, and when a provider rests (issue 13, seed 004's rules with
their flaws fixed, ADR 0019). Pure: data in, data out.

A provider is a model API one agent CLI speaks (`family`: `anthropic` for Claude Code, `openai` for
the Codex CLI), an endpoint (None: the CLI's own), a cost tier (1-5), tags, and model aliases. A
role's class narrows the choice: a provider (`provider` or `provider/alias`), a highest cost tier,
required tags, and an order. The choice, first that applies:

1. an explicit pin (`oms dispatch propose --provider`): must be configured, enabled and speak the
   role's family, and stay within the class's cost tier and tags; it skips cooldowns and quota (a
   person decided);
2. the class's provider, unless excluded;
3. the active provider (`routing.active`), unless excluded;
4. the first provider of the class's order (else `routing.order`, else the providers as configured)
   not excluded.

Exclusions, the first that applies is the reason: not configured, disabled, another family than the
role's CLI speaks, in cooldown, quota at or above its skip level (default 95), a cost tier above the
class's highest, a missing tag, no such model alias. Every rule applies to every step after the pin
— a reroute keeps the class's cost cap and tags (the seed's reroute forgot them).

Cooldowns: a quota error rests a provider until the reset it states, else `Limits.cooldown_minutes`;
a rate limit (a transient 429) for the seconds it states, else `Limits.transient_cooldown_s`. A
stated reset is bounded: never past, never beyond `Limits.cooldown_max_s`. A quota probe's output
gives the first number, clamped to 0-100; none means unknown, never full.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from oms.canonical import add_ms, format_ts, parse_ts
from oms.errors import InvalidInputError
from oms.limits import LIMITS
from oms.provider_names import FAMILIES as WORKER_FAMILIES

FAMILIES = {**WORKER_FAMILIES, "claude_print": "anthropic", "codex_exec": "openai"}  # and advisors
DEFAULT_COST_TIER = 3


@dataclass(frozen=True, slots=True)
class Provider:
    """One configured provider."""

    provider_id: str
    family: str
    enabled: bool = True
    endpoint: str | None = None
    cost_tier: int = DEFAULT_COST_TIER
    tags: frozenset[str] = frozenset()
    models: Mapping[str, str] = field(default_factory=dict)  # alias -> model
    quota_probe: tuple[str, ...] | None = None
    quota_skip_at: int = LIMITS.quota_skip_at
    key_env: str | None = (
        None  # the proxy's environment variable holding its key (None: the family's default)
    )
    auth: str = (
        "key"  # the proxy's credential: "key" (environment, else Codex's API key) | "codex-chatgpt"
    )
    quota_probe_network: str = "none"  # "host": the probe shares the host's network (a warning)


@dataclass(frozen=True, slots=True)
class RouteClass:
    """A role's class: what of the providers it may use."""

    provider: str | None = None
    alias: str | None = None
    max_cost_tier: int | None = None
    require_tags: frozenset[str] = frozenset()
    order: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Routing:
    """The configured providers and the fleet's order."""

    providers: Mapping[str, Provider]
    order: tuple[str, ...] = ()
    active: str | None = None
    cooldown_minutes: int = LIMITS.cooldown_minutes
    transient_cooldown_s: int = LIMITS.transient_cooldown_s


@dataclass(frozen=True, slots=True)
class Standing:
    """What the store says of a provider now: its cooldown and its last quota reading."""

    cooldown_until: str | None = None
    cooldown_kind: str | None = None  # quota | transient
    cooldown_reason: str | None = None
    quota_percent: int | None = None


@dataclass(frozen=True, slots=True)
class Choice:
    """The provider chosen (None: none can serve), by which rule, and why each other one was not."""

    provider_id: str | None
    model: str | None
    endpoint: str | None
    rule: str  # pin | class | active | auto | none
    excluded: dict[str, str]
    wait_until: str | None = (
        None  # none can serve: the earliest cooldown's end, if one would free one
    )


def family_of(transport: str) -> str | None:
    """The API family a transport's CLI speaks (None: a command worker, which routes nowhere)."""
    return FAMILIES.get(transport)


def exclusion(
    provider_id: str,
    routing: Routing,
    family: str,
    cls: RouteClass,
    standing: Standing,
    now: str,
    *,
    pinned: bool = False,
) -> str | None:
    """Why `provider_id` cannot serve (the first reason, in the seed's order), or None."""
    provider = routing.providers.get(provider_id)
    if provider is None:
        return "not configured"
    if not provider.enabled:
        return "disabled"
    if provider.family != family:
        return f"speaks {provider.family}, the role's CLI speaks {family}"
    if (
        not pinned
        and standing.cooldown_until is not None
        and parse_ts(standing.cooldown_until) > parse_ts(now)
    ):
        why = f": {standing.cooldown_reason}" if standing.cooldown_reason else ""
        return (
            f"in {standing.cooldown_kind or 'quota'} cooldown until {standing.cooldown_until}{why}"
        )
    if (
        not pinned
        and standing.quota_percent is not None
        and standing.quota_percent >= provider.quota_skip_at
    ):
        return f"quota {standing.quota_percent}% used (skipped at {provider.quota_skip_at}%)"
    if cls.max_cost_tier is not None and provider.cost_tier > cls.max_cost_tier:
        return f"cost tier {provider.cost_tier} above the class's {cls.max_cost_tier}"
    missing = sorted(cls.require_tags - provider.tags)
    if missing:
        return f"missing tags {', '.join(missing)}"
    if cls.alias is not None and cls.alias not in provider.models:
        return f"has no model alias {cls.alias}"
    return None


def choose(
    routing: Routing,
    transport: str,
    role_model: str,
    cls: RouteClass,
    standings: Mapping[str, Standing],
    now: str,
    pin: str | None = None,
) -> Choice:
    """The provider for a dispatch of a role (module docstring), with every other provider's
    exclusion."""
    family = family_of(transport)
    if family is None:
        return Choice(
            None,
            role_model,
            None,
            "none",
            dict.fromkeys(routing.providers, "a command worker calls no model"),
        )

    def why(provider_id: str, pinned: bool = False) -> str | None:
        standing = standings.get(provider_id, Standing())
        return exclusion(provider_id, routing, family, cls, standing, now, pinned=pinned)

    excluded = {p: reason for p in routing.providers if (reason := why(p)) is not None}
    if pin is not None:
        reason = why(pin, pinned=True)
        if reason is not None:
            refused = {**excluded, pin: f"pinned, but {reason}"}
            for other in routing.providers:
                refused.setdefault(other, f"not the pinned provider {pin}")
            return Choice(None, None, None, "none", refused)
        return _chosen(routing, pin, "pin", cls, role_model, excluded)
    order = cls.order if cls.order is not None else (routing.order or tuple(routing.providers))
    steps: list[tuple[str, Sequence[str]]] = [
        ("class", [cls.provider] if cls.provider is not None else []),
        ("active", [routing.active] if routing.active is not None else []),
        ("auto", order),
    ]
    for rule, candidates in steps:
        for candidate in candidates:
            if candidate not in excluded and candidate in routing.providers:
                return _chosen(routing, candidate, rule, cls, role_model, excluded)
            excluded.setdefault(candidate, "not configured")
    for provider_id in routing.providers:
        excluded.setdefault(
            provider_id, "not in the class's order" if cls.order is not None else "not in the order"
        )
    ends = [
        s.cooldown_until
        for p, s in standings.items()
        if p in routing.providers
        and s.cooldown_until is not None
        and parse_ts(s.cooldown_until) > parse_ts(now)
    ]
    return Choice(None, None, None, "none", excluded, min(ends, key=parse_ts) if ends else None)


def _chosen(
    routing: Routing,
    provider_id: str,
    rule: str,
    cls: RouteClass,
    role_model: str,
    excluded: dict[str, str],
) -> Choice:
    model, endpoint = what_runs(routing.providers[provider_id], cls, role_model)
    others = {p: r for p, r in excluded.items() if p != provider_id}
    for other in routing.providers:
        if other != provider_id:
            others.setdefault(other, f"{provider_id} came first ({rule})")
    return Choice(provider_id, model, endpoint, rule, others)


def what_runs(provider: Provider, cls: RouteClass, role_model: str) -> tuple[str, str | None]:
    """The model and endpoint a dispatch routed to `provider` runs with: the class's alias, else the
    provider's `default` model, else the role's; the provider's endpoint (None: the CLI's own).
    KeyError: the provider has no such alias."""
    model = (
        provider.models[cls.alias]
        if cls.alias is not None
        else provider.models.get("default", role_model)
    )
    return model, provider.endpoint


# ---------------------------------------------------------------------- cooldowns
_QUOTA = re.compile(
    r"usage limit|quota|insufficient_quota|credit balance|out of "
    r"credits|billing|limit reached|limit\b.{0,40}\breset",
    re.IGNORECASE,
)
_TRANSIENT = re.compile(r"rate.?limit|\b429\b|too many requests|overloaded|\b529\b", re.IGNORECASE)
_RESET_AT = re.compile(
    r"\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2}))"
)
_RESET_EPOCH = re.compile(
    r"\|(\d{10})\b"
)  # Claude Code: "Claude AI usage limit reached|<unix seconds>"
_RESET_IN = re.compile(
    r"(?:in|after|retry[- ]after:?)\s+(\d{1,7})\s*(s|sec|secs|seconds?"
    r"|m|min|mins|minutes?|h|hr|hrs|hours?|d|days?)\b",
    re.IGNORECASE,
)
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400}


CooldownKind = Literal["quota", "transient"]  # a provider record's `cooldown_kind`


@dataclass(frozen=True, slots=True)
class Cooldown:
    """A provider's rest: until when, why, and of which kind."""

    until: str
    kind: CooldownKind
    reason: str


def cooldown_of(text: str, now: str, routing: Routing) -> Cooldown | None:
    """The cooldown an error text calls for (quota before rate limit), or None for another error."""
    text = text[:4096]
    kind: CooldownKind
    if _QUOTA.search(text):
        kind, default_s = "quota", routing.cooldown_minutes * 60
    elif _TRANSIENT.search(text):
        kind, default_s = "transient", routing.transient_cooldown_s
    else:
        return None
    seconds = _stated_s(text, now)
    reason = " ".join(text.split())[:200]
    return Cooldown(add_ms(now, 1000 * (default_s if seconds is None else seconds)), kind, reason)


def _stated_s(text: str, now: str) -> int | None:
    """Seconds until the reset the text states (1 s .. `Limits.cooldown_max_s`), or None."""
    found = _RESET_AT.search(text)
    if found is not None:
        try:
            moment = datetime.fromisoformat(found.group(1).replace("Z", "+00:00"))
            seconds = (parse_ts(format_ts(moment)) - parse_ts(now)) // 1000
        except (ValueError, InvalidInputError):
            seconds = None
        if seconds is not None and seconds > 0:
            return min(seconds, LIMITS.cooldown_max_s)
    found = _RESET_EPOCH.search(text)
    if found is not None:
        seconds = int(found.group(1)) - parse_ts(now) // 1000
        if seconds > 0:
            return min(seconds, LIMITS.cooldown_max_s)
    found = _RESET_IN.search(text)
    if found is not None:
        seconds = int(found.group(1)) * _UNIT_S[found.group(2)[0].lower()]
        return max(1, min(seconds, LIMITS.cooldown_max_s))
    return None


def rests(standing: Standing, at: str) -> bool:
    """Is a provider in cooldown at `at`?"""
    return standing.cooldown_until is not None and parse_ts(standing.cooldown_until) > parse_ts(at)


def rested_since(then: Standing, routed_at: str, now: Standing, at: str) -> bool:
    """Does a provider rest at `at` by a rest it did not have when a dispatch was routed to it at
    `routed_at` (`then`: its standing as of then)? A rest the routing never saw refuses the
    dispatch's accept; one it had then was a person's pin of a resting provider (rule 1), which
    stands (ADR 0043, amendment `cross5`)."""
    return rests(now, at) and not rests(then, routed_at)


def later(current: Standing, cooldown: Cooldown) -> bool:
    """Does `cooldown` rest the provider longer than it rests now? (A shorter one never shortens a
    rest.)"""
    return current.cooldown_until is None or parse_ts(cooldown.until) > parse_ts(
        current.cooldown_until
    )


# ---------------------------------------------------------------------- quota probes
_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?")


def parse_probe(output: bytes) -> int | None:
    """The percent of quota used a probe printed: its first number, clamped to 0-100 (None:
    none)."""
    found = _NUMBER.search(output[: LIMITS.provider_probe_output_bytes])
    if found is None:
        return None
    value = float(found.group(0))
    if not math.isfinite(value):  # a number too long for a float: far past 100
        return 100 if not found.group(0).startswith(b"-") else 0
    return max(0, min(100, round(value)))


def add_s(stamp: str, seconds: int) -> str:
    """`stamp` plus `seconds`."""
    return add_ms(stamp, seconds * 1000)
