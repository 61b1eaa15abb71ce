"""The real credentials the model proxy holds, one per provider (issue 13, ADR 0020).

A provider's credential is a key from the proxy's own environment (`key_env`, else its family's
default variable), else, for an OpenAI provider of OpenAI's own API, the user's Codex login: its API
key (`auth = "key"`, the default; never sent to another endpoint unasked), or, asked for by name,
its ChatGPT login (`auth = "codex-chatgpt"`: the access token and account, `domain/codex_login.py`).
A worker not routed to a configured provider goes through its family's implicit one (ADR 0026):
Claude Code's is the proxy's `ANTHROPIC_API_KEY`; Codex's, towards OpenAI's own API, is
`OPENAI_API_KEY`, else the user's Codex login — its API key if it holds one, else its ChatGPT login
(`AUTO`) — and, towards the endpoint a role names, `OPENAI_API_KEY` alone (`credential_key`). The
login file is read again whenever it changes (size, time, inode), so a token the user's own `codex`
refreshed is used from the next request on; the proxy never writes it. Nothing here is ever printed:
a missing credential is told by what is missing and what to do.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlsplit

from oms.domain import codex_login
from oms.domain import proxy as proxy_rules
from oms.domain.codex_login import NO_KEY, Missing, UpstreamAuth
from oms.domain.routing import Provider
from oms.errors import OmsError
from oms.fsio.outside import file_signature, read_user_file
from oms.limits import LIMITS

_ENV_KEY = re.compile(
    r"[!-~]{1,8192}"
)  # printable ASCII, no space: nothing that could split a header
AUTO = "auto"  # a Codex login's API key if it holds one, else its ChatGPT login (implicit only)
GATEWAY = "@gateway"  # an implicit provider's credential towards an endpoint a role names


class Credential(Protocol):
    """What the proxy presents upstream for one provider, now."""

    def current(self) -> UpstreamAuth | Missing:
        """The credential to use for the next request, or why there is none."""
        ...


@dataclass(frozen=True, slots=True)
class EnvironmentKey:
    """A key from the proxy's environment (or none)."""

    variable: str
    key: str | None
    optional: bool = False  # none set: requests go without a key (a role's own endpoint, ADR 0026)

    def current(self) -> UpstreamAuth | Missing:
        """The key (surrounding whitespace dropped: a CRLF `.env` leaves a `\r`), if it fits a
        header."""
        key = None if self.key is None else self.key.strip()
        if self.optional and key is None:
            return UpstreamAuth(NO_KEY)
        if not key or _ENV_KEY.fullmatch(key) is None:
            return Missing(f"the proxy's environment has no usable {self.variable}")
        return UpstreamAuth(key)


class CodexLogin:
    """The user's Codex login file, read again when it changes (thread-safe; never written)."""

    def __init__(self, path: str, mode: str, clock: Callable[[], float] = time.time) -> None:
        self._path = path
        self._mode = mode
        self._clock = clock
        self._lock = threading.Lock()
        self._seen: tuple[int, ...] | None = None
        self._doc: object = None

    def current(self) -> UpstreamAuth | Missing:
        """The login's credential as the file says now."""
        signature = file_signature(self._path)
        with self._lock:
            if signature is None:
                self._seen, self._doc = None, None
            elif signature != self._seen:
                try:
                    self._doc = codex_login.parse(
                        read_user_file(self._path, LIMITS.codex_auth_bytes)
                    )
                except OmsError:
                    self._doc = None
                self._seen = signature
            doc = self._doc
        if doc is None:
            return Missing(f"no readable Codex login at {self._path} (run `codex login`)")
        if self._mode == codex_login.CHATGPT:
            return codex_login.chatgpt(doc, int(self._clock()))
        key = codex_login.api_key(doc)
        if self._mode == AUTO and isinstance(key, Missing):  # no API key: a ChatGPT login
            return codex_login.chatgpt(doc, int(self._clock()))
        return key


def login_path(env: Mapping[str, str]) -> str:
    """Codex's login file: `$CODEX_HOME/auth.json`, else `~/.codex/auth.json`."""
    base = env.get("CODEX_HOME") or os.path.join(env.get("HOME", "/nonexistent"), ".codex")
    return os.path.join(base, "auth.json")


def credential_of(provider: Provider, env: Mapping[str, str]) -> Credential:
    """The credential the proxy holds for `provider`: its environment key when set (never for a
    ChatGPT login), else an OpenAI provider's Codex login, else the (missing) environment key."""
    if provider.auth == codex_login.CHATGPT:
        return CodexLogin(login_path(env), codex_login.CHATGPT)
    variable = provider.key_env or proxy_rules.DEFAULT_KEY_ENV[provider.family]
    key = env.get(variable)
    if (
        not key
        and provider.family == "openai"
        and not provider.key_env
        and _openais_own(provider.endpoint)
    ):
        return CodexLogin(login_path(env), codex_login.API_KEY)
    return EnvironmentKey(variable, key or None)


def _openais_own(endpoint: str | None) -> bool:
    """Is this OpenAI's own API (the only place Codex's API-key login goes unasked: a gateway is
    given a key only by name, `key_env`)?"""
    if endpoint is None:
        return True
    parts = urlsplit(endpoint)
    return parts.scheme == "https" and parts.hostname == "api.openai.com"


def credentials(providers: Mapping[str, Provider], env: Mapping[str, str]) -> dict[str, Credential]:
    """Every configured provider's credential, and the implicit providers' (`credential_key`)."""
    found = {provider_id: credential_of(p, env) for provider_id, p in providers.items()}
    for family, provider_id in proxy_rules.IMPLICIT.items():
        variable = proxy_rules.DEFAULT_KEY_ENV[family]
        key = env.get(variable) or None
        found[provider_id + GATEWAY] = EnvironmentKey(variable, key, optional=True)
        found[provider_id] = EnvironmentKey(variable, key)
        if family == "openai" and not key:
            found[provider_id] = CodexLogin(login_path(env), AUTO)
    return found


def credential_key(provider_id: str, endpoint: str | None) -> str:
    """Which of `credentials` serves a request to `provider_id` upstream `endpoint`: an implicit
    provider towards an endpoint other than its family's own API holds only its environment key."""
    implicit = provider_id in proxy_rules.IMPLICIT.values()
    if not implicit or endpoint is None or _openais_own(endpoint):
        return provider_id
    return provider_id + GATEWAY


def missing(
    providers: Mapping[str, Provider],
    provider_id: str,
    endpoint: str | None,
    env: Mapping[str, str],
) -> str | None:
    """Why a proxy started from `env` would hold no credential for a request to `provider_id`
    upstream `endpoint` (None: it would hold one): the check `oms doctor` and the conductor's
    preflight ask before a worker is launched (ADR 0031), the proxy's own lookup."""
    held = credentials(providers, env).get(credential_key(provider_id, endpoint))
    found = held.current() if held is not None else Missing("it is not configured")
    return found.why if isinstance(found, Missing) else None
