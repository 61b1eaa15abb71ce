"""The loopback model proxy's decisions (issue 13, ADR 0020). Pure: bytes and text in, answers out.

A worker talks to `http://127.0.0.1:<port>/p/<provider_id>/<rest>` with its dispatch's token as its
API key (`oms.<dispatch_id>.<secret>`: the dispatch names the token file, the secret is 32 random
bytes of which only the sha256 is stored). The proxy:

1. refuses (401) a request whose path names no provider, whose key is missing, malformed, unknown,
   revoked, or bound to another provider than the path names; (403) a call the family's CLI does not
   make (`ALLOWED_CALLS`: the messages or responses call, nothing else of the account); a body over
   the bound or not framed exactly (413, 400);
2. forwards to `<upstream base>/<rest>`: the provider's endpoint, else its family's default
   (`DEFAULT_UPSTREAM`), with the hop-by-hop, every incoming credential and account header removed
   and the real key the proxy holds put in their place (`upstream_headers`);
3. streams the answer back as it arrives, counting the tokens it reports (`domain/proxy_usage.py`);
4. reads a 429, a 529, or an error whose type or code names a rate or quota limit — never its
   message text, which an API may echo from the agent's request — as a cooldown of the provider,
   until the reset its headers or error body state, else the configured default
   (`domain/proxy_limits.py`);
5. refuses (429) a dispatch that used its role's token budget (`proxy_usage.over_budget`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from oms.canonical.ids import OPAQUE_ID
from oms.domain.codex_login import API_KEY, CHATGPT, CHATGPT_UPSTREAM, NO_KEY, UpstreamAuth
from oms.errors import InvalidInputError

LOOPBACK = "127.0.0.1"


class ProxyState(StrEnum):
    """What `oms proxy status` finds (`services/proxy/control.Status`)."""

    RUNNING = "running"  # its handshake verified now
    NOT_RUNNING = "not running"  # none recorded
    STALE = "stale"  # recorded, its process gone
    UNVERIFIED = "unverified"  # its process runs but does not answer the handshake
    UNREADABLE = "unreadable"  # its record cannot be read: a proxy it names may run
    STOPPED = "stopped"  # `oms proxy stop` ended it


# a proxy may run that oms cannot verify: none is started beside it, none signalled
UNKNOWABLE = frozenset({ProxyState.UNVERIFIED, ProxyState.UNREADABLE})
DEFAULT_UPSTREAM = {"anthropic": "https://api.anthropic.com", "openai": "https://api.openai.com/v1"}
DEFAULT_KEY_ENV = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
# the providers a worker not routed to a configured one goes through (ADR 0026): its family's,
# upstream the endpoint its dispatch was approved with (the role's, else the family's default);
# never a config key
IMPLICIT = {"anthropic": "oms-anthropic", "openai": "oms-openai"}
TOKEN_PREFIX = "oms"  # noqa: S105 - the tag of a token, not one
HELLO_PATH = "/oms-proxy/hello"
_HELLO_CONTEXT = b"oms-proxy-hello-v1\0"
_CHALLENGE = re.compile(r"[0-9a-f]{32,128}")
_SECRET = re.compile(r"[A-Za-z0-9_-]{43}")
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
    }
)
CREDENTIALS = frozenset(
    {"authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key", "cookie"}
)
# the account a key acts in is the proxy's to say (none from a worker): another project or
# organisation of the same key is another account
ACCOUNT = frozenset(
    {
        "openai-organization",
        "openai-project",
        "anthropic-organization",
        "anthropic-workspace",
        "chatgpt-account-id",
    }
)
CONTENT_LENGTH = re.compile(r"[0-9]{1,12}")  # ASCII digits only
CHUNK_SIZE = re.compile(rb"[0-9A-Fa-f]{1,16}")  # hex digits only: never a sign
# the calls each CLI makes, and nothing else of the account the key opens (files, batches,
# fine-tuning...)
ALLOWED_CALLS = {
    "anthropic": frozenset({("POST", "v1/messages"), ("POST", "v1/messages/count_tokens")}),
    "openai": frozenset({("POST", "responses"), ("POST", "v1/responses")}),
}
_SET_BY_PROXY = frozenset({"host", "content-length", "accept-encoding"})

Headers = list[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class Route:
    """A request path split: the provider it names and what follows (query included)."""

    provider_id: str
    rest: str


@dataclass(frozen=True, slots=True)
class Presented:
    """A worker's key split: its dispatch and its secret."""

    dispatch_id: str
    secret: str


def check_bind(host: str) -> str:
    """The only address the proxy binds; anything else is refused."""
    if host != LOOPBACK:
        raise InvalidInputError(f"the model proxy binds {LOOPBACK} only (got {host!r})")
    return host


