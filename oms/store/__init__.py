"""Layer 4: the versioned store on fsio (docs/architecture.md "Layers"; ADR 0002).

`Store.open(path)` gives records (per kind), events, the outbox, signed evidence and journals of one
state root. Every read and write goes through fsio, is bounded, canonical and schema-valid.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, NamedTuple, Protocol, runtime_checkable

from oms.errors import IntegrityError, OmsError, suppress_faults
from oms.limits import LIMITS, Limits
from oms.store.backend import Backend, Fence, KeepsLocks, LeaseHeld
from oms.store.records import Change, Record, RecordStore
from oms.store.stateroot import StateRoot, default_state_root

if TYPE_CHECKING:
    from oms.canonical import JsonObject
    from oms.fsio import FsioOptions, Root
    from oms.store.content import TicketContent, WorktreeRecords
    from oms.store.events import EventStore
    from oms.store.evidence import Evidence, EvidenceStore
    from oms.store.hosts import Beats
    from oms.store.journal import Journal
    from oms.store.keys_checkpoint import Headed
    from oms.store.ledger_check import Audit
    from oms.store.outbox import Outbox
    from oms.store.summary import Latest


@runtime_checkable
class Summarizes(Backend, Protocol):
    """A backend that keeps its own summary of the latest versions (etcd: ranges its pointers,
    `adapters/etcd/summary.py`); the state root's is `store/summary.py`."""

    def summary(self, root: Root, kind: str, limits: Limits) -> Latest:
        """The latest version of every record of `kind`, reading only what changed since the
        last look (`root`: the state root that keeps the summary file)."""
        ...

    def steady(self) -> AbstractContextManager[None]:
        """A scope in which each kind's summary is asked of the cluster once, and again only
        after this process writes (what a conductor tick opens around its phases)."""
        ...


class KeysAudit(NamedTuple):
    """What a backend's own ledger check found (etcd: its keys, ADR 0043 amendment `etcdledger`):
    entries and noted keys checked, problems (each naming its key), what could not be checked."""

    entries: int
    noted: int
    problems: list[str]
    notes: list[str]
    compacted: int = 0  # noted keys gone, held by a noted archive (ADR 0043, amendment `upkeep`)


@runtime_checkable
class Audits(Backend, Protocol):
    """A backend that keeps a ledger of its own (etcd: `ledger/<seq>` keys)."""

    def audit(self, limits: Limits) -> KeysAudit:
        """Walk every key and the ledger over them, as `oms audit verify` walks the state root."""
        ...


@runtime_checkable
class Anchored(Backend, Protocol):
    """A backend whose own ledger the anchor outside it follows (etcd: its keys, ADR 0043
    amendment `etcdtick`; `store/anchor.py`)."""

    wrote: int  # how many writes this process made through it

    def chain(self) -> Headed:
        """Its ledger, as the anchor follows it (and a checkpoint signs its head)."""
        ...

    def written_head(self) -> tuple[int, str] | None:
        """The (seq, hash) of the entry this process wrote last, or None."""
        ...

    def shared_rollbacks(self) -> list[tuple[str, bytes]]:
        """The accepted rollbacks it keeps for every host ((name under `rollbacks/`, bytes);
        `anchor.shared_rollback`), at most `Limits.shared_rollbacks_read`."""
        ...

    def pins(self) -> dict[str, bytes]:
        """The other hosts' state keys the person pinned, by key id."""
        ...


@runtime_checkable
class KeepsBeats(Backend, Protocol):
    """A backend that keeps hosts' heartbeats itself (etcd: a key per host under its lease,
    `adapters/etcd/hosts.py`); the state root's are `store/hosts.py`'s files."""

    def beats(self) -> Beats:
        """Hosts' heartbeats in this backend."""
        ...


