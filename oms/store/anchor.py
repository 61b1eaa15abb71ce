"""The anchor (ADR 0027): the ledger's signed head, kept outside the state root, so that putting the
whole state root back to an earlier copy is named by `oms audit verify` with no manual step.

Where: `<anchors>/<key id>/<generation>.json`, `<anchors>` being `$OMS_ANCHOR_DIR`, else
`$XDG_CONFIG_HOME/oms/anchors`, else `~/.config/oms/anchors` — beside the user's configuration, not
beside the state root (`$XDG_STATE_HOME`), so a restore of the state root leaves it as it was. A
place inside the state root is refused. The directory is private (0700) and every file is published
no-replace (a new generation, older ones removed after it): a reader takes the highest generation.

What: `{"format": "oms-anchor-v1", "seq", "head", "at", "tickets", "keyid", "sig"}`: the head of a
checkpoint and the highest local ticket number (`tkt-N`) allocated by then, signed by the state key.

When: after every checkpoint a command or a conductor tick that wrote signs (`advance`). It only
moves forward along this ledger: an anchor naming an entry the ledger does not hold (rolled back, or
rewritten after it) is never replaced except by a person (`oms audit accept-rollback`), who keeps it
in the state root (`ledger/rollbacks/<n>.json`, noted). Ticket numbers are allocated above every
anchor's (`ticket_floor`), so an id is never given twice, rolled back or not.

The same anchor is kept for an etcd store's ledger on keys (ADR 0043, amendment `etcdtick`): in
`<anchors>/<key id>/<chain>/` (`Chain.folder`: one folder per store prefix), signed by the same
state key, its head an entry `ledger/<seq>` of the cluster, so a cluster restored from an older
snapshot, or whose last entries were deleted with their keys, is named the same way."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from oms.canonical import JsonObject, dumps, sha256_hex
from oms.canonical.strict_json import loads_foreign
from oms.errors import (
    AlreadyExistsError,
    ConflictError,
    IntegrityError,
    NotFoundError,
    OmsError,
    shown,
)
from oms.fsio import Root
from oms.limits import LIMITS
from oms.store import keys
from oms.store.ledger import (
    CHECKPOINTS,
    LOG,
    ROLLBACKS,
    TAIL_BYTES,
    hash_of,
    line_key,
    parse_line,
    publish_noted,
)
from oms.store.ledger import now as ledger_now
from oms.store.ledger_check import parse_checkpoint

FORMAT = "oms-anchor-v1"
PAYLOAD_TYPE = "application/vnd.oms.ledger-anchor+json"
MAX_ANCHOR = LIMITS.anchor_bytes
LOCAL_TICKET = re.compile(r"tkt-([1-9][0-9]{0,9})")
_GENERATION = re.compile(r"([1-9][0-9]{0,17})\.json")


@dataclass(frozen=True, slots=True)
class Anchor:
    """A parsed, verified anchor."""

    seq: int
    head: str
    at: str
    tickets: int
    generation: int
    where: str  # for people: its path


def anchor_dir(env: dict[str, str] | os._Environ[str] | None = None) -> str:
    """`$OMS_ANCHOR_DIR`, else `$XDG_CONFIG_HOME/oms/anchors`, else `~/.config/oms/anchors`."""
    source = os.environ if env is None else env
    if source.get("OMS_ANCHOR_DIR"):
        return os.path.abspath(source["OMS_ANCHOR_DIR"])
    home = source.get("HOME") or os.path.expanduser("~")
    base = source.get("XDG_CONFIG_HOME", "")
    if not os.path.isabs(base):  # unset, empty or relative: ignored (the XDG spec)
        base = os.path.join(home, ".config")
    return os.path.join(os.path.abspath(base), "oms", "anchors")


def _signed(doc: JsonObject) -> bytes:
    return dumps({k: doc[k] for k in ("at", "head", "seq", "tickets")})


def sign(signer: keys.SigningKey, key_id: str, seq: int, head: str, tickets: int) -> bytes:
    """An anchor's bytes."""
    doc: JsonObject = {"at": ledger_now(), "head": head, "seq": seq, "tickets": tickets}
    doc = {"format": FORMAT, **doc, "keyid": key_id}
    doc["sig"] = keys.b64encode(signer.sign(PAYLOAD_TYPE, _signed(doc)))
    return dumps(doc) + b"\n"


