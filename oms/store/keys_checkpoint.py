"""A checkpoint of a backend's own ledger (an etcd store's keys; ADR 0043, amendment `rest`).

`{"format": "oms-etcd-checkpoint-v1", "seq", "head", "first", "store", "cluster", "at", "keyid",
"sig"}`: the entry `ledger/<seq>` of the keys' chain and the sha256 of its bytes, the sha256 of its
entry 1 (`first`: which ledger it is, wherever it is served), the store it is of (`store`: the
chain's anchor folder, named by the store's prefix) and the cluster that answered (`cluster`: its
id, which a restore on the same members keeps and one under a new `--initial-cluster-token`
changes), signed by this host's state key over the canonical `{"at", "cluster", "first", "head",
"seq", "store"}` (without `first` in checkpoints written before it; the state root's checkpoints
are `ledger_check.py`'s). It is kept where the anchor is (`<anchors>/<key id>/<chain>/`, outside
the cluster and the state root: `anchor.advance` moves it there) and, with `--export`, where a
person puts it. `check` refuses one of another host (its key id) or another store (its prefix)
before it is read against the chain, and one of another cluster unless the chain here is its
ledger: one that holds its entry (the ledger served by a new cluster, whole), or its entry 1 (the
ledger restored on a new cluster from an earlier snapshot: a rollback, named as one)."""

from __future__ import annotations

from typing import Protocol

from oms.canonical import JsonObject, dumps
from oms.canonical.strict_json import loads_foreign
from oms.errors import OmsError, SignatureError
from oms.limits import LIMITS
from oms.store import keys
from oms.store.anchor import Chain
from oms.store.ledger import now as ledger_now

FORMAT = "oms-etcd-checkpoint-v1"
PAYLOAD_TYPE = "application/vnd.oms.etcd-checkpoint+json"
_SIGNED = ("at", "cluster", "head", "seq", "store")


class Headed(Chain, Protocol):
    """A chain whose head can be read now, and which cluster holds it."""

    def head(self) -> tuple[int, str, str]:
        """(seq, sha256, cluster id) of its last entry, checked (seq 0: none)."""
        ...

    def first(self) -> str | None:
        """The sha256 of its entry 1's bytes (None: none yet). One read."""
        ...

    def moved(self) -> int:
        """A number that changes whenever any writer adds an entry (0: none): one read, nothing
        checked (what `oms web` watches)."""
        ...


def is_one(data: bytes) -> bool:
    """Whether `data` says it is a checkpoint of a backend's ledger (checked later, by `check`)."""
    try:
        doc = loads_foreign(data[: LIMITS.anchor_bytes])
    except (ValueError, RecursionError, OmsError):
        return False
    return isinstance(doc, dict) and doc.get("format") == FORMAT


def sign(
    signer: keys.SigningKey,
    key_id: str,
    seq: int,
    head: str,
    store: str,
    cluster: str,
    first: str | None = None,
) -> JsonObject:
    """A checkpoint of entry `seq` (hash `head`) of `store` on `cluster`, whose entry 1 hashes to
    `first`, signed now."""
    doc: JsonObject = {"at": ledger_now(), "cluster": cluster, "head": head, "seq": seq}
    if first is not None:
        doc["first"] = first
    doc = {"format": FORMAT, **doc, "store": store, "keyid": key_id}
    doc["sig"] = keys.b64encode(signer.sign(PAYLOAD_TYPE, dumps(_signed(doc))))
    return doc


def _signed(doc: JsonObject) -> JsonObject:
    """What the signature covers (`first` when the checkpoint names it)."""
    return {k: doc[k] for k in (*_SIGNED, "first") if k in _SIGNED or k in doc}


def check(data: bytes, public_raw: bytes, key_id: str, chain: Headed, where: str) -> str | None:
    """The problem of checkpoint `data` on `chain` (None: it holds): not one oms signs, signed by
    another key, of another store or cluster, or naming an entry the chain no longer holds."""
    try:
        doc = loads_foreign(data[: LIMITS.anchor_bytes])
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ValueError("not a checkpoint")
        seq, head, store, cluster, at = (doc[k] for k in ("seq", "head", "store", "cluster", "at"))
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
            raise TypeError("not a checkpoint")
        first = doc.get("first")
        if not all(isinstance(v, str) for v in (head, store, cluster, at, doc["sig"])):
            raise TypeError("not a checkpoint")
        if first is not None and not isinstance(first, str):
            raise TypeError("not a checkpoint")
        signed = dumps(_signed(doc))
        if doc.get("keyid") != key_id:
            raise SignatureError(
                f"{where}: signed by another state key ({str(doc.get('keyid'))[:16]}…, this host's "
                f"is {key_id[:16]}…): another host's checkpoint is checked on that host"
            )
        keys.verify(public_raw, keys.b64decode(str(doc["sig"]), where), PAYLOAD_TYPE, signed, where)
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        return f"{where}: not a checkpoint oms writes ({type(exc).__name__})"
    except OmsError as exc:
        return exc.message
    if store != chain.folder:
        return f"{where}: a checkpoint of another etcd store (another prefix), not {chain.what}"
    ends, _, here = chain.head()
    if chain.holds(seq, head):
        return None  # (on a new cluster too: the ledger it names is served here, whole)
    moved = ""
    if cluster != here:
        if first is None or not chain.holds(1, first):
            return (
                f"{where}: a checkpoint of another etcd cluster (id {cluster}; this one is "
                f"{here}), not of {chain.what} here"
            )
        moved = f" (restored on a new cluster: id {here}, the checkpoint's {cluster})"
    how = (
        f"the ledger ends at entry {ends}"
        if ends < seq
        else f"its entry {seq} is another one (rewritten after it)"
    )
    return (
        f"{where} (written {at}) names ledger entry {seq}, but {how}: {chain.what} was rolled "
        f"back{moved}"
    )
