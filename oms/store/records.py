"""Versioned records: a directory of immutable version files per record (ADR 0002).

Layout: `records/<kind>/<id>/<version>.json` (version 0 is the creation) and
`records/<kind>/<id>/ops/<operation-id>.json` (which version an operation produced).

Rules:

* A transition carries `expected_version` N and an `operation_id`; it is a no-replace create of
  version N+1. Two writers racing for N+1: one wins, the other gets `VersionConflictError`.
* Operation ids are idempotency keys. An operation that already produced a version returns that
  version (`replayed=True`) instead of writing again: whether it is the latest version, or an older
  one found through the op index. Only the same change replays (same expected version, state and
  payload); an operation id asked for a different change raises `OperationConflictError`.
* Index invariant: before version N+1 is written, the op index entry of version N exists. So an
  operation's version is always either the latest one or indexed, and the lookup is O(1).
* Each version names its actor, its observed time (strictly after the previous version's), its
  expected version and the sha256 of the previous version's bytes (a hash chain `store verify`
  checks).
* Every read is bounded, canonical, schema-valid, and consistent with its location.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable
from functools import partial
from typing import NamedTuple

from oms.canonical import JsonObject, access, check, digest_bytes, parse_ts
from oms.errors import (
    AlreadyExistsError,
    IntegrityError,
    InvalidInputError,
    OperationConflictError,
    RecordNotFoundError,
    VersionConflictError,
)
from oms.fsio import Root
from oms.limits import LIMITS, Limits
from oms.store.backend import Backend, Fence, Files, Publish
from oms.store.documents import encode_document, parse_document
from oms.store.stateroot import check_kind

OPS_DIR = "ops"
_ACTOR = re.compile(r"[a-z][a-z0-9-]{0,62}(?:[.:][a-z0-9][a-z0-9-]{0,62}){0,3}")


class Record(NamedTuple):
    """One parsed, validated version of a record. Treat `payload` as read-only."""

    kind: str
    record_id: str
    version: int
    state: str
    expected_version: int | None
    operation_id: str
    actor: str
    observed_at: str
    previous_sha256: str | None
    payload: JsonObject
    sha256: str

    def to_json(self) -> JsonObject:
        """The stored envelope (without the computed `sha256`)."""
        return {
            "format": "oms-record-v1",
            "kind": self.kind,
            "record_id": self.record_id,
            "version": self.version,
            "state": self.state,
            "expected_version": self.expected_version,
            "operation_id": self.operation_id,
            "actor": self.actor,
            "observed_at": self.observed_at,
            "previous_sha256": self.previous_sha256,
            "payload": self.payload,
        }


class WriteResult(NamedTuple):
    """The version a write produced, and whether it was already there (an idempotent replay)."""

    record: Record
    replayed: bool


class Change(NamedTuple):
    """What a `decide` asks `RecordStore.update` to write as the next version."""

    state: str
    payload: JsonObject
    operation_id: str
    actor: str
    observed_at: str


Decide = Callable[[Record], "Change | None"]
DecideOrCreate = Callable[["Record | None"], "Change | None"]


def version_digest(data: bytes) -> str:
    """The chain digest of a stored version file."""
    return digest_bytes("record-version", data)


# parsed versions kept per process (a long-lived conductor reads the same ones each tick)
_parsed: OrderedDict[tuple[str, str, int, str], Record] = OrderedDict()


def parse_record(data: bytes, kind: str, record_id: str, version: int, where: str) -> Record:
    """Parse and check one version file against its kind, id and version number. The same bytes
    under the same name parse to the same record, so a parse is kept by the bytes' digest (version
    files are never changed in place; a changed file has another digest and is parsed and checked
    anew)."""
    key = (kind, record_id, version, version_digest(data))
    found = _parsed.get(key)
    if found is not None:
        _parsed.move_to_end(key)
        return found
    rec = _parse_record(data, kind, record_id, version, where, key[3])
    _parsed[key] = rec
    if len(_parsed) > LIMITS.parsed_records:
        _parsed.popitem(last=False)
    return rec


def _parse_record(
    data: bytes, kind: str, record_id: str, version: int, where: str, digest: str
) -> Record:
    doc = parse_document(data, kind, where)
    rec = Record(
        kind=access.text(doc, "kind"),
        record_id=access.text(doc, "record_id"),
        version=access.integer(doc, "version"),
        state=access.text(doc, "state"),
        expected_version=access.integer_or_none(doc, "expected_version"),
        operation_id=access.text(doc, "operation_id"),
        actor=access.text(doc, "actor"),
        observed_at=access.text(doc, "observed_at"),
        previous_sha256=access.text_or_none(doc, "previous_sha256"),
        payload=access.obj(doc, "payload"),
        sha256=digest,
    )
    check(rec.record_id, f"{where}: record_id")
    check(rec.operation_id, f"{where}: operation_id")
    check(rec.actor, f"{where}: actor", _ACTOR)
    parse_ts(rec.observed_at, f"{where}: observed_at")
    if (rec.kind, rec.record_id, rec.version) != (kind, record_id, version):
        raise IntegrityError(
            f"{where}: names {rec.kind}/{rec.record_id}/{rec.version} (expected "
            f"{kind}/{record_id}/{version})"
        )
    if version == 0:
        if rec.expected_version is not None or rec.previous_sha256 is not None:
            raise IntegrityError(
                f"{where}: version 0 must have no expected version and no previous digest"
            )
    elif rec.expected_version != version - 1 or rec.previous_sha256 is None:
        raise IntegrityError(
            f"{where}: expected_version {rec.expected_version} (expected {version - 1})"
        )
    return rec


class RecordStore:
    """Records of one kind under a state root."""

    def __init__(
        self,
        root: Root,
        kind: str,
        limits: Limits = LIMITS,
        *,
        backend: Backend | None = None,
        fence: Fence | None = None,
    ) -> None:
        self.root = root
        self.kind = check_kind(kind)
        self.limits = limits
        self.backend: Backend = Files(root) if backend is None else backend
        self.fence = fence  # a lock's token every write of this store carries (backend.py)

    def fenced(self, fence: Fence) -> RecordStore:
        """This store, its writes landing only while `fence`'s lock is still the one held."""
        return RecordStore(self.root, self.kind, self.limits, backend=self.backend, fence=fence)

    # ------------------------------------------------------------------ paths
    def _dir(self, record_id: str) -> str:
        return f"records/{self.kind}/{check(record_id, f'{self.kind} id')}"

    # ------------------------------------------------------------------ reads
    def ids(self) -> list[str]:
        """Every record id of this kind (sorted)."""
        return self.backend.names(f"records/{self.kind}")

    def versions(self, record_id: str) -> list[int]:
        """The version numbers present for `record_id`, ascending; empty if none."""
        return self.backend.versions(self.kind, check(record_id, f"{self.kind} id"))

    def read_version(self, record_id: str, version: int) -> Record:
        """One specific version."""
        rel = f"{self._dir(record_id)}/{version}.json"
        data = self.backend.read(rel, self.limits.record_bytes)
        if data is None:
            raise RecordNotFoundError(f"{self.kind} {record_id} has no version {version}")
        return parse_record(data, self.kind, record_id, version, rel)

    def read_if_exists(self, record_id: str) -> Record | None:
        """The latest version, or None when the record does not exist."""
        found = self.backend.read_latest(
            self.kind, check(record_id, f"{self.kind} id"), self.limits.record_bytes
        )
        if found is None:
            return None
        version, data = found
        return parse_record(
            data, self.kind, record_id, version, f"{self._dir(record_id)}/{version}.json"
        )

    def read(self, record_id: str) -> Record:
        """The latest version."""
        rec = self.read_if_exists(record_id)
        if rec is None:
            hint = (
                "if its ticket ended long ago it may be compacted: "
                f"`oms audit log --dispatch {record_id}` shows its history"
                if self.kind in ("dispatch", "worker", "session")
                else None
            )
            raise RecordNotFoundError(f"no {self.kind} record {record_id}", hint=hint)
        return rec

    def history(self, record_id: str) -> list[Record]:
        """Every version, checking that the chain is contiguous and linked."""
        out: list[Record] = []
        for expected, version in enumerate(self.versions(record_id)):
            if version != expected:
                raise IntegrityError(f"{self._dir(record_id)}: version {expected} is missing")
            rec = self.read_version(record_id, version)
            if out and (
                rec.previous_sha256 != out[-1].sha256 or rec.observed_at <= out[-1].observed_at
            ):
                raise IntegrityError(
                    f"{self._dir(record_id)}/{version}.json: does not follow version {version - 1}"
                )
            out.append(rec)
        return out

    def find_operation(self, record_id: str, operation_id: str) -> Record | None:
        """The version `operation_id` produced, if any (the latest version, else the op index)."""
        check(operation_id, "operation id")
        return self._replay(record_id, operation_id, self.read_if_exists(record_id))

    def _indexed(self, record_id: str, operation_id: str) -> Record | None:
        rel = f"{self._dir(record_id)}/{OPS_DIR}/{operation_id}.json"
        raw = self.backend.read(rel, self.limits.record_bytes)
        if raw is None:
            return None
        entry = parse_document(raw, "op-index", rel)
        rec = self.read_version(record_id, access.integer(entry, "version"))
        if rec.operation_id != operation_id or entry["operation_id"] != operation_id:
            raise IntegrityError(f"{rel}: points at a version with another operation id")
        return rec

    # ------------------------------------------------------------------ writes
    def update(
        self,
        record_id: str,
        decide: Decide,
        *,
        rounds: int | None = None,
        first: Record | None = None,
    ) -> WriteResult | None:
        """The one read-decide-write-retry of a record's next version.

        Reads the latest version (or starts from `first`, a version the caller has read already),
        asks the pure `decide` for the next version (None: nothing to write, None is returned) and
        writes it with `transition`'s compare-and-swap. A lost race (`VersionConflictError`) reads
        again and asks `decide` again, at most `rounds` times (`LIMITS.record_race_rounds`); the
        last conflict is raised after that. A missing record raises `RecordNotFoundError`; what
        `decide` raises (an illegal transition, a refusal) passes through unwritten."""

        def either(current: Record | None) -> Change | None:
            if current is None:
                raise RecordNotFoundError(f"no {self.kind} record {record_id}")
            return decide(current)

        return self._decide_loop(record_id, either, rounds, first)

    def write_next(self, first: Record, change: Change) -> WriteResult:
        """`update` in one round from `first`, a version the caller read and decided on already:
        `change` is written as the version after it, or `VersionConflictError` when another writer
        won that version (or a replay of the same operation)."""
        written = self.update(first.record_id, lambda _current: change, rounds=1, first=first)
        if written is None:  # (a decide that always answers writes or raises)
            raise VersionConflictError(self.kind, first.record_id, first.version, None)
        return written

    def upsert(
        self,
        record_id: str,
        decide: DecideOrCreate,
        *,
        rounds: int | None = None,
    ) -> WriteResult | None:
        """`update`, where `decide` also sees a missing record (None) and may create version 0."""
        return self._decide_loop(record_id, decide, rounds, None)

    def _decide_loop(
        self,
        record_id: str,
        decide: DecideOrCreate,
        rounds: int | None,
        first: Record | None,
    ) -> WriteResult | None:
        bound = self.limits.record_race_rounds if rounds is None else rounds
        if bound < 1:
            raise InvalidInputError(f"rounds must be at least 1 (got {bound})")
        lost = VersionConflictError(self.kind, record_id, None, None)
        for round_ in range(bound):
            current = first if round_ == 0 and first is not None else None
            if current is None:
                current = self.read_if_exists(record_id)
            change = decide(current)
            if change is None:
                return None
            try:
                if current is None:
                    return self.create(
                        record_id,
                        state=change.state,
                        payload=change.payload,
                        operation_id=change.operation_id,
                        actor=change.actor,
                        observed_at=change.observed_at,
                    )
                return self.transition(
                    record_id,
                    expected_version=current.version,
                    state=change.state,
                    payload=change.payload,
                    operation_id=change.operation_id,
                    actor=change.actor,
                    observed_at=change.observed_at,
                )
            except VersionConflictError as exc:
                lost = exc  # another writer's version landed first: decide again on it
        raise lost

    def create(
        self,
        record_id: str,
        *,
        state: str,
        payload: JsonObject,
        operation_id: str,
        actor: str,
        observed_at: str,
    ) -> WriteResult:
        """Create version 0 (or return it if this operation already created it)."""
        return self._write(record_id, None, state, payload, operation_id, actor, observed_at)

    def transition(
        self,
        record_id: str,
        *,
        expected_version: int,
        state: str,
        payload: JsonObject,
        operation_id: str,
        actor: str,
        observed_at: str,
    ) -> WriteResult:
        """Write version `expected_version + 1`, or replay, or raise `VersionConflictError`."""
        given: object = expected_version
        if isinstance(given, bool) or not isinstance(given, int) or given < 0:
            raise InvalidInputError(
                f"expected version must be a non-negative integer (got {expected_version!r})"
            )
        return self._write(
            record_id, expected_version, state, payload, operation_id, actor, observed_at
        )

    def _write(
        self,
        record_id: str,
        expected: int | None,
        state: str,
        payload: JsonObject,
        operation_id: str,
        actor: str,
        observed_at: str,
    ) -> WriteResult:
        check(operation_id, "operation id")
        check(actor, "actor", _ACTOR)
        parse_ts(observed_at, "observed_at")
        base = self._dir(record_id)
        for _ in range(LIMITS.record_race_rounds):
            latest = self.read_if_exists(record_id)
            if latest is None and expected is not None:
                raise RecordNotFoundError(f"no {self.kind} record {record_id}")
            done = self._replay(record_id, operation_id, latest)
            if done is not None:
                return self._replayed(done, expected, state, payload)
            if (None if latest is None else latest.version) != expected:
                done = self.find_operation(record_id, operation_id)  # it may have landed meanwhile
                if done is not None:
                    return self._replayed(done, expected, state, payload)
                raise VersionConflictError(
                    self.kind, record_id, expected, None if latest is None else latest.version
                )
            if latest is not None and observed_at <= latest.observed_at:
                raise InvalidInputError(
                    f"{self.kind} {record_id}: observed_at {observed_at} "
                    f"must be after {latest.observed_at}"
                )
            version = 0 if latest is None else latest.version + 1
            doc: JsonObject = {
                "format": "oms-record-v1",
                "kind": self.kind,
                "record_id": record_id,
                "version": version,
                "state": state,
                "expected_version": expected,
                "operation_id": operation_id,
                "actor": actor,
                "observed_at": observed_at,
                "previous_sha256": None if latest is None else latest.sha256,
                "payload": payload,
            }
            rel = f"{base}/{version}.json"
            data = encode_document(
                doc, self.kind, rel, self.limits.record_bytes
            )  # validate before any write
            previous = latest
            item = Publish(
                self.kind,
                record_id,
                version,
                state,
                rel,
                data,
                None if previous is None else partial(self._index, previous),
                self._entry(record_id, operation_id, version),
            )
            if not self.backend.publish_version(item, self.fence):
                continue  # lost the race: the next round replays or reports the conflict
            record = Record(
                self.kind,
                record_id,
                version,
                state,
                expected,
                operation_id,
                actor,
                observed_at,
                None if latest is None else latest.sha256,
                payload,
                version_digest(data),
            )
            return WriteResult(record, replayed=False)
        raise VersionConflictError(self.kind, record_id, expected, None)

    def _replayed(
        self, done: Record, expected: int | None, state: str, payload: JsonObject
    ) -> WriteResult:
        """`done` answers the retry of the transition it recorded; any other transition is a
        conflict.

        An operation id names one change: the same expected version, state and payload. Answering a
        different change with `done` would tell a second writer its change was recorded when it was
        not."""
        if (done.expected_version, done.state, done.payload) != (expected, state, payload):
            raise OperationConflictError(self.kind, done.record_id, done.operation_id, done.version)
        return WriteResult(done, replayed=True)

    def _replay(self, record_id: str, operation_id: str, latest: Record | None) -> Record | None:
        """The version `operation_id` produced, given the latest version already read."""
        if latest is None:
            return None
        if latest.operation_id == operation_id:
            return latest
        return self._indexed(record_id, operation_id)

    def _entry(self, record_id: str, operation_id: str, version: int) -> tuple[str, bytes]:
        """The op-index entry naming `version` as `operation_id`'s: its name and bytes."""
        rel = f"{self._dir(record_id)}/{OPS_DIR}/{operation_id}.json"
        entry: JsonObject = {
            "format": "oms-op-v1",
            "operation_id": operation_id,
            "version": version,
        }
        return rel, encode_document(entry, "op-index", rel, self.limits.record_bytes)

    def _index(self, rec: Record) -> None:
        """Make sure the op index names `rec` (idempotent; a different entry is corruption)."""
        ops = f"{self._dir(rec.record_id)}/{OPS_DIR}"
        rel, data = self._entry(rec.record_id, rec.operation_id, rec.version)
        existing = self.root.read_optional(rel, self.limits.record_bytes)
        if existing is None:
            self.root.mkdirs(ops)
            try:
                self.root.publish(rel, data)
                return
            except AlreadyExistsError:
                existing = self.root.read_bytes(rel, self.limits.record_bytes)
        if existing != data:
            raise IntegrityError(
                f"{rel}: operation id {rec.operation_id} already names another version"
            )