class Store:
    """All stores of one opened state root.

    The sub-stores are made on first use: an agent hook reads and writes records and events only,
    and must not pay for importing the evidence, outbox, journal and content modules
    (docs/adr/0010)."""

    def __init__(
        self, state: StateRoot, limits: Limits = LIMITS, *, backend: Backend | None = None
    ) -> None:
        self.state = state
        self.limits = limits
        self.backend = backend  # where records and events live; None: the state root (ADR 0043)
        # a lock's token every record version written through `records()`, every event and every
        # receipt carries while it is set: the innermost lock held on etcd (the conductor's lock per
        # host, ADR 0043 amendment `etcdhost`; a processing lock `Outbox.lock` took, amendment
        # `etcddeliver`); None on files
        self.fence: Fence | None = None
        self._fences: list[Fence] = []  # the processing locks' fences held now, innermost last
        self._unheld: Fence | None = None  # `fence` before the first of them was taken
        self._events: EventStore | None = None
        self._evidence: EvidenceStore | None = None
        self._ticket_content: TicketContent | None = None
        self._worktrees: WorktreeRecords | None = None
        self._sandboxes: Root | None = None

    @property
    def events(self) -> EventStore:
        """The events."""
        if self._events is None:
            from oms.store.events import EventStore

            self._events = EventStore(
                self.state.root, self.limits, backend=self.backend, fenced_by=self._fence_now
            )
        return self._events

    def _fence_now(self) -> Fence | None:
        return self.fence

    def hold_fence(self, fence: Fence) -> None:
        """A processing lock was taken (`Outbox.lock`): every write carries its fence while it is
        the innermost held."""
        if not self._fences:
            self._unheld = self.fence
        self._fences.append(fence)
        self.fence = fence

    def drop_fence(self, fence: Fence) -> None:
        """A processing lock was let go: the fence of the innermost still held comes back (the
        one before them all, once none is)."""
        for i in range(len(self._fences) - 1, -1, -1):
            if self._fences[i] == fence:
                del self._fences[i]
                break
        self.fence = self._fences[-1] if self._fences else self._unheld

    @property
    def evidence(self) -> EvidenceStore:
        """The signed evidence."""
        if self._evidence is None:
            from oms.store.evidence import EvidenceStore

            meta = self.state.meta
            self._evidence = EvidenceStore(
                self.state.root, meta.public_key, meta.key_id, self.limits, backend=self.backend
            )
        return self._evidence

    @property
    def ticket_content(self) -> TicketContent:
        """The content-addressed ticket bodies."""
        if self._ticket_content is None:
            from oms.store.content import TicketContent

            self._ticket_content = TicketContent(self.state.root, self.limits, backend=self.backend)
        return self._ticket_content

    @property
    def worktrees(self) -> WorktreeRecords:
        """The worktree records."""
        if self._worktrees is None:
            from oms.store.content import WorktreeRecords

            self._worktrees = WorktreeRecords(self.state.root, self.limits)
        return self._worktrees

    def sandboxes(self) -> Root:
        """The sandbox directory: agent homes, broker sockets, model doors, outside the state root
        (`store/sandboxes.py`, ADR 0026); opened on first use, and made the first time this state
        root needs one."""
        if self._sandboxes is None:
            from oms.canonical import now
            from oms.store import sandboxes

            self._sandboxes = sandboxes.open_dir(self.state.root, self.state.meta.key_id, now())
        return self._sandboxes

    @classmethod
    def open(
        cls, path: str, *, options: FsioOptions | None = None, limits: Limits = LIMITS
    ) -> Store:
        """Open an initialised state root."""
        return cls(StateRoot.open(path, options=options), limits)

    @property
    def path(self) -> str:
        """The state root path."""
        return self.state.path

    def records(self, kind: str) -> RecordStore:
        """The records of `kind` (their writes fenced by `fence` while it is set)."""
        return RecordStore(
            self.state.root, kind, self.limits, backend=self.backend, fence=self.fence
        )

    def beats(self) -> Beats:
        """Hosts' heartbeats: the backend's own (etcd) or the state root's files."""
        if isinstance(self.backend, KeepsBeats):
            return self.backend.beats()
        from oms.store.hosts import FileBeats

        return FileBeats(self.state.root)

    def latest(self, kind: str) -> Latest:
        """The latest version of every record of `kind`, reading only what changed since the last
        call of this process or the summary file (`store/summary.py`); unreadable records are named,
        not raised."""
        if isinstance(self.backend, Summarizes):  # etcd: ranges its pointers
            return self.backend.summary(self.state.root, kind, self.limits)
        from oms.store import summary

        return summary.refresh(self.state.root, kind, self.records(kind).read_if_exists)

    def steady(self) -> AbstractContextManager[None]:
        """A scope in which `latest` asks the backend for each kind once, and again only after
        this process wrote (etcd, `adapters/etcd/summary.py`: a round trip a kind saved); on
        files every `latest` looks at directory times, which cost no round trip."""
        if isinstance(self.backend, Summarizes):
            return self.backend.steady()
        return nullcontext()

    def live(self, kind: str) -> Latest:
        """The latest version of every record of `kind` in a live state (a ticket `open` or
        `leased`), reading only the records the live index names (`store/live.py`: it costs what is
        live, not every record of the kind); unreadable ones are named, not raised. A state root
        whose index is not complete yet is scanned whole once, and its index built."""
        from oms.store import live
        from oms.store.summary import Latest

        root, states = self.state.root, live.LIVE[kind]
        if self.backend is not None:  # etcd: the summary's states (its pointers are the index)
            every = self.latest(kind)
            found = every.in_states(states)
            return Latest(found, dict(every.errors), every.read, _grouped(found))
        if not live.complete(root, kind):
            scanned = self.latest(kind)
            found = [r for r in scanned.records if r.state in states]
            with suppress_faults():  # a read-only state root: scanned every time
                live.build(root, kind, lambda: [(r.record_id, r.version) for r in found])
            return Latest(found, dict(scanned.errors), scanned.read, _grouped(found))
        records = self.records(kind)
        found, errors = [], {}
        for record_id, versions in sorted(live.marked(root, kind).items()):
            try:
                record = records.read_if_exists(record_id)
            except OmsError as exc:
                errors[record_id] = exc
                continue
            if record is None:
                continue
            live.prune(root, kind, record_id, versions, record.version, record.state)
            if record.state in states:
                found.append(record)
        return Latest(found, errors, len(found) + len(errors), _grouped(found))

    def outbox(self, consumer_id: str) -> Outbox:
        """One consumer's outbox."""
        from oms.store.outbox import Outbox

        return Outbox(self.state.root, consumer_id, self.limits, backend=self.backend, scope=self)

    def journal(self, name: str) -> Journal:
        """An append-only journal."""
        from oms.store.journal import Journal

        return Journal(self.state.root, name, self.limits)

    def put_evidence(self, body: JsonObject) -> Evidence:
        """Sign `body` with the state key and store it."""
        return self.evidence.put(body, self.state.signer(), fence=self.fence)

    def write_mark(self) -> tuple[int, int]:
        """What moves when a command writes: the state root's ledger's size and the writes made
        through a backend with a ledger of its own (etcd's keys)."""
        wrote = self.backend.wrote if isinstance(self.backend, Anchored) else 0
        return self.ledger_size(), wrote

    def ledger_size(self) -> int:
        """The ledger's size in bytes now (0: none): a command that changes it wrote."""
        from oms.store.ledger import LOG

        found = self.state.root.lstat(LOG) if self.state.root.exists("ledger") else None
        return 0 if found is None else found.st_size

    def checkpoint(self) -> tuple[JsonObject, bool] | None:
        """The ledger head's signed checkpoint, and whether it was written now
        (`ledger_check.checkpoint`; None: nothing ledgered yet)."""
        from oms.store.ledger_check import checkpoint

        return checkpoint(self.state.root, self.state.signer(), self.state.meta.key_id)

    def checkpoint_keys(self) -> tuple[JsonObject, str | None] | None:
        """The signed checkpoint of a backend's own ledger's head now (etcd's keys, whoever
        wrote its last entry; `keys_checkpoint.py`), after the anchor moved to it, and why the
        anchor stays where it is, if it does; None: the backend keeps no ledger, or it is empty.
        IntegrityError when the anchor shows the ledger was rolled back: a rolled-back head is
        not signed as if it were the one to keep (`oms audit accept-rollback` first)."""
        if not isinstance(self.backend, Anchored):
            return None
        from oms.store import anchor, keys_checkpoint

        chain, meta = self.backend.chain(), self.state.meta
        problem = anchor.check(self.state.root, meta.public_key, meta.key_id, chain)[1]
        if problem is not None:
            raise IntegrityError(f"etcd: {problem}", hint=anchor.KEYS_ROLLBACK_HINT)
        seq, head, cluster = chain.head()
        if seq == 0:
            return None
        signer = self.state.signer()
        doc = keys_checkpoint.sign(
            signer, meta.key_id, seq, head, chain.folder, cluster, chain.first()
        )
        why = anchor.advance(self.state.root, signer, meta.key_id, doc, chain=chain)
        return doc, why

    def anchor(self, signed: JsonObject, *, accept: bool = False) -> str | None:
        """Move the anchor outside the state root to checkpoint `signed` (`anchor.advance`): None
        when done or nothing to do, else the line that says why it stays (a rollback, an unusable
        folder)."""
        from oms.store import anchor

        state = self.state
        return anchor.advance(
            state.root,
            state.signer(),
            state.meta.key_id,
            signed,
            accept=accept,
        )

    def sign_and_anchor(self) -> str | None:
        """Sign the ledger's head and move the anchor to it (what every command that wrote and every
        conductor tick that wrote do), and the keys' ledger's head this process wrote (etcd,
        `anchor_keys`): None, or why an anchor stays (`anchor`)."""
        found = self.checkpoint()
        why = None if found is None else self.anchor(found[0])
        keys_why = self.anchor_keys()
        return why if keys_why is None else keys_why if why is None else f"{why}; {keys_why}"

    def anchor_keys(self) -> str | None:
        """Sign the head of a backend's own ledger that this process wrote last (etcd's keys) with
        the state key and move its anchor outside the cluster and the state root to it
        (`anchor.advance`); None when done or there is nothing to do, else why it stays."""
        if not isinstance(self.backend, Anchored):
            return None
        head = self.backend.written_head()
        if head is None:
            return None
        from oms.store import anchor

        state = self.state
        return anchor.advance(
            state.root,
            state.signer(),
            state.meta.key_id,
            {"seq": head[0], "head": head[1]},
            chain=self.backend.chain(),
        )

    def rolled_back(self) -> str | None:
        """The problem the anchor outside the state root shows (a rollback, or a damaged anchor), or
        None (`anchor.check`); then the anchor of a backend's own ledger (etcd's keys)."""
        from oms.store import anchor

        meta = self.state.meta
        problem = anchor.check(self.state.root, meta.public_key, meta.key_id)[1]
        if problem is None and isinstance(self.backend, Anchored):
            chain = self.backend.chain()
            problem = anchor.check(self.state.root, meta.public_key, meta.key_id, chain)[1]
        return problem

    def ticket_floor(self) -> int:
        """The highest local ticket number ever allocated, as the anchors (the state root's, and
        a backend's own ledger's) and accepted rollbacks know."""
        from oms.store import anchor

        floor = anchor.ticket_floor(self.state.root)
        if isinstance(self.backend, Anchored):
            chain = self.backend.chain()
            floor = max(floor, anchor.ticket_floor(self.state.root, chain))
            shared = self.backend.shared_rollbacks()  # any host's accept (amendment `floor`)
            floor = max(floor, anchor.shared_floor(shared, self._keys_by_id(self.backend), chain))
        return floor

    def _keys_by_id(self, backend: Anchored) -> dict[str, bytes]:
        """This state key and the pinned hosts' keys, by key id."""
        return {**backend.pins(), self.state.meta.key_id: self.state.meta.public_key}

    def share_rollback(self, seq: int, head: str, tickets: int) -> None:
        """Keep an accepted rollback's ticket floor on the backend for every host (`anchor.
        shared_rollback`, with its ledger entry): another host numbers above it too, though its
        own anchor never held what was lost. Nothing on a state root (its own anchor keeps it)."""
        if not isinstance(self.backend, Anchored):
            return
        from oms.store import anchor

        name, data = anchor.shared_rollback(
            self.state.signer(), self.state.meta.key_id, seq, head, tickets
        )
        self.backend.create_once("rollback", name, data, self.limits.anchor_bytes)

    def audit(self, exported: bytes | None = None) -> Audit:
        """Verify the ledger, its checkpoints, every covered file (`ledger_check.verify_ledger`),
        the anchor outside the state root (`anchor.check`), and a backend's own ledger (`Audits`:
        etcd's keys)."""
        from oms.store import anchor, keys_checkpoint
        from oms.store.ledger_check import verify_ledger

        meta = self.state.meta
        ours = exported is not None and keys_checkpoint.is_one(exported)  # of the keys' chain
        found = verify_ledger(
            self.state.root, meta.public_key, meta.key_id, None if ours else exported
        )
        if isinstance(self.backend, Audits):  # etcd: the ledger on its keys, walked as files are
            keys = self.backend.audit(self.limits)
            found.entries += keys.entries
            found.files += keys.noted
            found.problems.extend(keys.problems)
            found.notes.extend(keys.notes)
            found.compacted += keys.compacted
        newest, problem, note = anchor.check(self.state.root, meta.public_key, meta.key_id)
        found.anchored = None if newest is None else newest.seq
        if problem is not None:
            found.problems.insert(0, problem)  # a rollback first: it explains every other line
        if note is not None and found.entries:
            found.notes.append(note)
        if isinstance(self.backend, Anchored):  # the keys' anchor, outside the cluster
            chain = self.backend.chain()
            _, problem, note = anchor.check(self.state.root, meta.public_key, meta.key_id, chain)
            if problem is not None:
                found.problems.insert(0, f"etcd: {problem}")
            if note is not None and found.entries:
                found.notes.append(f"etcd: {note}")
        if ours and exported is not None:
            found.checkpoints += 1
            if not isinstance(self.backend, Anchored):
                found.problems.append(
                    "the exported checkpoint: a checkpoint of an etcd store's keys, and this "
                    "store is the state root's files"
                )
            else:
                problem = keys_checkpoint.check(
                    exported,
                    meta.public_key,
                    meta.key_id,
                    self.backend.chain(),
                    "the exported checkpoint",
                )
                if problem is not None:
                    found.problems.insert(0, f"etcd: {problem}")
        return found

    def close(self) -> None:
        """Close the state root (and the sandbox directory, if it was opened)."""
        if self._sandboxes is not None:
            self._sandboxes.close()
        closer = getattr(self.backend, "close", None)  # an etcd store's connections
        if closer is not None:
            closer()
        self.state.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = [
    "Change",
    "KeepsLocks",
    "LeaseHeld",
    "Record",
    "RecordStore",
    "StateRoot",
    "Store",
    "default_state_root",
]


def _grouped(records: list[Record]) -> dict[str, list[Record]]:
    grouped: dict[str, list[Record]] = {}
    for record in records:
        grouped.setdefault(record.state, []).append(record)
    return grouped