def parse(data: bytes, public_raw: bytes, key_id: str, where: str, generation: int = 0) -> Anchor:
    """A verified anchor from its bytes; IntegrityError when it is not one this state key signed."""
    try:
        doc = loads_foreign(data[:MAX_ANCHOR])
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ValueError("not an anchor")
        seq, head, at, tickets, sig = (doc[k] for k in ("seq", "head", "at", "tickets", "sig"))
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (seq, tickets)):
            raise TypeError("not an anchor")
        if not all(isinstance(v, str) for v in (head, at, sig)):
            raise TypeError("not an anchor")
        signed = _signed(doc)
    except (ValueError, KeyError, TypeError, RecursionError, OmsError) as exc:
        raise IntegrityError(f"{where}: not an anchor oms writes ({type(exc).__name__})") from None
    if doc.get("keyid") != key_id:
        raise IntegrityError(f"{where}: signed by another key")
    keys.verify(public_raw, keys.b64decode(sig, where), PAYLOAD_TYPE, signed, where)
    return Anchor(seq, head, at, tickets, generation, where)


SHARED_ROLLBACKS = "rollbacks"  # a cluster's: accepted rollbacks, every host numbers above them
_SHARED = re.compile(r"([0-9a-f]{64})\.json")


def shared_rollback(
    signer: keys.SigningKey, key_id: str, seq: int, head: str, tickets: int
) -> tuple[str, bytes]:
    """An accepted rollback as a cluster keeps it for every host (ADR 0043, amendment `floor`):
    an anchor of the head the accept moved to, carrying the ticket floor it reserved, signed by
    this state key, named by its bytes' sha256 (created once); (its name, its bytes)."""
    data = sign(signer, key_id, seq, head, tickets)
    return f"{SHARED_ROLLBACKS}/{sha256_hex(data)}.json", data


def shared_problem(
    name: str, data: bytes, keys_by_id: Mapping[str, bytes], chain: Chain
) -> str | None:
    """What is wrong with the shared rollback `name` (its name under `rollbacks/`) holding
    `data`: another name than its bytes' digest, not an anchor oms signs, signed by a state key
    none of `keys_by_id` holds (this host's, the pinned hosts'), or another ledger's — `chain`
    (this store's ledger) holds the entry it names with another hash: a floor of another store
    signed by the same key and copied in; None: it holds. One this ledger does not reach yet is
    not refused (its tail lost since: a floor only ever raises numbers)."""
    found = _SHARED.fullmatch(name)
    if found is None or found.group(1) != sha256_hex(data):
        return "not named by the digest of its bytes"
    try:
        doc = loads_foreign(data[:MAX_ANCHOR])
        key_id = doc.get("keyid") if isinstance(doc, dict) else None
    except (ValueError, RecursionError, OmsError):
        key_id = None
    public = keys_by_id.get(key_id) if isinstance(key_id, str) else None
    if public is None or not isinstance(key_id, str):
        return "an accepted rollback signed by a state key no pinned host holds: not counted"
    try:
        held = parse(data, public, key_id, name)
    except OmsError as exc:
        return exc.message
    if not chain.holds(held.seq, held.head) and chain.ends() >= held.seq:
        return (
            f"an accepted rollback of another ledger (its entry {held.seq} is not "
            f"{chain.what}'s): not counted"
        )
    return None


