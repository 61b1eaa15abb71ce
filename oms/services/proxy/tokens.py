"""Model-proxy tokens and usage under the state root (issue 13, ADR 0020): the IO shell of
`domain/proxy.py`.

A token is issued for one dispatch and one provider (`issue_token`, which a launch calls) and is
valid while `proxy/tokens/<dispatch_id>.json` exists: that file holds the sha256 of its secret,
never the secret. `revoke_token` removes it (a dispatch's end); a new token for the same dispatch
replaces the old one, which stops working at once. The proxy reads the file named by the key on
every request, so a revocation needs no signal to the proxy.

A dispatch's usage is `proxy/usage/<dispatch_id>/<sequence>.json`: a new file for each update (no
file is ever overwritten), the highest sequence counts, the one before is removed once the new one
is published. It holds what the dispatch's answers cost (`input_tokens`, `output_tokens`: what a
budget and the conductor count) and, apart, what is reserved for answers in flight when it was
written (`pending_*`, ADR 0028): a proxy that dies with answers in flight leaves their reservation,
which the next proxy charges (`read_usage(..., charged=True)`).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING

from oms.canonical import JsonObject, access
from oms.canonical.ids import OPAQUE_ID, ROLE_ID, check
from oms.domain import proxy as proxy_rules
from oms.domain import proxy_usage as counting
from oms.domain.proxy import IMPLICIT
from oms.domain.routing import FAMILIES
from oms.errors import (
    AlreadyExistsError,
    LeaseError,
    NotFoundError,
    OmsError,
    RecordNotFoundError,
    ResourcesShortError,
    suppress_faults,
)
from oms.fsio import Root
from oms.limits import LIMITS
from oms.services.workspace import Workspace
from oms.services.workspace.backend import fence_lost
from oms.store.backend import Backend
from oms.store.documents import encode_document, parse_document
from oms.store.payloads import dispatch_payload, worker_payload
from oms.store.records import RecordStore

if TYPE_CHECKING:
    from oms.schemas.payloads import DispatchPayload

TOKENS = "proxy/tokens"
USAGE = "proxy/usage"
_SEQUENCE = re.compile(r"([1-9][0-9]{0,15})\.json")


@dataclass(frozen=True, slots=True)
class Grant:
    """What a valid token grants: its dispatch, the one provider it may reach, and its role (for a
    budget)."""

    dispatch_id: str
    provider_id: str
    role_id: str | None
    approved: tuple[str | None] | None = (
        None  # (the approved endpoint,); None: no dispatch record named one
    )


def token_path(dispatch_id: str) -> str:
    """Where a dispatch's token digest lives."""
    return f"{TOKENS}/{check(dispatch_id, 'dispatch id', OPAQUE_ID)}.json"


def issue_token(
    ws: Workspace, dispatch_id: str, provider_id: str, *, role_id: str | None = None
) -> str:
    """A fresh token for `dispatch_id` to reach `provider_id` through the proxy (any earlier one of
    the dispatch stops working). Only its sha256 is stored; the token is returned once, for the
    worker's key. `role_id` (default: the dispatch record's role, if there is one) names the token
    budget that applies."""
    implicit = provider_id in IMPLICIT.values()  # a worker not routed (ADR 0026)
    if not implicit and provider_id not in ws.config().routing.providers:
        raise RecordNotFoundError(
            f"no provider {provider_id} is configured", hint="see `oms provider show`"
        )
    found = None
    with suppress_faults():
        found = ws.store.records("dispatch").read_if_exists(check(dispatch_id, "dispatch id"))
    if role_id is None and found is not None:
        role_id = dispatch_payload(found)["role_id"]
    secret = secrets.token_urlsafe(32)
    doc: JsonObject = {
        "format": 1,
        "dispatch_id": dispatch_id,
        "provider_id": provider_id,
        "role_id": None if role_id is None else check(role_id, "role id", ROLE_ID),
        "token_sha256": proxy_rules.token_digest(secret),
        "issued_at": ws.now(),
    }
    # what the advisor approved (for an implicit provider: where its requests go)
    approved = None if found is None else dispatch_payload(found)
    if approved is not None and approved.get("provider_id", _implicit(approved)) == provider_id:
        doc["approved_endpoint"] = approved["model_endpoint"]
    rel = token_path(dispatch_id)
    data = encode_document(doc, "proxy-token", rel, LIMITS.proxy_token_bytes)
    root = ws.store.state.root
    root.mkdirs(TOKENS)
    lost = fence_lost(ws.store)  # a launch's: a deliverer past its lease replaces no live token
    if lost is not None:
        raise LeaseError(
            f"no proxy token issued for {dispatch_id}: the lock {lost} was lost (its lease "
            "lapsed); the deliverer holding it now launches the attempt",
            hint="nothing to do: the event is delivered by whoever holds its lock",
        )
    for _ in range(4):
        try:
            root.publish(rel, data)
            return proxy_rules.make_token(dispatch_id, secret)
        except AlreadyExistsError:
            root.unlink(rel)  # the dispatch's earlier token: revoked by this one
    raise AlreadyExistsError(f"{rel}: another token keeps appearing for dispatch {dispatch_id}")


def _implicit(dispatch: DispatchPayload) -> str | None:
    """The implicit provider of a dispatch not routed to a provider (None: it has no model)."""
    return IMPLICIT.get(FAMILIES.get(dispatch["provider_mode"], ""))


def revoke_token(ws: Workspace, dispatch_id: str) -> bool:
    """End a dispatch's token now; True if it had one."""
    try:
        return ws.store.state.root.unlink(token_path(dispatch_id))
    except NotFoundError:  # no token was ever issued here (`proxy/tokens/` does not exist)
        return False


