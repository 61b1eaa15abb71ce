"""`oms store verify`: walk a state root and report every problem, changing nothing.

Checks: the root and every entry are ours and private, regular files have one link, nothing is a
symlink or a special file; `oms-state.json` and the key agree; every record version, event, receipt,
evidence item and journal entry parses, is canonical and schema-valid and sits where its content
says; version chains are contiguous, hash-linked and strictly advancing in time; op index entries
point at the versions that carry them and no operation id appears twice; evidence signatures verify;
there is no temp or lock debris left by a dead process; `ledger/` holds only the log, checkpoints
and kept rollback anchors; the runtime areas (`proxy/`, `verify/`, `archive/`) hold private regular
files only. A temp file or lock of a *live* process is reported as a note (work in progress), not a
problem. What it cannot see alone — a latest version edited in place, a file deleted whole, a
rollback — is `oms audit verify`'s (ADR 0027).

`sweep` removes only debris whose owner is provably gone (same boot, pid and start time no longer
alive): temp files and stale locks; and settles an unfinished last ledger line, as the next writer
would (`ledger.settle`). It never touches anything else.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field

from oms.canonical import access, equal
from oms.canonical.ids import OPAQUE_ID, SHA256
from oms.errors import OmsError, shown
from oms.fsio import FsioOptions, Root, is_temp_name, procinfo, temp_owner
from oms.fsio.locks import break_stale, inspect
from oms.limits import LIMITS
from oms.provider_names import NAMES
from oms.store import (
    compaction,
    hosts,
    keys,
    ledger,
    live,
    panefiles,
    repository,
    sandboxes,
    summary_file,
)
from oms.store.backend import VERSION_NAME
from oms.store.content import TICKETS_DIR, WORKTREES_DIR, parse_content, parse_worktree
from oms.store.documents import parse_document
from oms.store.events import EVENTS_DIR, parse_event
from oms.store.evidence import EVIDENCE_DIR, open_envelope
from oms.store.journal import JOURNAL_NAMES, JOURNALS_DIR, SEQ_NAME, entry_digest
from oms.store.outbox import LOCK_SUFFIX, OUTBOX_DIR, RECEIPT_SUFFIX, parse_receipt
from oms.store.records import OPS_DIR, Record, parse_record
from oms.store.stateroot import KEY, LAYOUT, META, RECORD_KINDS, TMUX_CONF, StateMeta, parse_meta

# made when first used: the model proxy's files (ADR 0020), verification outputs and discard bundles
# (ADR 0021), the ledger (ADR 0022), the notifications' log (ADR 0036), hosts' heartbeats (ADR 0043)
OPTIONAL_AREAS = ("proxy", "verify", "archive", "ledger", "notify", compaction.DIR, hosts.DIR)
RUNTIME_AREAS = ("proxy", "verify", "archive", "notify")  # checked for form only (`check_runtime`)
_TOP = {META, *LAYOUT, "tmux.conf", "tmux.sock", summary_file.INDEX_DIR, *OPTIONAL_AREAS}
_TOP.add(sandboxes.RECORD)  # where the sandbox directory is (ADR 0026)
_TOP.add(repository.RECORD)  # the repository the state root serves (ADR 0032)
TMUX_SOCKET = "tmux.sock"


@dataclass(frozen=True, slots=True)
class Finding:
    """One line of the report: `path` is relative to the state root (`.` is the root itself)."""

    path: str
    problem: str
    severity: str = "error"  # "error" fails verification; "note" is informational

    def to_json(self) -> dict[str, str]:
        """Machine form."""
        return {"path": self.path, "problem": self.problem, "severity": self.severity}


@dataclass(slots=True)
class Report:
    """Everything verify found, plus counts of what it checked."""

    root: str
    findings: list[Finding] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when no finding is an error."""
        return not any(f.severity == "error" for f in self.findings)

    def error(self, path: str, problem: str) -> None:
        """Record a problem."""
        self.findings.append(Finding(path, problem))

    def note(self, path: str, problem: str) -> None:
        """Record an informational finding."""
        self.findings.append(Finding(path, problem, "note"))

    def count(self, what: str, n: int = 1) -> None:
        """Count a checked object."""
        self.counts[what] = self.counts.get(what, 0) + n


def _guard(report: Report, path: str, fn: Callable[..., object], *args: object) -> None:
    """Run one check; an `OmsError` becomes a finding for `path` instead of stopping the walk."""
    try:
        fn(*args)
    except OmsError as exc:
        report.error(path, exc.message.removeprefix(f"{shown(path)}: "))