def shared_floor(
    found: Iterable[tuple[str, bytes]], keys_by_id: Mapping[str, bytes], chain: Chain
) -> int:
    """The highest ticket floor of the shared rollbacks `found` ((name, bytes)) that hold on
    `chain` (`shared_problem`); one that does not is not counted (`oms store verify` names it)."""
    floor = 0
    for name, data in found:
        if shared_problem(name, data, keys_by_id, chain) is None:
            doc = loads_foreign(data[:MAX_ANCHOR])
            tickets = doc.get("tickets") if isinstance(doc, dict) else None
            floor = max(floor, tickets if isinstance(tickets, int) else 0)
    return floor


class Chain(Protocol):
    """A ledger kept outside the state root that an anchor follows (an etcd store's keys)."""

    @property
    def folder(self) -> str:
        """Its anchor's folder under this state key's: one component, never a generation."""
        ...

    @property
    def what(self) -> str:
        """How a person knows it (`the etcd store … under …`)."""
        ...

    def holds(self, seq: int, head: str) -> bool:
        """Does the ledger hold entry `seq` with hash `head`?"""
        ...

    def ends(self) -> int:
        """The seq of its last entry (0: none)."""
        ...

    def highest_ticket(self) -> int:
        """The highest local ticket number it holds (0: none)."""
        ...


class Place:
    """This state root's anchor folder (`<anchors>/<key id>`, or a chain's folder under it), or
    why there is none."""

    def __init__(
        self, state: Root, key_id: str, *, create: bool, chain: Chain | None = None
    ) -> None:
        self.path = os.path.join(anchor_dir(), key_id)
        if chain is not None:
            if _GENERATION.fullmatch(chain.folder) or "/" in chain.folder:
                raise IntegrityError(f"{shown(chain.folder)}: not an anchor folder's name")
            self.path = os.path.join(self.path, chain.folder)
        self.root: Root | None = None
        self.why: str | None = None
        real_state = os.path.realpath(state.path)
        real = os.path.realpath(self.path)
        if real == real_state or real.startswith(real_state + "/"):
            where = shown(self.path)
            self.why = f"the anchor folder {where} is inside the state root (set OMS_ANCHOR_DIR)"
            return
        if not create and not os.path.isdir(self.path):
            self.why = f"no anchor at {shown(self.path)} yet"
            return
        try:
            self.root = Root.open(self.path, private=True, create=create)
        except OmsError as exc:
            self.why = f"the anchor folder cannot be used: {exc.message}"

    def __enter__(self) -> Place:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.root is not None:
            self.root.close()

    def generations(self) -> list[int]:
        """The generations present, ascending."""
        if self.root is None:
            return []
        try:
            names = self.root.listdir("")
        except NotFoundError:
            return []
        return sorted(int(m.group(1)) for n in names if (m := _GENERATION.fullmatch(n)))

    def newest(self, public_raw: bytes, key_id: str) -> Anchor | None:
        """The newest anchor (None: none); IntegrityError when it is damaged or not this key's."""
        found = self.generations()
        if not found or self.root is None:
            return None
        name = f"{found[-1]}.json"
        where = shown(os.path.join(self.path, name))
        return parse(self.root.read_bytes(name, MAX_ANCHOR), public_raw, key_id, where, found[-1])


def on_chain(state: Root, seq: int, head: str, chain: Chain | None = None) -> bool:
    """Does this state root's ledger (or `chain`) hold entry `seq` with hash `head`? Its signed
    checkpoint of `seq` answers at once; else the log is read from its end until the entry is
    found."""
    if chain is not None:
        return chain.holds(seq, head)
    public, key_id = _public(state)
    try:
        kept = state.read_optional(f"{CHECKPOINTS}/{seq}.json", MAX_ANCHOR)
        if kept is not None:
            return parse_checkpoint(kept, public, key_id, "checkpoint") == (seq, head)
    except OmsError:
        pass  # damaged: `oms audit verify` names it; the log answers
    found = entry_hash(state, seq)
    return found == head


