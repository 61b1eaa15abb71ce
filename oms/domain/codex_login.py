"""The user's Codex login as the model proxy presents it upstream (issue 13, ADR 0020). Pure: a
parsed `auth.json` in, the credential out.

Codex 0.171 keeps its login in `$CODEX_HOME/auth.json` (else `~/.codex/auth.json`): an API-key login
as `OPENAI_API_KEY`; a ChatGPT login as `tokens` (`access_token`, `account_id`, besides `id_token`
and `refresh_token`). Real Codex sends a ChatGPT login to the ChatGPT backend as `Authorization:
Bearer <access_token>` with `chatgpt-account-id: <account_id>` (seen on the wire here, against the
loopback mock). The proxy presents what it read the same way, and never refreshes a token: the
user's own `codex` does, the one writer of the user's credentials. An access token whose `exp` claim
has passed is not sent (its claims are read unverified, only to tell the user early; the upstream
still judges every token).
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from typing import Any

from oms.canonical.strict_json import loads_foreign
from oms.limits import LIMITS

API_KEY = (
    "key"  # a provider's `auth`: the key in the proxy's environment, else Codex's API-key login
)
CHATGPT = "codex-chatgpt"  # a provider's `auth`: Codex's ChatGPT login
AUTH_MODES = (API_KEY, CHATGPT)
CHATGPT_UPSTREAM = "https://chatgpt.com/backend-api/codex"
NO_KEY = ""  # an `UpstreamAuth` bearer meaning: send no key (a role's endpoint that needs none)
_BEARER = re.compile(
    r"[A-Za-z0-9._~+/=-]{16,8192}"
)  # an API key or a JWT: never a space, a CR or a LF
_ACCOUNT = re.compile(r"[A-Za-z0-9_-]{1,128}")


@dataclass(frozen=True, slots=True)
class UpstreamAuth:
    """What the proxy puts on a request upstream: the bearer key, and for a ChatGPT login its
    account."""

    bearer: str
    account_id: str | None = None
    expires_at: int | None = None  # unix seconds, from the access token's unverified `exp` claim


@dataclass(frozen=True, slots=True)
class Missing:
    """Why there is no usable credential: said to the worker (never a secret) and what to do."""

    why: str


def api_key(doc: object) -> UpstreamAuth | Missing:
    """An API-key login's key (`OPENAI_API_KEY`)."""
    key = doc.get("OPENAI_API_KEY") if isinstance(doc, dict) else None
    if not isinstance(key, str) or _BEARER.fullmatch(key) is None:
        return Missing(
            "Codex's auth.json holds no API key (run `codex login --with-api-key`, or set the key)"
        )
    return UpstreamAuth(key)


def chatgpt(doc: object, now_s: int) -> UpstreamAuth | Missing:
    """A ChatGPT login's access token and account, unless it is missing, malformed or past its
    `exp`."""
    tokens = doc.get("tokens") if isinstance(doc, dict) else None
    if not isinstance(tokens, dict):
        return Missing("Codex's auth.json holds no ChatGPT login (run `codex login`)")
    access, account = tokens.get("access_token"), tokens.get("account_id")
    if not isinstance(access, str) or _BEARER.fullmatch(access) is None:
        return Missing("Codex's ChatGPT login has no usable access token (run `codex login`)")
    if not isinstance(account, str) or _ACCOUNT.fullmatch(account) is None:
        return Missing("Codex's ChatGPT login names no usable account (run `codex login`)")
    expires = jwt_expiry(access)
    if expires is not None and expires <= now_s:
        return Missing(
            "Codex's ChatGPT access token has expired; the proxy never refreshes it: run `codex` "
            "once (it refreshes its own login), then retry"
        )
    return UpstreamAuth(access, account, expires)


def parse(data: bytes) -> object:
    """`auth.json`'s document (None when it is not JSON)."""
    try:
        return loads_foreign(data[: LIMITS.codex_auth_bytes])
    except (ValueError, RecursionError):
        return None


def jwt_expiry(token: str) -> int | None:
    """The `exp` claim of a JWT, unverified (None: not a JWT, or none stated)."""
    parts = token.split(".")
    if len(parts) != 3 or len(parts[1]) > 8192:
        return None
    try:
        claims: Any = loads_foreign(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (ValueError, RecursionError):
        return None
    exp = claims.get("exp") if isinstance(claims, dict) else None
    return exp if isinstance(exp, int) and not isinstance(exp, bool) and 0 < exp < 1 << 40 else None