class _Verifier:
    def __init__(self, root: Root, report: Report) -> None:
        self.root = root
        self.report = report
        self.meta: StateMeta | None = None
        self.event_ids: set[str] = set()
        self.contents: set[tuple[str, str]] = (
            set()
        )  # (ticket id, content sha256) some ticket version names
        self.latest: dict[
            str, dict[str, Record]
        ] = {}  # kind -> id -> latest version (whole chains only)
        self.euid = os.geteuid()

    # ---------------------------------------------------------------- generic walk
    def entries(self, rel: str) -> list[tuple[str, int]]:
        """(name, st_mode) of the safe entries of directory `rel`; reports unsafe ones and
        debris."""
        out: list[tuple[str, int]] = []
        for name, st in self.root.scan(rel):
            path = f"{rel}/{name}" if rel else name
            if is_temp_name(name):
                self.temp(path, name)
                continue
            mode = st.st_mode
            if stat.S_ISLNK(mode):
                self.report.error(path, "is a symlink (nothing under the state root may be)")
                continue
            if stat.S_ISSOCK(mode) and self.our_socket(path):
                if st.st_uid != self.euid or stat.S_IMODE(mode) & 0o077:
                    self.report.error(path, "socket is not private to you")
                else:
                    self.report.count("sockets")
                continue
            if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
                self.report.error(path, "is not a regular file or directory")
                continue
            if st.st_uid != self.euid:
                self.report.error(path, f"owned by uid {st.st_uid} (expected {self.euid})")
            if stat.S_IMODE(mode) & 0o077:
                self.report.error(path, f"mode {stat.S_IMODE(mode):04o} is open to others")
            if stat.S_ISREG(mode) and st.st_nlink != 1:
                self.report.error(path, f"has {st.st_nlink} links (expected 1)")
            out.append((name, mode))
        return out

    def our_socket(self, path: str) -> bool:
        """A socket oms makes here: its tmux server's, or a broker's or a proxy door's an older oms
        made in `panes/` or `proxy/doors/`."""
        return path == TMUX_SOCKET or _our_socket(path)

    def temp(self, path: str, name: str) -> None:
        owner = temp_owner(name)
        if owner is not None and procinfo.is_alive(owner):
            self.report.note(path, f"write in progress by live process {owner.pid}")
        else:
            who = f"dead process {owner.pid}" if owner else "an unknown process"
            self.report.error(path, f"temp file left by {who} (run `oms store sweep`)")

    def expect_dir(self, path: str, mode: int) -> bool:
        if not stat.S_ISDIR(mode):
            self.report.error(path, "expected a directory")
            return False
        return True

    def expect_file(self, path: str, mode: int) -> bool:
        if not stat.S_ISREG(mode):
            self.report.error(path, "expected a regular file")
            return False
        return True

    # ---------------------------------------------------------------- areas
    def run(self) -> None:
        top = dict(self.entries(""))
        for name in sorted(top):
            if name not in _TOP:
                self.report.error(name, "unexpected entry in the state root")
        for name in LAYOUT:
            if name not in top:
                self.report.error(name, "missing directory")
        if META not in top:
            self.report.error(META, "missing: the state root is not initialised")
        else:
            _guard(self.report, META, self.check_meta)
        if "keys" in top and self.expect_dir("keys", top["keys"]):
            self.check_keys()
        for area, fn in (
            ("records", self.check_records),
            (summary_file.INDEX_DIR, self.check_index),
            (EVENTS_DIR, self.check_events),
            (OUTBOX_DIR, self.check_outbox),
            (EVIDENCE_DIR, self.check_evidence),
            (JOURNALS_DIR, self.check_journals),
            (TICKETS_DIR, self.check_ticket_content),
            (WORKTREES_DIR, self.check_worktree_records),
            (panefiles.PANES_DIR, self.check_panes),
            (compaction.DIR, self.check_compacted),
            (hosts.DIR, self.check_hosts),
        ):
            if area in top and self.expect_dir(area, top[area]):
                fn()
        for area in RUNTIME_AREAS:
            if area in top and self.expect_dir(area, top[area]):
                _guard(self.report, area, self.check_runtime, area, LIMITS.verify_runtime_depth)
        if "ledger" in top and self.expect_dir("ledger", top["ledger"]):
            _guard(self.report, "ledger", self.check_ledger_area)
        if "tmp" in top and self.expect_dir("tmp", top["tmp"]):
            _guard(self.report, "tmp", self.check_tmp)
        if "tmux.conf" in top and self.expect_file("tmux.conf", top["tmux.conf"]):
            _guard(self.report, "tmux.conf", self.check_tmux_conf)
        if sandboxes.RECORD in top and self.expect_file(sandboxes.RECORD, top[sandboxes.RECORD]):
            _guard(self.report, sandboxes.RECORD, self.check_sandboxes)
        if repository.RECORD in top and self.expect_file(repository.RECORD, top[repository.RECORD]):
            _guard(self.report, repository.RECORD, repository.recorded, self.root)

    def check_sandboxes(self) -> None:
        """The sandbox directory (ADR 0026): where the record says, this state root's, private, its
        path not the state root's; in it only what oms makes (findings named `sandboxes.json:<path
        in it>`)."""
        if self.meta is None:
            return  # the state root's metadata is unreadable: that is reported already
        sub = Report(sandboxes.RECORD)
        with sandboxes.open_existing(self.root, self.meta.key_id) as sbx:
            _SandboxVerifier(sbx, sub).run()
        for found in sub.findings:
            where = f"{sandboxes.RECORD}:{found.path}"
            self.report.findings.append(Finding(where, found.problem, found.severity))
        for what, n in sub.counts.items():
            self.report.count(what, n)

    def check_runtime(self, rel: str, depth: int) -> None:
        """A runtime area (the proxy's files, verification outputs, discard bundles): what oms
        changes as it runs, checked for form only — ours, private, regular, one link, no link
        anywhere."""
        for name, mode in self.entries(rel):
            path = f"{rel}/{name}"
            if stat.S_ISDIR(mode):
                if depth > 0:
                    self.check_runtime(path, depth - 1)
                else:
                    self.report.error(path, "deeper than oms writes")
            else:
                self.report.count("runtime files")

    def check_ledger_area(self) -> None:
        """`ledger/`: the log and the signed checkpoints and kept rollback anchors, nothing else
        (their bytes and signatures are `oms audit verify`'s)."""
        for name, mode in self.entries("ledger"):
            path = f"ledger/{name}"
            if name == "log":
                self.expect_file(path, mode)
            elif name in ("checkpoints", "rollbacks") and self.expect_dir(path, mode):
                for entry, emode in self.entries(path):
                    if VERSION_NAME.fullmatch(entry) is None:
                        self.report.error(f"{path}/{entry}", f"unexpected entry in {path}/")
                    elif self.expect_file(f"{path}/{entry}", emode):
                        self.report.count(name)
            elif name not in ("checkpoints", "rollbacks"):
                self.report.error(path, "unexpected entry in ledger/")

    def check_meta(self) -> None:
        data = self.root.read_bytes(META, LIMITS.state_meta_bytes)
        self.meta = parse_meta(parse_document(data, "state-meta", META))

    def check_keys(self) -> None:
        for name, mode in self.entries("keys"):
            path = f"keys/{name}"
            if path != KEY:
                self.report.error(path, "unexpected entry in keys/")
            elif self.expect_file(path, mode):
                _guard(self.report, path, self.check_key)
        if not self.root.exists(KEY):
            self.report.error(KEY, "missing: the state signing key")

    def check_key(self) -> None:
        seed = self.root.read_secret(KEY, keys.SEED_BYTES)
        if self.meta is not None and not equal(
            keys.key_id(keys.SigningKey(seed).public_raw()), self.meta.key_id
        ):
            self.report.error(KEY, f"does not match the public key in {META}")

    def check_records(self) -> None:
        for kind, mode in self.entries("records"):
            path = f"records/{kind}"
            if kind not in RECORD_KINDS:
                self.report.error(path, "unknown record kind")
                continue
            if not self.expect_dir(path, mode):
                continue
            for rid, rmode in self.entries(path):
                rpath = f"{path}/{rid}"
                if OPAQUE_ID.fullmatch(rid) is None:
                    self.report.error(rpath, "directory name is not a valid record id")
                elif self.expect_dir(rpath, rmode):
                    self.check_record(kind, rid, rpath)

    def check_record(self, kind: str, rid: str, rpath: str) -> None:
        versions: dict[int, bytes] = {}
        ops_mode: int | None = None
        for name, mode in self.entries(rpath):
            path = f"{rpath}/{name}"
            match = VERSION_NAME.fullmatch(name)
            if name == OPS_DIR:
                ops_mode = mode
            elif match is None:
                self.report.error(path, "unexpected entry in a record directory")
            elif self.expect_file(path, mode):
                try:
                    versions[int(match.group(1))] = self.root.read_bytes(path, LIMITS.record_bytes)
                except OmsError as exc:
                    self.report.error(path, exc.message)
        if not versions:
            self.report.note(rpath, "empty record directory (an interrupted create; harmless)")
            return
        self.report.count("records")
        chain: list[Record] = []
        for v in range(max(versions) + 1):
            path = f"{rpath}/{v}.json"
            if v not in versions:
                self.report.error(path, "missing: version chain has a gap")
                chain = []
                continue
            try:
                rec = parse_record(versions[v], kind, rid, v, path)
            except OmsError as exc:
                self.report.error(path, exc.message.removeprefix(f"{path}: "))
                chain = []
                continue
            self.report.count("versions")
            if chain:
                prev = chain[-1]
                if prev.version == v - 1 and rec.previous_sha256 != prev.sha256:
                    self.report.error(path, "previous_sha256 does not match version before it")
                if rec.observed_at <= prev.observed_at:
                    self.report.error(
                        path, f"observed_at {rec.observed_at} is not after {prev.observed_at}"
                    )
            chain.append(rec)
            if kind == "ticket" and isinstance(rec.payload.get("content_sha256"), str):
                self.contents.add((rid, str(rec.payload["content_sha256"])))
        if chain and chain[-1].version == max(versions):
            self.latest.setdefault(kind, {})[rid] = chain[-1]
        seen: dict[str, int] = {}
        for rec in chain:
            if rec.operation_id in seen:
                self.report.error(
                    f"{rpath}/{rec.version}.json",
                    f"operation id {rec.operation_id} already produced "
                    f"version {seen[rec.operation_id]}",
                )
            seen[rec.operation_id] = rec.version
        self.check_ops(rpath, ops_mode, chain, max(versions))

    def check_ops(self, rpath: str, ops_mode: int | None, chain: list[Record], latest: int) -> None:
        indexed: dict[str, int] = {}
        ops = f"{rpath}/{OPS_DIR}"
        if ops_mode is not None and self.expect_dir(ops, ops_mode):
            for name, mode in self.entries(ops):
                path = f"{ops}/{name}"
                if not name.endswith(".json") or OPAQUE_ID.fullmatch(name[:-5]) is None:
                    self.report.error(path, "unexpected entry in an op index")
                    continue
                if not self.expect_file(path, mode):
                    continue
                try:
                    doc = parse_document(
                        self.root.read_bytes(path, LIMITS.record_bytes), "op-index", path
                    )
                except OmsError as exc:
                    self.report.error(path, exc.message.removeprefix(f"{path}: "))
                    continue
                if doc["operation_id"] != name[:-5]:
                    self.report.error(path, "names another operation id")
                indexed[name[:-5]] = access.integer(doc, "version")
        by_version = {rec.version: rec for rec in chain}
        for op, version in indexed.items():
            rec = by_version.get(version)
            if rec is not None and rec.operation_id != op:
                self.report.error(
                    f"{ops}/{op}.json",
                    f"points at version {version}, which carries another operation",
                )
            elif version > latest:
                self.report.error(
                    f"{ops}/{op}.json", f"points at version {version}, which does not exist"
                )
        for rec in chain:
            if rec.version < latest and indexed.get(rec.operation_id) != rec.version:
                self.report.error(
                    f"{ops}/{rec.operation_id}.json",
                    f"missing: index entry for version {rec.version}",
                )

    def check_index(self) -> None:
        """The record summaries (`store/summary_file.py`): the newest of each kind, the one oms
        reads, agrees with the records; nothing else is there."""
        for kind, mode in self.entries(summary_file.INDEX_DIR):
            path = f"{summary_file.INDEX_DIR}/{kind}"
            if f"{summary_file.INDEX_DIR}/{kind}" == live.TOP and stat.S_ISDIR(mode):
                self.check_live()
                continue
            if path == compaction.LOOKED.rsplit("/", 1)[0] and stat.S_ISDIR(mode):
                for name, fmode in self.entries(path):
                    if f"{path}/{name}" != compaction.LOOKED or not stat.S_ISREG(fmode):
                        self.report.error(f"{path}/{name}", "unexpected entry in index/")
                continue
            etcd = kind.startswith("etcd.") and kind[len("etcd.") :] in RECORD_KINDS
            if (kind not in RECORD_KINDS and not etcd) or not stat.S_ISDIR(mode):
                self.report.error(path, "unexpected entry in index/")
                continue
            generations = []
            for name, fmode in self.entries(path):
                generation = summary_file.generation_of(name)
                if generation is None or not stat.S_ISREG(fmode):
                    self.report.error(f"{path}/{name}", "unexpected entry in a summary directory")
                else:
                    generations.append(generation)
            generations.sort()
            for older in generations[:-1]:
                self.report.note(
                    summary_file.summary_path(kind, older),
                    "an older summary (oms reads the newest)",
                )
            if generations and etcd:  # a cache of an etcd store's records (adapters/etcd/summary)
                self.report.note(
                    summary_file.summary_path(kind, generations[-1]),
                    "a summary of the etcd store's records (a cache: its keys are what counts)",
                )
            elif generations:
                rel = summary_file.summary_path(kind, generations[-1])
                _guard(self.report, rel, self.check_summary, kind, rel)

    def check_live(self) -> None:
        """The live index (`store/live.py`): only markers and its `complete` file; once complete,
        every record whose latest version is live has the marker of that version (a missing one
        would hide it from the conductor's expire and fill phases)."""
        for kind, mode in self.entries(live.TOP):
            path = f"{live.TOP}/{kind}"
            if kind not in live.LIVE or not stat.S_ISDIR(mode):
                self.report.error(path, "unexpected entry in the live index")
                continue
            names = set()
            for name, fmode in self.entries(path):
                if (name != live.COMPLETE and live.parse_marker(name) is None) or not stat.S_ISREG(
                    fmode
                ):
                    self.report.error(f"{path}/{name}", "unexpected entry in the live index")
                names.add(name)
            if live.COMPLETE not in names:
                continue
            for record_id, record in sorted(self.latest.get(kind, {}).items()):
                marker = live.marker(kind, record_id, record.version)
                if record.state in live.LIVE[kind] and marker.rsplit("/", 1)[-1] not in names:
                    self.report.error(
                        marker,
                        f"missing: {kind} {record_id} is {record.state} and the live index does "
                        "not name it (the conductor would not see it): remove "
                        f"{live.TOP}/{kind}/{live.COMPLETE} and the next tick rebuilds the index",
                    )

    def check_summary(self, kind: str, rel: str) -> None:
        key = summary_file.mac_key(self.root)
        if key is None:
            self.report.error(rel, "the state key cannot be read: the summary cannot be checked")
            return
        data = self.root.read_bytes(rel, LIMITS.summary_bytes)
        top = f"records/{kind}"
        kind_st = self.root.lstat(top) if self.root.exists(top) else None
        mtimes = (
            {rid: st.st_mtime_ns for rid, st in self.root.scan(top)} if kind_st is not None else {}
        )
        kind_mtime = kind_st.st_mtime_ns if kind_st is not None else -1
        found = summary_file.problems(
            data, kind, key, self.latest.get(kind, {}), mtimes, kind_mtime, LIMITS.summary_racy_ns
        )
        for rid, problem in found:
            self.report.error(rel + (f" ({rid})" if rid else ""), problem)
        self.report.count("summaries")

    def check_events(self) -> None:
        for name, mode in self.entries(EVENTS_DIR):
            path = f"{EVENTS_DIR}/{name}"
            eid = name[:-5]
            if not name.endswith(".json") or OPAQUE_ID.fullmatch(eid) is None:
                self.report.error(path, "unexpected entry in events/")
            elif self.expect_file(path, mode):
                _guard(self.report, path, self.check_event, path, eid)

    def check_event(self, path: str, eid: str) -> None:
        parse_event(self.root.read_bytes(path, LIMITS.event_bytes), eid, path)
        self.event_ids.add(eid)
        self.report.count("events")

    def check_outbox(self) -> None:
        for consumer, mode in self.entries(OUTBOX_DIR):
            cpath = f"{OUTBOX_DIR}/{consumer}"
            if OPAQUE_ID.fullmatch(consumer) is None:
                self.report.error(cpath, "directory name is not a valid consumer id")
                continue
            if not self.expect_dir(cpath, mode):
                continue
            for name, fmode in self.entries(cpath):
                path = f"{cpath}/{name}"
                if not self.expect_file(path, fmode):
                    continue
                if name.endswith(RECEIPT_SUFFIX) and OPAQUE_ID.fullmatch(
                    name[: -len(RECEIPT_SUFFIX)]
                ):
                    _guard(
                        self.report,
                        path,
                        self.check_receipt,
                        path,
                        consumer,
                        name[: -len(RECEIPT_SUFFIX)],
                    )
                elif name.endswith(LOCK_SUFFIX) and OPAQUE_ID.fullmatch(name[: -len(LOCK_SUFFIX)]):
                    self.check_lock(path)
                else:
                    self.report.error(path, "unexpected entry in an outbox")

    def check_receipt(self, path: str, consumer: str, eid: str) -> None:
        parse_receipt(self.root.read_bytes(path, LIMITS.receipt_bytes), consumer, eid, path)
        self.report.count("receipts")
        if eid not in self.event_ids:
            self.report.error(path, f"receipt for event {eid}, which does not exist")

    def check_lock(self, path: str) -> None:
        try:
            state = inspect(self.root, path)
        except OmsError as exc:
            self.report.error(path, exc.message)
            return
        if state is None:
            return
        if state.holder is None:
            self.report.error(path, "lock file oms did not write")
        elif state.alive:
            self.report.note(path, f"held by live process {state.holder.pid}")
        else:
            self.report.error(
                path,
                f"stale lock: holder process {state.holder.pid} is gone (run `oms store sweep`)",
            )

    def check_evidence(self) -> None:
        for name, mode in self.entries(EVIDENCE_DIR):
            path = f"{EVIDENCE_DIR}/{name}"
            ref = name[:-5]
            if not name.endswith(".json") or SHA256.fullmatch(ref) is None:
                self.report.error(path, "unexpected entry in evidence/")
            elif self.expect_file(path, mode) and self.meta is not None:
                _guard(self.report, path, self.check_one_evidence, path, ref, self.meta)

    def check_one_evidence(self, path: str, ref: str, meta: StateMeta) -> None:
        open_envelope(
            self.root.read_bytes(path, LIMITS.evidence_bytes),
            ref,
            meta.public_key,
            meta.key_id,
            path,
        )
        self.report.count("evidence")

    def check_ticket_content(self) -> None:
        for ticket_id, mode in self.entries(TICKETS_DIR):
            tpath = f"{TICKETS_DIR}/{ticket_id}"
            if OPAQUE_ID.fullmatch(ticket_id) is None:
                self.report.error(tpath, "directory name is not a valid ticket id")
                continue
            if not self.expect_dir(tpath, mode):
                continue
            for name, fmode in self.entries(tpath):
                path = f"{tpath}/{name}"
                if not name.endswith(".json") or SHA256.fullmatch(name[:-5]) is None:
                    self.report.error(path, "unexpected entry in ticket content")
                elif self.expect_file(path, fmode):
                    _guard(self.report, path, self.check_one_content, path, ticket_id, name[:-5])

    def check_one_content(self, path: str, ticket_id: str, sha: str) -> None:
        parse_content(self.root.read_bytes(path, LIMITS.evidence_bytes), ticket_id, sha, path)
        self.report.count("ticket contents")
        if (ticket_id, sha) not in self.contents:
            self.report.note(
                path,
                "no version of its ticket names this content (an interrupted create or import)",
            )

    def check_worktree_records(self) -> None:
        for name, mode in self.entries(WORKTREES_DIR):
            path = f"{WORKTREES_DIR}/{name}"
            if not name.endswith(".json") or OPAQUE_ID.fullmatch(name[:-5]) is None:
                self.report.error(path, "unexpected entry in worktree-records/")
            elif self.expect_file(path, mode):
                _guard(self.report, path, self.check_one_worktree, path, name[:-5])

    def check_one_worktree(self, path: str, ticket_id: str) -> None:
        parse_worktree(self.root.read_bytes(path, LIMITS.record_bytes), ticket_id, path)
        self.report.count("worktree records")

    def check_tmp(self) -> None:
        """`tmp/`: oms's private homes (and advisor scratch). A home's top entries oms made must be
        what it made; the rest is an agent's (it writes there from inside its sandbox): links,
        FIFOs, sockets, devices and files others may write are reported as notes (never followed,
        never opened)."""
        for name, mode in self.entries("tmp"):
            path = f"tmp/{name}"
            kind, _, rest = name.partition("-")
            if not stat.S_ISDIR(mode) or kind not in TMP_KINDS or not rest:
                self.report.error(
                    path, "unexpected entry in tmp/ (oms makes only private home directories)"
                )
                continue
            self.report.count("agent homes" if kind != "advisor" else "advisor scratch dirs")
            self.check_home(path)

    def check_home(self, home: str) -> None:
        budget = LIMITS.verify_tmp_entries
        stack = [home]
        while stack:
            rel = stack.pop()
            try:
                listed = list(self.root.scan(rel))
            except OmsError as exc:
                self.report.note(rel, f"not verified: {exc.message}")
                continue
            for name, st in listed:
                budget -= 1
                if budget < 0:
                    self.report.note(
                        home,
                        f"more than {LIMITS.verify_tmp_entries} entries: the rest not verified",
                    )
                    return
                path = f"{rel}/{name}"
                mode = st.st_mode
                if st.st_uid != self.euid:
                    self.report.error(path, f"owned by uid {st.st_uid} (expected {self.euid})")
                elif stat.S_ISLNK(mode):
                    self.report.note(path, "a symlink the agent made (oms never follows it)")
                elif stat.S_ISDIR(mode):
                    stack.append(path)
                elif not stat.S_ISREG(mode):
                    self.report.note(
                        path, "a FIFO, socket or device the agent made (oms never opens it)"
                    )
                elif stat.S_IMODE(mode) & 0o022:
                    self.report.note(path, f"mode {stat.S_IMODE(mode):04o}: others may write it")
                if (
                    rel == home
                    and name in HOME_FILES
                    and not (stat.S_ISREG(mode) and not stat.S_IMODE(mode) & 0o077)
                ):
                    self.report.error(path, "a file oms writes is not a private regular file")

    def check_tmux_conf(self) -> None:
        if self.root.read_bytes("tmux.conf", 4096) != TMUX_CONF.encode():
            self.report.error(
                "tmux.conf", "differs from the options oms writes (a tmux config can run commands)"
            )

    def check_panes(self) -> None:
        for name, mode in self.entries(panefiles.PANES_DIR):
            path = f"{panefiles.PANES_DIR}/{name}"
            if panefiles.is_broker_log(name):
                if self.expect_file(path, mode):
                    self.report.count("broker logs")
                continue
            schema = panefiles.schema_of(name)
            if schema is None:
                self.report.error(path, "unexpected entry in panes/")
                continue
            if self.expect_file(path, mode):
                _guard(self.report, path, self.check_one_pane, path, schema)

    def check_one_pane(self, path: str, schema: str) -> None:
        parse_document(self.root.read_bytes(path, LIMITS.record_bytes), schema, path)
        names = {
            "pane-registry": "pane registrations",
            "kill-marker": "kill markers",
            "pane-exit": "exits",
            "launch-spec": "launch specs",
            "launch-begun": "launches begun",
            "sandbox-init": "sandbox inits",
        }
        self.report.count(names[schema])

    def check_compacted(self) -> None:
        """`compacted/`: archives of ended tickets (`store/compaction.py`; the ledger vouches for
        their bytes, `oms audit verify`), the compaction lock, and what a killed compaction left
        aside."""
        for name, mode in self.entries(compaction.DIR):
            path = f"{compaction.DIR}/{name}"
            if name == "compact.lock" and self.expect_file(path, mode):
                self.check_lock(path)
            elif name == "retired" and self.expect_dir(path, mode):
                for left, lmode in self.entries(path):
                    if stat.S_ISDIR(lmode):
                        self.report.note(
                            f"{path}/{left}",
                            "left by a compaction that was stopped (the next one removes it)",
                        )
                    else:
                        self.report.error(
                            f"{path}/{left}",
                            "not something compaction leaves (it removes it as a name)",
                        )
            elif compaction.ticket_of(name) is None:
                self.report.error(path, "unexpected entry in compacted/")
            elif self.expect_file(path, mode):
                _guard(self.report, path, self.check_archive, path)

    def check_hosts(self) -> None:
        """`hosts/`: hosts' heartbeats (`store/hosts.py`), each a `host-beat` naming the host its
        name says."""
        for name, mode in self.entries(hosts.DIR):
            path, parsed = f"{hosts.DIR}/{name}", hosts.parse_name(name)
            if parsed is None:
                self.report.error(path, "unexpected entry in hosts/")
            elif self.expect_file(path, mode):
                _guard(self.report, path, self.check_beat, path, parsed[0])

    def check_beat(self, path: str, host: str) -> None:
        doc = parse_document(self.root.read_bytes(path, LIMITS.host_beat_bytes), hosts.SCHEMA, path)
        if doc["host"] != host:
            self.report.error(path, f"names host {doc['host']}, not {host}")
        self.report.count("heartbeats")

    def check_archive(self, path: str) -> None:
        compaction.decode(self.root.read_bytes(path, LIMITS.archive_bytes), path)
        self.report.count("archives")

    def check_journals(self) -> None:
        for name, mode in self.entries(JOURNALS_DIR):
            jpath = f"{JOURNALS_DIR}/{name}"
            if name not in JOURNAL_NAMES:
                self.report.error(jpath, "unknown journal")
                continue
            if not self.expect_dir(jpath, mode):
                continue
            seqs: dict[int, str] = {}
            for entry, emode in self.entries(jpath):
                path = f"{jpath}/{entry}"
                match = SEQ_NAME.fullmatch(entry)
                if match is None:
                    self.report.error(path, "unexpected entry in a journal")
                elif self.expect_file(path, emode):
                    seqs[int(match.group(1))] = path
            previous: str | None = None
            for seq in range(max(seqs) + 1 if seqs else 0):
                path = seqs.get(seq, f"{jpath}/{seq}.json")
                if seq not in seqs:
                    self.report.error(path, "missing: journal has a gap")
                    previous = None
                    continue
                try:
                    data = self.root.read_bytes(path, LIMITS.journal_entry_bytes)
                    doc = parse_document(data, "journal-entry", path)
                except OmsError as exc:
                    self.report.error(path, exc.message.removeprefix(f"{path}: "))
                    previous = None
                    continue
                if doc["seq"] != seq or doc["journal"] != name:
                    self.report.error(path, "entry names another journal or sequence number")
                if seq > 0 and previous is not None and doc["previous_sha256"] != previous:
                    self.report.error(path, "previous_sha256 does not match the entry before it")
                previous = entry_digest(data)
                self.report.count("journal entries")


