"""Whether the model proxy forwards a request at all (issue 13, ADR 0020, ADR 0028): the checks on
its path and token, in order, each refusal with its status and one line; then the one rule of
whether the token's attempt may still act (`services/fence.verdict`), asked on every request from
the records as they are now. Nothing is forwarded, and no body read, before they all pass.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from oms.domain import proxy as proxy_rules
from oms.domain.proxy import IMPLICIT
from oms.domain.routing import Provider
from oms.errors import OmsError, ResourcesShortError, one_line
from oms.fsio import Root
from oms.services.chain import fence
from oms.services.proxy import tokens as proxy_tokens
from oms.services.proxy.body import Refusal
from oms.services.proxy.settings import Settings
from oms.store.backend import Backend
from oms.store.records import RecordStore

SHORT = Refusal(
    503, "oms_proxy_busy", "the proxy is short of descriptors or memory now; retry"
)  # never "unknown token" or "fenced" for a file the proxy could not open
Admitted = tuple[proxy_rules.Route, Provider, proxy_tokens.Grant]


def admit(
    s: Settings, method: str, target: str, headers: Iterable[tuple[str, str]], server: object
) -> Admitted | Refusal:
    """The route, provider and grant of a request the proxy may forward, or why not: a path that
    names no configured provider, no valid token (on a dispatch's door: no token of that dispatch),
    a token of another provider, an endpoint other than the approved one, an attempt that may no
    longer act (over or fenced: `attempt`), a call its CLI never makes. A worker not routed to a
    configured provider goes through its family's implicit one (`IMPLICIT`, ADR 0026), upstream the
    endpoint its dispatch was approved with (the token file's)."""
    route = proxy_rules.parse_route(target)
    provider = None if route is None else s.routing.providers.get(route.provider_id)
    if route is None or provider is None:
        return Refusal(
            401, "oms_proxy_auth", "no such provider path (expected /p/<provider_id>/...)"
        )
    try:
        grant = proxy_tokens.grant_of(s.root, proxy_rules.token_of(headers, provider.family))
    except ResourcesShortError:
        return SHORT
    if grant is None:
        return Refusal(
            401, "oms_proxy_auth", "no valid oms proxy token (missing, unknown or revoked)"
        )
    door = getattr(server, "door_dispatch", None)
    if door is not None and grant.dispatch_id != door:
        return Refusal(401, "oms_proxy_auth", "this door is another dispatch's: use your own token")
    if grant.provider_id != route.provider_id:
        return Refusal(
            401, "oms_proxy_auth", f"this token is not valid for provider {route.provider_id}"
        )
    if route.provider_id in IMPLICIT.values():  # not routed: upstream is its approved endpoint
        provider = replace(provider, endpoint=None if grant.approved is None else grant.approved[0])
    elif grant.approved is not None and grant.approved[0] != provider.endpoint:
        why = (
            f"provider {route.provider_id}'s endpoint is not the "
            f"one approved (the config changed since)"
        )
        return Refusal(409, "oms_proxy_endpoint", why)
    lapsed = attempt(s.root, grant.dispatch_id, s.clock(), s.backend)
    if lapsed is not None:
        return lapsed
    if not proxy_rules.allowed(provider.family, method, route.rest):
        return Refusal(
            403, "oms_proxy_path", f"{method} /{route.rest} is not a call the agent CLI makes"
        )
    return route, provider, grant


def attempt(
    root: Root, dispatch_id: str, now: str, backend: Backend | None = None
) -> Refusal | None:
    """The refusal of a token whose attempt may no longer act (the rule: `fence.verdict`), or None.
    A dispatch, ticket or worker record that is missing or cannot be read refuses too: the proxy
    fails closed. `backend`: where the records are (None: the state root's files)."""

    def records(kind: str) -> RecordStore:
        return RecordStore(root, kind, backend=backend)

    try:
        dispatch = records("dispatch").read_if_exists(dispatch_id)
        if dispatch is None:
            why = f"the dispatch of this token ({dispatch_id}) does not exist"
            return Refusal(401, "oms_proxy_auth", why)
        verdict = fence.verdict(records, dispatch, now)
    except ResourcesShortError:
        return SHORT
    except OmsError:  # (its text may name a path of the host: the agent is told no more than this)
        why = "the records of this token's attempt cannot be read"
        return Refusal(403, "oms_attempt_fenced", why)
    if verdict.live:
        return None
    return Refusal(403, "oms_attempt_fenced", one_line(str(verdict.reason)))
