"""A routed worker's launch through the loopback model proxy (issue 13, ADR 0020): with `[proxy] workers =
true`, a dispatch routed to a provider gets a fresh token for this launch and the proxy's address as its
endpoint; the deliverer's real keys never reach the sandbox. The proxy must be running and answer its
handshake, else the launch is refused (its checks park the worker naming `oms proxy start`).
"""

from __future__ import annotations

import os

from oms.canonical import access
from oms.errors import ConfigError
from oms.services import proxy_control, proxy_tokens
from oms.services.plans import TOKEN_VARIABLE, ProxyRoute
from oms.services.proxy_front import wait_for_door
from oms.services.workspace import Workspace
from oms.store import Record


def route(ws: Workspace, dispatch: Record) -> ProxyRoute | None:
    """The proxy route of a launch of `dispatch` (None: the config does not route workers through the proxy,
    or the dispatch was not routed to a provider)."""
    provider_id = dispatch.payload.get("provider_id")
    mode = str(dispatch.payload.get("provider_mode"))
    if not ws.config().proxy.workers or not isinstance(provider_id, str) or mode not in TOKEN_VARIABLE:
        return None
    status = proxy_control.status(ws)
    if status.state != "running" or status.record is None:
        raise ConfigError(
            f"the model proxy is not running ({status.state}: {status.note}); routed workers go through it",
            hint="oms proxy start",
        )
    port = access.integer(status.record, "port")
    token = proxy_tokens.issue_token(ws, dispatch.record_id, provider_id)
    door = wait_for_door(ws.store.state.root, dispatch.record_id)  # the proxy opens it for the token
    socket = os.path.join(os.path.realpath(ws.store.state.path), door)
    return ProxyRoute(f"http://127.0.0.1:{port}/p/{provider_id}", token, socket, port)