def needed(root: Root, backend: Backend | None = None) -> list[str]:
    """The dispatches holding a token whose worker has not ended: the proxy is needed while there is
    one (ADR 0026: it is stopped with the last). `backend`: where the records are (None: the state
    root's files; an etcd store's when `[store]` names one)."""
    return [d for d in holders(root) if not ended(root, d, backend)]


def holders(root: Root) -> list[str]:
    """The dispatches that hold a token now (each gets its own door into the proxy: `front.py`)."""
    try:
        names = root.listdir(TOKENS)
    except NotFoundError:
        return []
    found = (name.removesuffix(".json") for name in names if name.endswith(".json"))
    return sorted(d for d in found if OPAQUE_ID.fullmatch(d) is not None)


def ended(root: Root, dispatch_id: str, backend: Backend | None = None) -> bool:
    """Has the worker of `dispatch_id` ended (whatever path ended it)? A worker record that cannot
    be read counts as ended. (The proxy admits a request by the one rule: `proxy_admit.attempt`.)"""
    try:
        worker = RecordStore(root, "worker", backend=backend).read_if_exists(dispatch_id)
    except OmsError:
        return True
    return worker is not None and worker_payload(worker)["health"] == "stopped"


def grant_of(root: Root, key: str | None) -> Grant | None:
    """What a presented key grants, or None: no key, not a token's shape, no token for its dispatch
    (never issued or revoked), or another secret (compared in constant time). A damaged file grants
    nothing. Raises `ResourcesShortError` when the token file could not be opened for want of
    descriptors or memory."""
    presented = None if key is None else proxy_rules.split_token(key)
    if presented is None:
        return None
    rel = token_path(presented.dispatch_id)
    try:
        data = root.read_optional(rel, LIMITS.proxy_token_bytes)
        doc = None if data is None else parse_document(data, "proxy-token", rel)
    except ResourcesShortError:  # not the token's fault: the caller answers "retry"
        raise
    except OmsError:
        return None
    if doc is None or doc["dispatch_id"] != presented.dispatch_id:
        return None
    if not proxy_rules.token_matches(presented.secret, access.text(doc, "token_sha256")):
        return None
    approved = (
        (access.text_or_none(doc, "approved_endpoint"),) if "approved_endpoint" in doc else None
    )
    return Grant(
        presented.dispatch_id,
        access.text(doc, "provider_id"),
        access.text_or_none(doc, "role_id"),
        approved,
    )


def _sequences(root: Root, dispatch_id: str) -> list[int]:
    try:
        names = root.listdir(f"{USAGE}/{dispatch_id}")
    except NotFoundError:
        return []
    return sorted(int(m.group(1)) for n in names if (m := _SEQUENCE.fullmatch(n)))


def read_usage(
    root: Root,
    dispatch_id: str,
    *,
    charged: bool = False,
) -> tuple[counting.Usage, int, int]:
    """A dispatch's usage, its request count and its current sequence (0: none recorded); `charged`:
    with what was reserved for answers in flight when it was written (the proxy's own view after a
    crash). A damaged latest file counts as nothing recorded after the one before it (`oms store
    verify` does not read these)."""
    check(dispatch_id, "dispatch id", OPAQUE_ID)
    for sequence in reversed(_sequences(root, dispatch_id)):
        rel = f"{USAGE}/{dispatch_id}/{sequence}.json"
        try:
            doc = parse_document(root.read_bytes(rel, LIMITS.proxy_usage_bytes), "proxy-usage", rel)
        except OmsError:
            continue
        usage = counting.Usage(
            access.integer(doc, "input_tokens"), access.integer(doc, "output_tokens")
        )
        if charged:
            reserved = (_count(doc, "pending_input_tokens"), _count(doc, "pending_output_tokens"))
            usage = usage + counting.Usage(*reserved)
        return usage, access.integer(doc, "requests"), sequence
    return counting.Usage(), 0, 0


def _count(doc: JsonObject, key: str) -> int:
    return access.integer(doc, key) if key in doc else 0


def write_usage(
    root: Root,
    dispatch_id: str,
    usage: counting.Usage,
    requests: int,
    sequence: int,
    now: str,
    pending: counting.Usage | None = None,
) -> int:
    """Publish usage (and what is reserved for answers in flight) as sequence `sequence + 1` (a
    later one already there wins: its number is returned and nothing is written); the one before is
    removed."""
    rel_dir = f"{USAGE}/{check(dispatch_id, 'dispatch id', OPAQUE_ID)}"
    doc: JsonObject = {
        "format": 1,
        "dispatch_id": dispatch_id,
        "sequence": sequence + 1,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "requests": requests,
        "updated_at": now,
    }
    if pending is not None and pending.total:
        doc["pending_input_tokens"] = pending.input_tokens
        doc["pending_output_tokens"] = pending.output_tokens
    root.mkdirs(rel_dir)
    rel = f"{rel_dir}/{sequence + 1}.json"
    data = encode_document(doc, "proxy-usage", rel, LIMITS.proxy_usage_bytes)
    try:  # (no fsync: it must outlive the proxy's death — the kernel keeps it —, not the machine's)
        root.publish(rel, data, durable=False)
    except AlreadyExistsError:
        return max(_sequences(root, dispatch_id), default=sequence + 1)
    for older in _sequences(root, dispatch_id):
        if older <= sequence:
            root.unlink(f"{rel_dir}/{older}.json", durable=False)
    return sequence + 1
