"""A model worker's launch through the loopback model proxy (issue 13, ADR 0020, 0026).

Every Codex and Claude Code worker goes through the proxy unless its role says `credential = "raw"`:
a dispatch routed to a provider reaches that provider, one not routed (no `[providers]`) its
family's implicit provider, upstream the endpoint its dispatch was approved with. Each launch issues
a fresh token — first, so that from then on the proxy counts as needed — then makes sure a proxy
runs (`ensure`: started on demand from the launcher's environment, under the proxy's start lock),
and waits for the dispatch's door in the sandbox directory. The deliverer's real keys never reach
the sandbox.

`release` is a worker's end: its token revoked, and the proxy stopped if it was started on demand
and no other worker that has not ended still needs it (the conductor's tick does the same:
`stop_if_idle`).
"""

from __future__ import annotations

import os

from oms.canonical import access
from oms.domain.config import CREDENTIAL_DEFAULT, NETWORK_DEFAULT
from oms.domain.proxy import IMPLICIT, ProxyState
from oms.domain.routing import FAMILIES
from oms.errors import ProxyError, suppress_faults
from oms.process import child_env
from oms.services.delivery.plans import TOKEN_VARIABLE, ProxyRoute
from oms.services.proxy import control as proxy_control
from oms.services.proxy import credentials as proxy_credentials
from oms.services.proxy import tokens as proxy_tokens
from oms.services.proxy.front import wait_for_door
from oms.services.workspace import Workspace
from oms.store import Record
from oms.store.payloads import dispatch_payload


def provider_of(dispatch: Record) -> str | None:
    """The provider a launch of `dispatch` reaches through the proxy (None: it does not go through
    it — a command worker, or a role with a raw credential)."""
    payload = dispatch_payload(dispatch)
    mode = payload["provider_mode"]
    raw = payload.get("role_credential", CREDENTIAL_DEFAULT) != CREDENTIAL_DEFAULT
    if mode not in TOKEN_VARIABLE or raw:
        return None
    routed = payload.get("provider_id")
    return IMPLICIT[FAMILIES[mode]] if routed is None else routed


def route(ws: Workspace, dispatch: Record) -> ProxyRoute | None:
    """The proxy route of a launch of `dispatch` (None: it does not go through the proxy)."""
    provider_id = provider_of(dispatch)
    if provider_id is None:
        return None
    refuse_without_credential(ws, dispatch, provider_id)
    # first the token: from now on the proxy is needed
    token = proxy_tokens.issue_token(ws, dispatch.record_id, provider_id)
    status = proxy_control.ensure(ws)
    if status.record is None:
        raise ProxyError(f"the model proxy is not recorded: {status.note}", hint="oms proxy status")
    port = access.integer(status.record, "port")
    endpoint = f"http://127.0.0.1:{port}/p/{provider_id}"
    if dispatch_payload(dispatch).get("role_network", NETWORK_DEFAULT) != NETWORK_DEFAULT:
        return ProxyRoute(endpoint, token, None, port)  # the host's network: the proxy's own port
    sandboxes = ws.store.sandboxes()
    door = wait_for_door(sandboxes, dispatch.record_id)  # the proxy opens it for the token
    return ProxyRoute(endpoint, token, os.path.join(sandboxes.path, door), port)


def refuse_without_credential(ws: Workspace, dispatch: Record, provider_id: str) -> None:
    """A proxy this launch would start from this environment that would hold no credential for
    the dispatch's provider refuses the launch, saying "not logged in" (ADR 0031): the agent
    would otherwise meet only refusals and rest at its prompt, idle and healthy, until it is
    parked for silence. A proxy already running keeps the credentials it was started with."""
    if proxy_control.status(ws).state == ProxyState.RUNNING:
        return
    endpoint = dispatch_payload(dispatch).get("model_endpoint")
    missing = proxy_credentials.missing(
        ws.config().routing.providers,
        provider_id,
        endpoint if isinstance(endpoint, str) else None,
        child_env(keep=proxy_control.key_names(ws)),
    )
    if missing is not None:
        raise ProxyError(
            f"not logged in: the model proxy would hold no credential for {provider_id}: {missing}",
            hint="`oms doctor` says what to set (its login line for the role)",
        )


def release(ws: Workspace, dispatch_id: str) -> None:
    """A worker ended: its token goes, and an on-demand proxy no other worker needs stops."""
    proxy_tokens.revoke_token(ws, dispatch_id)
    with suppress_faults():  # the worker's end stands; the conductor's tick tries again
        proxy_control.stop_if_idle(ws)