def entry_hash(state: Root, seq: int) -> str | None:
    """The hash of ledger entry `seq` (its MAC checked), read from the log's end; None: none."""
    if not state.exists(LOG):
        return None
    key = line_key(state)
    size = LIMITS.anchor_scan_bytes
    while True:
        tail = state.read_tail(LOG, size)
        whole = tail[: tail.rfind(b"\n") + 1]
        lines = whole.splitlines()
        complete = len(tail) < size  # the window holds the whole log
        for line in reversed(lines if complete else lines[1:]):
            try:
                entry = parse_line(line, key)
            except IntegrityError:
                return None
            if entry.seq == seq:
                return hash_of(line)
            if entry.seq < seq:
                return None
        if complete:
            return None
        size *= 4


def _public(state: Root) -> tuple[bytes, str]:
    from oms.store.documents import read_document
    from oms.store.stateroot import META, parse_meta

    meta = parse_meta(read_document(state, META, "state-meta", LIMITS.state_meta_bytes))
    return meta.public_key, meta.key_id


def highest_ticket(state: Root) -> int:
    """The highest local ticket number this state root holds (0: none)."""
    try:
        names = state.listdir("records/ticket")
    except NotFoundError:
        return 0
    return max((int(m.group(1)) for n in names if (m := LOCAL_TICKET.fullmatch(n))), default=0)


def rolled_back(state: Root, anchor: Anchor, chain: Chain | None = None) -> str:
    """The one line that names a rollback the anchor shows."""
    ends = head_seq(state) if chain is None else chain.ends()
    how = (
        f"the ledger ends at entry {ends}"
        if ends < anchor.seq
        else f"its entry {anchor.seq} is another one (rewritten after it)"
    )
    what = "the state root" if chain is None else chain.what
    return (
        f"{what} was rolled back: its anchor {anchor.where} (written {anchor.at}) names "
        f"ledger entry {anchor.seq}, but {how}"
    )


ROLLBACK_HINT = (
    "put the newer copy of the state root back if you have it; else `oms audit accept-rollback` "
    "says what was lost and anchors the state root as it is"
)

KEYS_ROLLBACK_HINT = (
    "put the cluster's newer snapshot back if you have it; else `oms audit accept-rollback` says "
    "what was lost and anchors the etcd store as it is"
)


def head_seq(state: Root) -> int:
    """The seq of the ledger's last whole entry (0: none)."""
    tail = state.read_tail(LOG, TAIL_BYTES) if state.exists(LOG) else b""
    whole = tail[: tail.rfind(b"\n") + 1].rstrip(b"\n")
    if not whole:
        return 0
    try:
        return parse_line(whole.rsplit(b"\n", 1)[-1]).seq
    except IntegrityError:
        return 0


Checked = tuple[Anchor | None, str | None, str | None]


def check(state: Root, public_raw: bytes, key_id: str, chain: Chain | None = None) -> Checked:
    """(the newest anchor, a problem, a note): the problem names a rollback or a damaged anchor; the
    note says why there is no anchor to check (`chain`: an etcd store's, else the state root's)."""
    with Place(state, key_id, create=False, chain=chain) as place:
        if place.root is None:
            return None, None, place.why
        try:
            newest = place.newest(public_raw, key_id)
        except OmsError as exc:
            return None, f"{exc.message} (the anchor)", None
        if newest is None:
            return None, None, f"no anchor at {shown(place.path)} yet"
        if not on_chain(state, newest.seq, newest.head, chain):
            return newest, rolled_back(state, newest, chain), None
        return newest, None, None


