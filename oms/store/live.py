"""The live index: which records of a kind may be in a live state (a ticket `open` or `leased`), so
that a reader that wants only those — the conductor's expire and fill phases, a one-shot `oms
conductor tick` from cron — costs what is live, not every record ever written (issue 26 item 4).

`index/live/<kind>/<id>.<version>`, an empty file each. The record write path
(`RecordStore._write`, the one path) keeps it:

* before it publishes version v of a record in a live state, it publishes `<id>.v` (durable);
* after it publishes version v, it removes `<id>.(v-1)`.

So, whatever crashes or races happen, **a record whose latest version v is live has its marker
`<id>.v`**: that marker was published before v was, and a marker is removed only by a writer that
published a later version, or by a reader that read a later version, or the same version not live
(`records`: pruning). The index is a superset — a marker may name a record that is no longer live
(a writer died between its publish and its removal, or lost a race) — so a reader reads each record
it names and keeps only those live now: nothing is taken from the index but which records to read.

A state root made before the index has none: the first reader builds it from a full scan (every
record of the kind, as `Store.latest` reads them), marks each live one, and then publishes
`index/live/<kind>/complete`; until that file is there every reader scans. Writers mark whether or
not it is there, so a record written during the build is marked by its writer.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from oms.errors import AlreadyExistsError, NotFoundError, OmsError, suppress_faults
from oms.fsio import Root

LIVE: dict[str, frozenset[str]] = {"ticket": frozenset({"open", "leased"})}
TOP = "index/live"
COMPLETE = "complete"


def directory(kind: str) -> str:
    """Where the markers of `kind` are."""
    return f"{TOP}/{kind}"


def marker(kind: str, record_id: str, version: int) -> str:
    """The marker of version `version` of record `record_id`."""
    return f"{directory(kind)}/{record_id}.{version}"


def parse_marker(name: str) -> tuple[str, int] | None:
    """(record id, version) of a marker's file name (None: not a marker)."""
    record_id, at, version = name.rpartition(".")
    if not at or not record_id or not version.isdigit() or len(version) > 16:
        return None
    if version != str(int(version)):
        return None
    return record_id, int(version)


def before(root: Root, kind: str, record_id: str, version: int, state: str) -> None:
    """Before version `version` in `state` is published: its marker, if the state is live."""
    if state not in LIVE.get(kind, ()):
        return
    root.mkdirs(directory(kind))
    with contextlib.suppress(AlreadyExistsError):  # a racing writer of the same version marked it
        root.publish(marker(kind, record_id, version), b"")


def after(root: Root, kind: str, record_id: str, version: int) -> None:
    """After version `version` is published: the marker of the version before it is not needed."""
    if kind not in LIVE or version == 0:
        return
    with contextlib.suppress(NotFoundError):
        root.unlink(marker(kind, record_id, version - 1))


def complete(root: Root, kind: str) -> bool:
    """Does the index of `kind` name every live record (built, or started with the state root)?"""
    return root.exists(f"{directory(kind)}/{COMPLETE}")


def mark_complete(root: Root, kind: str) -> None:
    """The index of `kind` names every live record from here on."""
    root.mkdirs(directory(kind))
    with contextlib.suppress(AlreadyExistsError):
        root.publish(f"{directory(kind)}/{COMPLETE}", b"")


def marked(root: Root, kind: str) -> dict[str, list[int]]:
    """Every marker of `kind`: record id -> the versions marked."""
    found: dict[str, list[int]] = {}
    try:
        names = root.listdir(directory(kind))
    except NotFoundError:
        return found
    for name in names:
        parsed = parse_marker(name)
        if parsed is not None:
            found.setdefault(parsed[0], []).append(parsed[1])
    return found


def prune(
    root: Root, kind: str, record_id: str, versions: list[int], latest: int, state: str
) -> None:
    """Remove the markers a reader found not needed: a version before `latest` (the version it
    read), or `latest` itself when its `state` is not live. Best effort."""
    for version in versions:
        if version < latest or (version == latest and state not in LIVE[kind]):
            with suppress_faults(OmsError, OSError):
                root.unlink(marker(kind, record_id, version))


def build(root: Root, kind: str, live_now: Callable[[], list[tuple[str, int]]]) -> None:
    """Build the index of a state root made before it: mark every record `live_now` names (id,
    latest version: live), then mark the index complete."""
    for record_id, version in live_now():
        before(root, kind, record_id, version, next(iter(LIVE[kind])))
    mark_complete(root, kind)
