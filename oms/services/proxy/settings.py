"""What one model proxy serves (ADR 0020): its `Settings`, built by `control.settings_for`, read by
the server, its doors and the admission checks on every request."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from oms.domain.routing import Cooldown, Routing
from oms.fsio import Root
from oms.limits import LIMITS
from oms.services.proxy.credentials import Credential
from oms.store.backend import Backend

Rest = Callable[[str, Cooldown, str], None]  # (provider, cooldown, dispatch): rest it for the fleet


@dataclass(frozen=True, slots=True)
class Settings:
    """What the proxy serves: the providers, their real keys, budgets, bounds, the handshake key."""

    root: Root
    routing: Routing  # the providers, and the cooldowns' default lengths
    credentials: Mapping[str, Credential]  # provider -> the real credential the proxy holds for it
    budgets: Mapping[str, int | None]  # role -> token budget
    max_request_bytes: int
    hello_key: bytes | None  # None on a door: a sandbox is never answered a handshake (ADR 0020)
    rest: Rest
    clock: Callable[[], str]
    # a connection's request line, headers and body arrive within this (`[proxy]
    # request_deadline_s`: at most `Limits.proxy_header_s`)
    request_deadline_s: float = LIMITS.proxy_header_s
    # where the records it asks (dispatch, ticket, worker, provider) are: None, the state root's
    # files; the etcd store when the committed `[store]` names one (ADR 0043)
    backend: Backend | None = None