def _our_socket(path: str) -> bool:
    """A socket oms makes under the state root: a worker broker's, or a proxy door's."""
    if panefiles.is_broker_socket(path):
        return True
    parts = path.split("/")
    return len(parts) == 4 and parts[:2] == ["proxy", "doors"] and parts[3] == "model.sock"


class _SandboxVerifier(_Verifier):
    """The sandbox directory: its marker, agent homes (`homes/`, checked as the state root's `tmp/`
    homes are), brokers' sockets (`brokers/<dispatch>.sock`) and the proxy's doors
    (`doors/<dispatch>/model.sock`)."""

    def our_socket(self, path: str) -> bool:
        head, _, name = path.partition("/")
        if head == sandboxes.BROKERS:
            named = name.removesuffix(".sock")
            return name.endswith(".sock") and OPAQUE_ID.fullmatch(named) is not None
        door, _, leaf = name.partition("/")
        known = OPAQUE_ID.fullmatch(door) is not None
        return head == sandboxes.DOORS and leaf == "model.sock" and known

    def run(self) -> None:
        for name, mode in self.entries(""):
            if name == sandboxes.MARKER:
                self.expect_file(name, mode)
            elif name == sandboxes.HOMES and self.expect_dir(name, mode):
                for home, hmode in self.entries(name):
                    kind, _, rest = home.partition("-")
                    if not stat.S_ISDIR(hmode) or kind not in HOME_KINDS or not rest:
                        self.report.error(f"{name}/{home}", "unexpected entry in homes/")
                        continue
                    self.report.count("agent homes")
                    self.check_home(f"{name}/{home}")
            elif name == sandboxes.BROKERS and self.expect_dir(name, mode):
                for left, _lmode in self.entries(name):  # a socket is counted by `entries`
                    why = "unexpected entry in brokers/ (only brokers' sockets)"
                    self.report.error(f"{name}/{left}", why)
            elif name == sandboxes.DOORS and self.expect_dir(name, mode):
                for door, dmode in self.entries(name):
                    known = OPAQUE_ID.fullmatch(door) is not None
                    if not known or not self.expect_dir(f"{name}/{door}", dmode):
                        self.report.error(f"{name}/{door}", "unexpected entry in doors/")
                        continue
                    for left, _lmode in self.entries(f"{name}/{door}"):
                        why = "unexpected entry in a door (only model.sock)"
                        self.report.error(f"{name}/{door}/{left}", why)
            else:
                self.report.error(name, "unexpected entry in the sandbox directory")


