"""The model proxy's reading of rate and quota limits (issue 13, ADR 0020). Pure: an upstream
answer's status, headers and first bytes in, a provider's cooldown out.

Only what the API itself sets counts: the status, the reset headers, and the error body's `type` /
`code` and reset fields; never a message text, which an API may echo from the agent's request.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime

from oms.canonical import add_ms, format_ts, parse_ts
from oms.canonical.strict_json import loads_foreign
from oms.domain.routing import Cooldown, CooldownKind, Routing
from oms.errors import InvalidInputError
from oms.limits import LIMITS

# upstream error types that name a rate or quota limit (the body's `error.type` / `error.code`, set
# by the API, never a text an agent could have the API echo)
LIMIT_TYPES = frozenset(
    {
        "rate_limit_error",
        "overloaded_error",
        "insufficient_quota",
        "rate_limit_exceeded",
        "usage_limit_reached",
    }
)
_GO_DURATION = re.compile(
    r"(?:(\d{1,7})h)?(?:(\d{1,7})m(?!s))?(?:(\d{1,7}(?:\.\d{1,9})?)s)?(?:(\d{1,9})ms)?"
)


def duration_s(text: str) -> float | None:
    """A reset stated as a duration: plain seconds (`30`, `1.5`) or OpenAI's `1h2m3.5s` / `20ms`."""
    text = text.strip()
    if re.fullmatch(r"\d{1,9}(?:\.\d{1,9})?", text):
        return float(text)
    found = _GO_DURATION.fullmatch(text)
    if not text or found is None:
        return None
    h, m, s, ms = found.groups()
    return int(h or 0) * 3600 + int(m or 0) * 60 + float(s or 0) + int(ms or 0) / 1000


def _moment_s(text: str, now: str) -> float | None:
    """Seconds from `now` until a stated moment (RFC 3339 or an HTTP date), or None."""
    try:
        if re.fullmatch(
            r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})", text.strip()
        ):
            moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
        else:
            moment = parsedate_to_datetime(text)
        return (parse_ts(format_ts(moment)) - parse_ts(now)) / 1000
    except (ValueError, TypeError, IndexError, OverflowError, InvalidInputError):
        return None


def stated_reset_s(headers: Mapping[str, str], now: str) -> int | None:
    """Seconds until the reset a rate-limited answer's headers state, bounded to 1 s ..
    LIMITS.cooldown_max_s: `Retry-After` (seconds or an HTTP date) first, else the latest
    `anthropic-ratelimit-*-reset` (a moment) or `x-ratelimit-reset-*` (a duration). None: they state
    none."""
    lower = {k.lower(): v for k, v in headers.items()}
    candidates: list[float] = []
    retry = lower.get("retry-after")
    if retry is not None:
        seconds = (
            duration_s(retry) if re.fullmatch(r"\s*\d[\d.]*\s*", retry) else _moment_s(retry, now)
        )
        if seconds is not None:
            candidates = [seconds]
    if not candidates:
        for name, value in sorted(lower.items()):
            if name.startswith("anthropic-ratelimit-") and name.endswith("-reset"):
                seconds = _moment_s(value, now)
            elif name.startswith("x-ratelimit-reset-"):
                seconds = duration_s(value)
            else:
                continue
            if seconds is not None:
                candidates.append(seconds)
    if not candidates:
        return None
    return max(1, min(LIMITS.cooldown_max_s, math.ceil(max(candidates))))


def _error_of(body: bytes) -> dict[str, object] | None:
    try:
        doc = loads_foreign(body[: LIMITS.proxy_error_body_bytes])
    except (ValueError, RecursionError):
        return None
    error = doc.get("error") if isinstance(doc, dict) else None
    return error if isinstance(error, dict) else None


def body_reset_s(body: bytes, now: str) -> int | None:
    """Seconds until the reset an error body states in the API's own fields (the ChatGPT backend's
    `usage_limit_reached`: `error.resets_at`, unix seconds, or `error.resets_in_seconds`), bounded
    to 1 s .. LIMITS.cooldown_max_s; None: it states none."""
    error = _error_of(body)
    if error is None:
        return None
    at, within = error.get("resets_at"), error.get("resets_in_seconds")
    seconds: float | None = None
    if isinstance(at, int) and not isinstance(at, bool) and 0 < at < 1 << 40:
        seconds = at - parse_ts(now) / 1000
    elif isinstance(within, int | float) and not isinstance(within, bool) and math.isfinite(within):
        seconds = float(within)
    if seconds is None:
        return None
    return max(1, min(LIMITS.cooldown_max_s, math.ceil(seconds)))


def limit_type(body: bytes) -> str | None:
    """The rate or quota limit an upstream error body names by its type or code (None: another
    error, or no JSON). Only the API's own fields count: a message text may echo what the agent
    sent."""
    error = _error_of(body)
    if error is None:
        return None
    for field in ("type", "code"):
        value = error.get(field)
        if isinstance(value, str) and value in LIMIT_TYPES:
            return value
    return None


def cooldown_for(
    status: int, body: bytes, headers: Mapping[str, str], now: str, routing: Routing
) -> Cooldown | None:
    """The cooldown an upstream answer calls for: a 429, a 529, or an error whose type or code names
    a rate or quota limit (never its message text: an API echoes what the agent sent). A quota
    (`insufficient_quota`, `usage_limit_reached`, or a 429 whose headers state a reset over an hour
    away) rests the provider until the reset its headers state (else its body's own reset field),
    else `cooldown_minutes`; a rate limit until the stated reset, else `transient_cooldown_seconds`.
    None: no rest."""
    kind_named = limit_type(body) if status >= 400 else None
    if status not in (429, 529) and kind_named is None:
        return None
    seconds = stated_reset_s(headers, now)
    if seconds is None and kind_named is not None:
        seconds = body_reset_s(body, now)
    quota = kind_named in ("insufficient_quota", "usage_limit_reached") or (
        seconds is not None and seconds > 3600
    )
    kind: CooldownKind
    if quota:
        default_s, kind = routing.cooldown_minutes * 60, "quota"
    else:
        default_s, kind = routing.transient_cooldown_s, "transient"
    reason = f"{status} {kind_named or ('rate limit' if status == 429 else 'overloaded')}"
    return Cooldown(add_ms(now, 1000 * (default_s if seconds is None else seconds)), kind, reason)


@dataclass(frozen=True, slots=True)
class Resting:
    """How the proxy answers a request for a provider that rests (ADR 0028): a 429 that says when to
    ask again (`retry_after_s`) and whether the CLI should retry at all (no: a rest longer than a
    minute, a quota's, is the conductor's to wait out by parking the worker)."""

    retry_after_s: int
    retry: bool
    message: str


def resting(until: str | None, kind: str | None, reason: str | None, now: str) -> Resting | None:
    """The answer for a request to a provider resting until `until`, or None once the rest is
    over."""
    if until is None or parse_ts(until) <= parse_ts(now):
        return None
    seconds = max(1, math.ceil((parse_ts(until) - parse_ts(now)) / 1000))
    retry = kind != "quota" and seconds <= LIMITS.retry_at_once_s
    why = f" ({reason})" if reason else ""
    message = f"the provider rests until {until}{why}: the proxy forwards nothing to it before then"
    return Resting(seconds, retry, message)