def advance(
    state: Root,
    signer: keys.SigningKey,
    key_id: str,
    checkpoint: JsonObject,
    *,
    accept: bool = False,
    chain: Chain | None = None,
) -> str | None:
    """Move the anchor to `checkpoint` (a signed checkpoint of this ledger's head; for `chain`,
    its head's seq and hash). None: done, or nothing to do; else the one line that says why it
    stays (a rollback: `accept` moves it all the same, the person's `oms audit accept-rollback`;
    or the folder cannot be used)."""
    seq, head = int(str(checkpoint["seq"])), str(checkpoint["head"])
    public = signer.public_raw()
    with Place(state, key_id, create=True, chain=chain) as place:
        if place.root is None:
            return place.why
        for _ in range(LIMITS.anchor_rounds):
            try:
                current = place.newest(public, key_id)
            except OmsError as exc:
                if not accept:
                    return f"{exc.message} (the anchor: `oms audit verify`)"
                current = None
            if current is not None and not accept:
                if (current.seq, current.head) == (seq, head):
                    return None
                if not on_chain(state, current.seq, current.head, chain):
                    return rolled_back(state, current, chain)
                if current.seq > seq:
                    return None  # a later writer anchored further along this ledger
            tickets = max(
                current.tickets if current is not None else 0,
                highest_ticket(state) if chain is None else chain.highest_ticket(),
                _accepted_floor(state, public, key_id),
            )
            generation = max(place.generations(), default=0) + 1
            try:
                place.root.publish(f"{generation}.json", sign(signer, key_id, seq, head, tickets))
            except AlreadyExistsError:
                continue  # another writer's generation: look again
            for old in place.generations():
                if old < generation:
                    place.root.unlink(f"{old}.json")
            return None
        return "the anchor kept moving (other writers): the next one moves it"


def _accepted_floor(state: Root, public_raw: bytes, key_id: str) -> int:
    """The highest ticket number of the rollbacks a person accepted (kept in the state root)."""
    try:
        names = state.listdir(ROLLBACKS)
    except NotFoundError:
        return 0
    floor = 0
    for name in names:
        rel = f"{ROLLBACKS}/{name}"
        try:
            kept = parse(state.read_bytes(rel, MAX_ANCHOR), public_raw, key_id, rel)
            floor = max(floor, kept.tickets)
        except OmsError:
            continue  # `oms audit verify` names it
    return floor


def ticket_floor(state: Root, chain: Chain | None = None) -> int:
    """The highest local ticket number ever allocated as far as the anchor (the state root's, or
    `chain`'s) and the accepted rollbacks know (0: none): the next local ticket is numbered above
    it and above every ticket record."""
    public, key_id = _public(state)
    floor = _accepted_floor(state, public, key_id)
    with Place(state, key_id, create=False, chain=chain) as place:
        if place.root is None:
            return floor
        try:
            newest = place.newest(public, key_id)
        except OmsError:
            return floor  # damaged: `oms audit verify` names it
        return max(floor, newest.tickets if newest is not None else 0)


def keep_rolled_back(
    state: Root, public_raw: bytes, key_id: str, chain: Chain | None = None
) -> Anchor | None:
    """Keep the anchor a rollback left behind (of the state root, or of `chain`) in the state root
    (`ledger/rollbacks/<n>.json`, noted), for `oms audit accept-rollback`; the anchor (None: it
    was damaged, and is kept as it is). ConflictError when there is nothing to accept."""
    with Place(state, key_id, create=False, chain=chain) as place:
        if place.root is None:
            raise ConflictError(f"nothing to accept: {place.why}")
        try:
            newest = place.newest(public_raw, key_id)
        except OmsError:
            newest = None  # damaged or not this key's: kept as it is, for a person to look at
        else:
            if newest is None or on_chain(state, newest.seq, newest.head, chain):
                raise ConflictError("nothing to accept: the anchor is on this ledger (no rollback)")
        data = place.root.read_bytes(f"{place.generations()[-1]}.json", MAX_ANCHOR)
    state.mkdirs(ROLLBACKS)
    for _ in range(LIMITS.anchor_rounds):
        names = state.listdir(ROLLBACKS)
        taken = [int(m.group(1)) for n in names if (m := _GENERATION.fullmatch(n))]
        try:
            publish_noted(state, "rollback", f"{ROLLBACKS}/{max(taken, default=0) + 1}.json", data)
            return newest
        except AlreadyExistsError:
            continue  # another acceptance took the number
    raise IntegrityError("could not keep the rolled-back anchor: retry")
