"""`oms host release-name`: a person releases a host name whose state root was lost (ADR 0043,
amendment `names2`).

A host name is bound on an etcd store to the state key that first acted under it (amendment
`hostname`), generation by generation (`store/hosts.py`). The person names the key the binding
holds (the one a refusal printed): that is what says "that state root is gone", and a mistyped
name releases nothing. The release is refused while the name is alive — its heartbeat key
`hosts/<name>` (the host's lease) or its conductor's lock `locks/conductor/<name>` is there —
compared in the release's own transaction, so a host that comes back meanwhile makes the release
fail. The binding stays (created once, ledgered); the release is a created-once, ledgered
document beside it, and the name's next claim binds its next generation. Nothing is written to
the name's workers or leases: the state root that next claims the name reconciles its workers
from its own panes (none: gone), and a ticket leased under it lapses to `oms ticket expire`."""

from __future__ import annotations

from typing import NamedTuple

from oms.errors import ConfigError, ConflictError, InvalidInputError
from oms.limits import LIMITS
from oms.services.workspace import Workspace

KEY_PREFIX_MIN = 16  # hex digits of the bound key the person must name (as a refusal shows it)


class Released(NamedTuple):
    """A released binding: the name, its generation and the state key it named."""

    host: str
    generation: int
    keyid: str


def release_name(ws: Workspace, host: str, bound_to: str) -> Released:
    """Release `host`'s binding to the state key `bound_to` names (its first 16 or more hex
    digits) on the etcd store `ws` opened; one-line refusals otherwise, nothing written."""
    from oms.adapters.etcd.store import EtcdStore
    from oms.domain.hosts import NAME, name_release
    from oms.store.documents import encode_document
    from oms.store.hosts import RELEASE_SCHEMA, current_name, release_path

    backend = ws.store.backend
    if not isinstance(backend, EtcdStore):
        raise ConfigError(
            "host names are bound only on an etcd store (a state root on files is one host's): "
            "nothing to release",
            hint='run it in a repository whose committed [store] says backend = "etcd"',
        )
    if NAME.fullmatch(host) is None:
        raise InvalidInputError(f"{host[:80]!r} is not a host name")
    named = bound_to.lower()
    if len(named) < KEY_PREFIX_MIN or any(c not in "0123456789abcdef" for c in named):
        raise InvalidInputError(
            f"--bound-to must be at least {KEY_PREFIX_MIN} hex digits of the state key "
            f"(got {bound_to[:80]!r})",
            hint="copy it from the refusal `host-name-taken` printed",
        )
    found = current_name(backend, host)
    if found is None:
        raise InvalidInputError(f"host name {host} is bound to no state key: nothing to release")
    generation, holder = found
    keyid = str(holder["keyid"])
    mine = ws.store.state.meta.key_id
    if keyid == mine:
        raise InvalidInputError(
            f"host name {host} is bound to this state root's key {mine[:16]}: it is not lost",
            hint="run it from another state root of the repository, if this one is to give it up",
        )
    if not keyid.startswith(named):
        raise InvalidInputError(
            f"host name {host} is bound to state key {keyid[:16]} (got --bound-to "
            f"{named[:16]}): nothing was released",
            hint="name the key the binding holds, as `host-name-taken` printed it",
        )
    backend.learn_host = None  # the person's release, made under no name (ADR 0043 `cross6`)
    rel = release_path(host, generation)
    doc = name_release(host, generation, keyid, mine, ws.now())
    data = encode_document(doc, RELEASE_SCHEMA, rel, LIMITS.host_claim_bytes)
    alive = [f"hosts/{host}", f"locks/conductor/{host}"]
    there = backend.create_once_unless("hostname", rel, data, alive)
    if alive[0] in there or alive[1] in there:
        what = "heartbeat, under its lease," if alive[0] in there else "conductor's lock"
        raise ConflictError(
            f"host name {host} is alive on this store (its {what} is there): its state root "
            "is not lost; nothing was released",
            hint="stop that host's conductor, or wait for its lease to lapse, then run it again",
        )
    if rel in there:
        raise ConflictError(f"host name {host}'s binding {generation} was released already")
    return Released(host, generation, keyid)