def parse_route(target: str) -> Route | None:
    """`/p/<provider_id>/<rest>` split, or None for any other path (a dot segment, a backslash, a
    NUL, a percent-encoded slash or dot, an absolute URI: None)."""
    path, sep, query = target.partition("?")
    if (
        not path.startswith("/p/")
        or any(c in target for c in "\\\x00#")
        or re.search(r"%(2[ef]|5c)", path, re.I)
    ):
        return None
    provider_id, slash, rest = path[3:].partition("/")
    if not slash or OPAQUE_ID.fullmatch(provider_id) is None:
        return None
    if any(seg in (".", "..") for seg in rest.split("/")) or any(
        ord(c) < 0x21 or ord(c) > 0x7E for c in target
    ):
        return None
    return Route(provider_id, rest + (sep + query if sep else ""))


def token_of(headers: Iterable[tuple[str, str]], family: str) -> str | None:
    """The key a request presents: `Authorization: Bearer <key>`, or for Anthropic also `x-api-key`.
    None when there is none, or more than one different one (never guess which counts)."""
    found: set[str] = set()
    for name, value in headers:
        lower = name.lower()
        if lower == "authorization":
            scheme, _, key = value.strip().partition(" ")
            found.add(key.strip() if scheme.lower() == "bearer" else "")
        elif lower == "x-api-key" and family == "anthropic":
            found.add(value.strip())
    return found.pop() if len(found) == 1 and "" not in found else None


def split_token(key: str) -> Presented | None:
    """`oms.<dispatch_id>.<secret>` split, or None if the key is not of that shape."""
    parts = key.split(".")
    if len(parts) != 3 or parts[0] != TOKEN_PREFIX or OPAQUE_ID.fullmatch(parts[1]) is None:
        return None
    return Presented(parts[1], parts[2]) if _SECRET.fullmatch(parts[2]) else None


def make_token(dispatch_id: str, secret: str) -> str:
    """The key a worker presents."""
    return f"{TOKEN_PREFIX}.{dispatch_id}.{secret}"


def token_digest(secret: str) -> str:
    """The sha256 kept of a token's secret (domain-separated)."""
    return hashlib.sha256(b"oms-proxy-token-v1\0" + secret.encode("ascii")).hexdigest()


def token_matches(secret: str, stored_sha256: str) -> bool:
    """Does the secret hash to the stored digest? (Constant time.)"""
    return hmac.compare_digest(token_digest(secret).encode("ascii"), stored_sha256.encode("ascii"))


def hello_answer(key: bytes, challenge: str) -> str | None:
    """The handshake answer to `challenge` (hex, 32-128 digits; None: not a challenge)."""
    if _CHALLENGE.fullmatch(challenge) is None:
        return None
    return hmac.new(key, _HELLO_CONTEXT + challenge.encode("ascii"), hashlib.sha256).hexdigest()


def upstream_base(family: str, endpoint: str | None, auth: str = API_KEY) -> str:
    """Where a provider's requests go: its endpoint, else its family's public API (for a ChatGPT
    login, the ChatGPT backend's Codex API)."""
    default = CHATGPT_UPSTREAM if auth == CHATGPT else DEFAULT_UPSTREAM[family]
    return (endpoint or default).rstrip("/")


def upstream_headers(
    incoming: Iterable[tuple[str, str]], family: str, credential: UpstreamAuth
) -> Headers:
    """The headers forwarded: hop-by-hop ones (and those `Connection` names), every credential and
    account header, and what the proxy sets itself removed; the real key added as the family expects
    it (a ChatGPT login's account beside it); no compression (usage is read)."""
    pairs = list(incoming)
    named = {t.strip().lower() for n, v in pairs if n.lower() == "connection" for t in v.split(",")}
    dropped = HOP_BY_HOP | CREDENTIALS | ACCOUNT | _SET_BY_PROXY | named
    out = [(n, v) for n, v in pairs if n.lower() not in dropped]
    key = credential.bearer
    if key != NO_KEY:  # (none: a role's own endpoint that needs no key, and none was set)
        header = ("x-api-key", key) if family == "anthropic" else ("Authorization", f"Bearer {key}")
        out.append(header)
    if credential.account_id is not None:
        out.append(("chatgpt-account-id", credential.account_id))
    out.append(("Accept-Encoding", "identity"))
    return out


def downstream_headers(upstream: Iterable[tuple[str, str]]) -> Headers:
    """The answer's headers relayed: hop-by-hop ones, the length (the relay is chunked) and cookies
    removed."""
    pairs = list(upstream)
    named = {t.strip().lower() for n, v in pairs if n.lower() == "connection" for t in v.split(",")}
    dropped = HOP_BY_HOP | named | {"content-length", "set-cookie"}
    return [(n, v) for n, v in pairs if n.lower() not in dropped]


def allowed(family: str, method: str, rest: str) -> bool:
    """Is `method /rest` a call the family's agent CLI makes (the only calls a token reaches)?"""
    return (method, rest.split("?", 1)[0].rstrip("/")) in ALLOWED_CALLS.get(family, frozenset())


def error_body(kind: str, message: str) -> bytes:
    """A one-line JSON error both CLIs read (`error.message`)."""
    doc = {"type": "error", "error": {"type": kind, "message": message}}
    return json.dumps(doc, separators=(",", ":")).encode("utf-8") + b"\n"
