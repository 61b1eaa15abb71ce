"""`oms audit log`: the ledger as a readable timeline (issue 14 item 5, ADR 0022). Each entry says
what it wrote: a record's kind, id, version and state; an evidence's kind and ticket; an event's
type; a journal entry. Filters by ticket, dispatch (a worker's id is its dispatch's) and time."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Generator
from typing import Protocol, runtime_checkable

from oms.canonical import JsonObject, parse_ts
from oms.canonical.strict_json import loads_foreign
from oms.errors import ConflictError, IntegrityError, OmsError, one_line
from oms.limits import LIMITS
from oms.services.workspace import Workspace
from oms.store import compaction
from oms.store.anchor import Anchor
from oms.store.evidence import open_envelope
from oms.store.keys_checkpoint import Headed
from oms.store.ledger import Backward, Entry, line_key, read_chain


def timeline(
    ws: Workspace,
    *,
    ticket: str | None = None,
    dispatch: str | None = None,
    since: str | None = None,
    until: str | None = None,
    limit: int = LIMITS.audit_log_entries,
) -> tuple[list[JsonObject], str | None]:
    """The last `limit` entries that match, oldest first, and where the chain breaks (None: it
    holds). The ledger is read from its end, only as far back as the entries it shows take
    (`ledger.Backward`: each line shown is checked; the whole chain is `oms audit verify`'s); for
    a dispatch, no further back than its first version (nothing written before it names it: a
    worker's timeline costs its own entries and those since, not the whole ledger)."""
    low = None if since is None else parse_ts(since, "--since")
    high = None if until is None else parse_ts(until, "--until")
    first = None if dispatch is None else f"records/dispatch/{dispatch}/0.json"
    rows: list[JsonObject] = []
    root = ws.store.state.root
    back: _KeysBackward = Backward(root, line_key(root))
    archived = _Archived(ws)
    backend = ws.store.backend
    if backend is not None:  # etcd: the ledger on its keys (ADR 0043, amendment `etcdledger`)
        back = backend.entries_back() if isinstance(backend, _Keys) else back
    with contextlib.closing(back.entries()) as entries:
        for entry in entries:
            row = _row(ws, entry, archived, low, high, (ticket, dispatch))
            if row is not None:
                rows.append(row)
            if len(rows) >= limit or (entry.kind == "record" and entry.path == first):
                break  # (an adopted ledger noted versions in any order: read on through it)
    rows.reverse()
    return rows, back.fault


def _row(
    ws: Workspace,
    entry: Entry,
    archived: _Archived,
    low: int | None,
    high: int | None,
    wanted: tuple[str | None, str | None],
) -> JsonObject | None:
    """The timeline's row of `entry`, None when it is outside the times or names no id wanted."""
    at = parse_ts(entry.at)
    if (low is not None and at < low) or (high is not None and at > high):
        return None
    doc = _doc(ws, entry, archived)
    names = _names(entry, doc)
    if any(want is not None and want not in names for want in wanted):
        return None
    return {
        "seq": entry.seq,
        "at": entry.at,
        "kind": entry.kind,
        "path": entry.path,
        "what": _what(entry, doc),
    }


class _Archived:
    """The files compaction moved into archives (`store/compaction.py`), read on first need."""

    def __init__(self, ws: Workspace) -> None:
        self.root = ws.store.state.root
        self.ws = ws
        self._files: dict[str, list[bytes]] | None = None

    def _noted(self) -> dict[str, bytes]:
        """Every archive with the bytes oms noted: the state root's files, or on a cluster its keys
        (each with the entry created in its own transaction: ADR 0043, amendment `upkeep`)."""
        if getattr(self.ws.store.backend, "name", "files") == "etcd":
            from oms.adapters.etcd import compaction as keys
            from oms.adapters.etcd.store import EtcdStore

            cluster = self.ws.store.backend
            if not isinstance(cluster, EtcdStore):
                return {}
            found = {
                kv.key[len(cluster.prefix) :]: kv
                for kv in cluster.client.range_prefix(cluster.key(f"{compaction.DIR}/"))
            }
            ok = keys.noted(cluster, found, keys.entries_by_revision(cluster))
            return {rel: found[rel].value for rel in sorted(ok)}
        chain = read_chain(self.root, line_key(self.root))
        noted = {e.path: e.sha256 for e in chain.entries}
        out: dict[str, bytes] = {}
        for rel in compaction.archives(self.root):
            try:
                data = self.root.read_bytes(rel, LIMITS.archive_bytes)
            except OmsError:
                continue  # `oms audit verify` names it
            if noted.get(rel) == hashlib.sha256(data).hexdigest():
                out[rel] = data
        return out

    def get(self, path: str, sha256: str) -> bytes | None:
        """The bytes of `path` with this digest that an archive of the ticket owning it holds (None:
        none)."""
        if self._files is None:
            self._files = {}
            # an archive counts only as oms noted it (read once, only when an entry's file changed
            # since: compacted)
            for rel, data in self._noted().items():
                try:
                    archive = compaction.decode(data, rel)
                except OmsError:
                    continue  # `oms audit verify` names it
                for member, held in compaction.owned(archive).items():
                    self._files.setdefault(member, []).append(held)
        return next(
            (d for d in self._files.get(path, ()) if hashlib.sha256(d).hexdigest() == sha256), None
        )


class _KeysBackward(Protocol):
    fault: str | None

    def entries(self) -> Generator[Entry]: ...


@runtime_checkable
class _Keys(Protocol):
    """A backend with a ledger of its own (etcd's keys)."""

    def entries_back(self) -> _KeysBackward: ...


def _doc(ws: Workspace, entry: Entry, archived: _Archived) -> JsonObject:
    backend = ws.store.backend
    if backend is not None and entry.path.startswith(
        ("records/", "events/", "outbox/", "evidence/", "tickets/")
    ):
        data = backend.read(entry.path, LIMITS.admin_read_bytes)  # etcd: the entry's key
    else:
        data = ws.store.state.root.read_optional(entry.path, LIMITS.admin_read_bytes)
    if (
        data is None or hashlib.sha256(data).hexdigest() != entry.sha256
    ):  # changed since: its archived bytes
        data = archived.get(entry.path, entry.sha256)
    if data is None or hashlib.sha256(data).hexdigest() != entry.sha256:
        return {}  # not the bytes the entry names (edited, or gone): `oms audit verify` says which
    if entry.path.startswith("evidence/"):  # its body, once its signature is checked
        meta = ws.store.state.meta
        ref = entry.path.rsplit("/", 1)[-1].removesuffix(".json")
        try:
            return open_envelope(data, ref, meta.public_key, meta.key_id, entry.path).body
        except OmsError:
            return {}  # damaged: `oms audit verify` says so
    try:
        doc = loads_foreign(data)
    except (ValueError, RecursionError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _names(entry: Entry, doc: JsonObject) -> set[str]:
    """Every id the entry concerns: its path's parts, and the ids its document names."""
    names = set(entry.path.removesuffix(".json").split("/"))
    payload = doc.get("payload")
    for source in (doc, payload if isinstance(payload, dict) else {}):
        for key in ("record_id", "ticket_id", "dispatch_id", "event_id"):
            value = source.get(key)
            if isinstance(value, str):
                names.add(value)
    return names


def _what(entry: Entry, doc: JsonObject) -> str:
    parts = entry.path.split("/")
    if entry.kind in ("record", "adopt") and parts[0] == "records" and len(parts) == 4:
        state = doc.get("state")
        actor = doc.get("actor")
        by = f" by {actor}" if isinstance(actor, str) and actor.startswith("person:") else ""
        return (
            f"{parts[1]} {parts[2]} v{parts[3].removesuffix('.json')}"
            + (f" -> {state}" if isinstance(state, str) else "")
            + by
        )
    if entry.kind == "compact":
        return (
            f"compacted {doc.get('ticket_id', parts[-1].removesuffix(compaction.SUFFIX))} into "
            f"{entry.path}"
        )
    if entry.kind == "evidence" or (entry.kind == "adopt" and parts[0] == "evidence"):
        return (
            f"evidence {doc.get('evidence_kind', '?')} of "
            f"{doc.get('ticket_id', '?')} ({parts[-1][:12]})"
        )
    if parts[0] == "events":
        said = _person_said(doc)
        return f"event {doc.get('event_type', '?')} {parts[-1].removesuffix('.json')}{said}"
    if parts[0] == "journals":
        return f"journal {parts[1]} #{parts[-1].removesuffix('.json')}"
    return _what_else(entry, parts)


def _person_said(doc: JsonObject) -> str:
    """A person's decision an event keeps (`ticket-reopened`): ' by <name>: <reason>'; a person's
    message (`worker-message`): ' by <name>: "<its text>"'."""
    payload = doc.get("payload")
    if not isinstance(payload, dict) or not isinstance(payload.get("person"), str):
        return ""
    said = payload.get("text")
    if "reason" not in payload and isinstance(said, str):
        return f' by {one_line(str(payload["person"]), 128)}: "{one_line(said, 200)}"'
    reason = one_line(str(payload.get("reason")), 200)
    return f" by {one_line(str(payload['person']), 128)}: {reason}"


def _what_else(entry: Entry, parts: list[str]) -> str:
    """The kinds ADR 0027 added to the ledger."""
    name = parts[-1].removesuffix(".json")
    if entry.kind == "state":
        return "the state root's metadata (its public key)"
    if parts[0] == "tickets":
        return f"ticket content of {parts[1]} ({name[:12]})"
    if parts[0] == "worktree-records":
        return f"worktree record of {name}"
    if parts[0] == "outbox":
        return f"receipt of {parts[1]} for {name.removesuffix('.receipt')}"
    if entry.kind == "checkpoint":
        return f"checkpoint of entry {name}"
    if entry.kind == "rollback":
        return "a rollback a person accepted (the anchor it left)"
    return entry.path


def accept_rollback(ws: Workspace) -> JsonObject:
    """A person accepts that the state root was rolled back (ADR 0027): the anchor it left behind is
    kept in the state root (`ledger/rollbacks/`, noted), the head is signed and anchored as it is,
    and ticket numbers stay above every one the lost entries gave. What was lost, for the person to
    read."""
    from oms.store import Anchored, anchor

    store = ws.store
    root, meta = store.state.root, store.state.meta
    if isinstance(store.backend, Anchored):  # etcd: its keys' anchor first (ADR 0043, `rest`)
        chain = store.backend.chain()
        if anchor.check(root, meta.public_key, meta.key_id, chain)[1] is not None:
            return _accept_keys(ws, chain)
    ends = anchor.head_seq(root)
    lost = anchor.keep_rolled_back(root, meta.public_key, meta.key_id)
    signed = store.checkpoint()
    why = None if signed is None else store.anchor(signed[0], accept=True)
    if why is not None:
        raise IntegrityError(f"the rollback is kept, but the anchor could not be moved: {why}")
    return _accepted(ws, ends, lost, None)


def _accept_keys(ws: Workspace, chain: Headed) -> JsonObject:
    """`accept_rollback` of an etcd store's keys (ADR 0043, amendment `rest`): the anchor the
    rollback left is kept in the state root as the state root's is, and the keys' anchor moved to
    the head the cluster holds now, signed by this host's state key."""
    from oms.store import anchor

    store = ws.store
    root, meta = store.state.root, store.state.meta
    ends, head, _ = chain.head()
    if ends == 0:
        raise ConflictError(
            f"{chain.what} holds no ledger entry now: nothing to anchor it at",
            hint="write to it first (`oms ticket add`), then accept",
        )
    lost = anchor.keep_rolled_back(root, meta.public_key, meta.key_id, chain)
    signer = store.state.signer()
    why = anchor.advance(
        root, signer, meta.key_id, {"seq": ends, "head": head}, accept=True, chain=chain
    )
    if why is not None:
        raise IntegrityError(f"the rollback is kept, but the anchor could not be moved: {why}")
    reserved = store.ticket_floor() if lost is None else max(lost.tickets, store.ticket_floor())
    store.share_rollback(ends, head, reserved)  # every host numbers above it (`floor`)
    return _accepted(ws, ends, lost, chain.what)


def _accepted(ws: Workspace, ends: int, lost: Anchor | None, keys_of: str | None) -> JsonObject:
    """What an accepted rollback answers: the ledger's entry `ends` now, the anchor it replaced
    (`lost`; None: a damaged one) and what that anchor held that is gone. `keys_of` names an etcd
    store whose keys' ledger it was (None: the state root's)."""
    of = "" if keys_of is None else f" of {keys_of}"
    if lost is None:
        return {
            "anchor_seq": None,
            "anchor_at": None,
            "ledger_seq": ends,
            "tickets_reserved": ws.store.ticket_floor(),
            "lost": f"what a damaged anchor{of} named (kept in ledger/rollbacks/)",
        }
    parted = "this one" if keys_of is None else keys_of
    return {
        "anchor_seq": lost.seq,
        "anchor_at": lost.at,
        "ledger_seq": ends,
        "tickets_reserved": lost.tickets,
        "lost": (
            f"ledger entries {ends + 1}..{lost.seq}{of} (written up to {lost.at}) and their "
            + ("files" if keys_of is None else "keys")
            if ends < lost.seq
            else f"what the anchored ledger held from where it and {parted} part, up to entry "
            f"{lost.seq} (written up to {lost.at})"
        ),
    }