HOME_KINDS = NAMES  # a worker's private home is named for its provider
TMP_KINDS = (*HOME_KINDS, "advisor")
HOME_FILES = (
    "hooks.json",
    "config.toml",
    "settings.json",
    "mcp.json",
)  # what oms writes, read-only inside


def verify(path: str, *, options: FsioOptions | None = None) -> Report:
    """Verify the state root at `path`; never raises for problems it can describe."""
    report = Report(os.path.abspath(path))
    try:
        root = Root.open(path, private=True, options=options)
    except OmsError as exc:
        report.error(".", exc.message.removeprefix(f"{shown(report.root)}: "))
        return report
    with root:
        report.root = root.path
        try:
            _Verifier(root, report).run()
        except OmsError as exc:
            report.error(".", exc.message.removeprefix(f"{shown(root.path)}: "))
    return report


def sweep(path: str, *, options: FsioOptions | None = None) -> list[str]:
    """Remove temp files and locks whose owner is provably gone; returns what was removed."""
    removed: list[str] = []
    with Root.open(path, private=True, options=options) as root:
        stack = [""]
        while stack:
            rel = stack.pop()
            for name, st in root.scan(rel):
                child = f"{rel}/{name}" if rel else name
                if is_temp_name(name) and stat.S_ISREG(st.st_mode):
                    owner = temp_owner(name)
                    if owner is not None and not procinfo.is_alive(owner) and root.unlink(child):
                        removed.append(child)
                elif stat.S_ISDIR(st.st_mode) and child != "tmp":
                    stack.append(child)
                elif (
                    rel.startswith(f"{OUTBOX_DIR}/")
                    and name.endswith(LOCK_SUFFIX)
                    and stat.S_ISREG(st.st_mode)
                ):
                    state = inspect(root, child)
                    if (
                        state is not None
                        and state.holder is not None
                        and not state.alive
                        and break_stale(root, child, state.holder)
                    ):
                        removed.append(child)
        settled = ledger.settle(root)  # a writer that died inside its unit: as the next writer does
        if settled is not None:
            removed.append(f"{ledger.LOG}: {settled}")
    return sorted(removed)
