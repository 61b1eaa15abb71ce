"""`oms result verify DSP` (issue 14, ADR 0021): the repository's checks, run against the exact tree
a merge of the result would make, in a fresh checkout, inside a sandbox without network or
credentials; the outcome is signed verification evidence.

What runs is the committed config's `[verify] commands` (read from the config root's HEAD: an agent
cannot change them). What it runs against: the result commit merged into the target branch's head as
it is now (`merge-tree`: no checkout of the user's tree), or, in `fast-forward` mode, the result
commit itself (which must then descend from that head). The tree is written into a new directory
outside the repository and the state root (no `.git` in it: the checks see files, never the
repository's config or hooks). Each command runs in `adapters/check_sandbox.py`'s sandbox with its
time and output bounds, in a cgroup of its own with the `[limits]` of the committed config (pids,
memory, CPU weight), its largest file bounded and the checkout measured against the disk bound (ADR
0025): a check that reaches one is ended and fails, naming it. Its output is kept, bounded, under
`verify/<dispatch>/` and named in the evidence by its digest. One verify of a dispatch runs at a
time (`verify_lock`: a second, from the command or `oms web`, is refused in one line).

Which verification is a dispatch's latest: on files, the state root's `verify/<dispatch>/latest`;
on an etcd store (ADR 0043, amendment `results`), the `verification-recorded` events of the
dispatch, the n-th its n-th verify, each created once under the verify lock's fence, so every
host reads the same one. The check output stays the verifying host's file, named in the event.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from dataclasses import dataclass

from oms.adapters import bwrap, cgroups, git, git_finish, seccomp
from oms.adapters.check_sandbox import check_argv
from oms.canonical import JsonObject, access, stable_id
from oms.domain import finishing, hosts
from oms.domain.cgroups import identity
from oms.domain.finishing import Finishing, Ran
from oms.domain.sandbox_limits import SandboxLimits
from oms.errors import (
    ConfigError,
    ConflictError,
    InvalidInputError,
    LockHeldError,
    OtherHostError,
    RecordNotFoundError,
)
from oms.fsio.outside import scratch_directory
from oms.fsio.trees import remove_tree
from oms.limits import LIMITS
from oms.process import child_env, data_fd, run_bounded
from oms.services.containment.bounds import Guard
from oms.services.workspace import Workspace
from oms.store import Record, ledger
from oms.store.outbox import ProcessingLock
from oms.store.payloads import dispatch_payload, verification_recorded, worker_payload

VERIFY_DIR = "verify"
VERIFYING = "verifying"  # the outbox consumer of the per-dispatch locks `verify_lock` takes
VERIFIED = "verification-recorded"  # on an etcd store: the event naming a verify's evidence


def verify_lock(ws: Workspace, dispatch_id: str) -> ProcessingLock:
    """The dispatch's verify lock: one verify of a result at a time (two would write the same
    logs, and the second answers nothing the first will not). Held: refused at once, in one
    line."""
    try:
        return ws.store.outbox(VERIFYING).lock(dispatch_id)
    except LockHeldError as exc:
        raise ConflictError(
            f"{dispatch_id} is being verified already (by `oms result verify` or `oms web`); "
            "nothing started",
            hint=f"wait for it to end: `oms result show {dispatch_id}` then has its evidence",
        ) from exc


@dataclass(frozen=True, slots=True)
class Target:
    """What a result is verified and merged against."""

    branch: str
    head: str
    mode: str


@dataclass(frozen=True, slots=True)
class Verified:
    """A verification: its evidence, and each check as it ran."""

    ref: str
    passed: bool
    commit: str
    target: Target
    tree: str
    ran: tuple[Ran, ...]


def completed_result(ws: Workspace, dispatch_id: str) -> tuple[Record, JsonObject]:
    """The dispatch and its completed result (with its commit), or why there is none."""
    dispatch = ws.store.records("dispatch").read_if_exists(dispatch_id)
    if dispatch is None:
        raise RecordNotFoundError(
            f"no dispatch {dispatch_id}",
            hint="`oms status` lists them; if its ticket ended long ago it may be compacted: "
            f"`oms audit log --dispatch {dispatch_id}` shows its history",
        )
    ref = dispatch_payload(dispatch)["result_evidence"]
    if ref is None:
        raise InvalidInputError(f"dispatch {dispatch_id} has no recorded result ({dispatch.state})")
    result = access.obj(ws.store.evidence.get(ref).body, "payload")
    if result.get("status") != "completed" or not isinstance(result.get("result_commit"), str):
        raise InvalidInputError(
            f"dispatch {dispatch_id}'s result is {result.get('status')}, not a completed commit"
        )
    return dispatch, result


def refuse_another_hosts(ws: Workspace, dispatch_id: str) -> None:
    """On a cluster (ADR 0043, amendments `cmds3`, `results`): refuse, in one line naming the
    host, a result another host's worker made. Its branch is in that host's clone, which this
    host's git cannot judge (merged? still at the result?) nor verify or merge; nothing is
    written. On files every host's clone is this repository."""
    if ws.store.backend is None:
        return
    worker = ws.store.records("worker").read_if_exists(dispatch_id)
    if worker is None:
        return
    host = hosts.host_of(worker_payload(worker), ws.host())
    if host != ws.host():
        raise OtherHostError(
            f"the result of {dispatch_id} is on host {host}, in its clone; run this there",
            hint=f"run it on host {host} (OMS_HOST={host})",
        )


def target_of(ws: Workspace, fin: Finishing) -> Target:
    """The branch results merge into, its head now, and the merge mode."""
    repo = ws.config_root
    branch = fin.merge_into or git_finish.checked_out_branch(repo)
    if branch is None:
        raise ConfigError(f"{repo} has no branch checked out; name one in [merge] into")
    if not git_finish.valid_branch(repo, branch):
        raise ConfigError(f"[merge] into {branch!r} is not a valid branch name")
    head = git_finish.head_of(repo, branch)
    if head is None:
        raise ConfigError(f"branch {branch} does not exist in {repo}")
    return Target(branch, head, fin.merge_mode)


def tree_to_check(repo: str, target: Target, commit: str) -> str:
    """The tree the merge would make: the result merged into the target's head, or (fast-forward)
    the result itself, which must descend from that head."""
    if target.mode == finishing.FAST_FORWARD:
        if not git.is_ancestor(repo, target.head, commit):
            raise ConflictError(
                f"{commit[:12]} does not descend from {target.branch} "
                f"({target.head[:12]}): it cannot be "
                "fast-forwarded",
                hint='set [merge] mode = "merge-commit", or have the work redone on the new base',
            )
        return git_finish.tree_of(repo, commit)
    tree = git_finish.merged_tree(repo, target.head, commit)
    if tree is None:
        raise ConflictError(
            f"{commit[:12]} conflicts with {target.branch} ({target.head[:12]}); nothing verified"
        )
    return tree


def verify(
    ws: Workspace,
    dispatch_id: str,
    progress: Callable[[str], None] = lambda _line: None,
    started: Callable[[], None] = lambda: None,
) -> Verified:
    """Run the checks against the result of `dispatch_id` and sign what happened, holding its
    `verify_lock`; `started` is called once what is checked is decided, before the checks run
    (what refuses a verify has refused it by then)."""
    completed_result(ws, dispatch_id)  # no such result: said before any lock is taken
    refuse_another_hosts(ws, dispatch_id)  # (a cluster: its branch is that host's)
    with verify_lock(ws, dispatch_id):
        return _verify(ws, dispatch_id, progress, started)


def _verify(
    ws: Workspace,
    dispatch_id: str,
    progress: Callable[[str], None],
    started: Callable[[], None],
) -> Verified:
    dispatch, result = completed_result(ws, dispatch_id)
    fin = finishing.parse(ws.config().raw)
    if not fin.commands:
        raise ConfigError(
            "no checks are configured",
            hint="add [verify] commands to .oms/config.toml and commit it",
        )
    repo = ws.config_root
    private = {
        "the state root": os.path.realpath(ws.store.path),
        "the config root": os.path.realpath(repo),
        "your home": os.path.realpath(os.path.expanduser("~")),
    }
    for path in fin.show:
        real = os.path.realpath(path)
        for what, top in private.items():
            if real == top or real.startswith(top + "/") or top.startswith(real.rstrip("/") + "/"):
                raise ConfigError(f"[verify] show {path} would show {what} to the checks")
    git.refuse_unsafe_config(repo)
    commit = access.text(result, "result_commit")
    if git.resolve_commit(repo, commit) != commit:
        raise InvalidInputError(f"result commit {commit[:12]} is not in {repo}")
    target = target_of(ws, fin)
    tree = tree_to_check(repo, target, commit)
    recorded = _recorded(ws, dispatch_id)  # on a cluster: the next pointer's number, or None
    started()
    checkout = scratch_directory("oms-verify-")
    try:
        limits = ws.config().limits
        git_finish.checkout_tree(repo, tree, checkout, limits.disk_bytes)
        ran = tuple(_run(argv, fin, checkout, progress, limits) for argv in fin.commands)
    finally:
        remove_tree(checkout)
    passed = finishing.verdict(ran)
    evidence = ws.store.put_evidence(
        {
            "format": "oms-evidence-v1",
            "evidence_kind": "verification",
            "ticket_id": dispatch_payload(dispatch)["ticket_id"],
            "producer": "oms",
            "producer_role": None,
            "created_at": ws.now(),
            "payload": {
                "dispatch_id": dispatch_id,
                "commit": commit,
                "base": target.head,
                "target": target.branch,
                "mode": target.mode,
                "tree": tree,
                "checks": [r.evidence() for r in ran],
                "passed": passed,
                "duration_ms": sum(r.duration_ms for r in ran),
            },
        }
    )
    _keep(ws, dispatch_id, evidence.ref, ran, recorded)
    return Verified(evidence.ref, passed, commit, target, tree, ran)


_CHECKS = itertools.count(1)  # each check's cgroup: its own name, also when `oms web` runs two


def _run(
    argv: tuple[str, ...],
    fin: Finishing,
    checkout: str,
    progress: Callable[[str], None],
    limits: SandboxLimits,
) -> Ran:
    progress(f"check: {' '.join(argv)[:200]}")
    group = cgroups.make(
        identity("check", f"{os.getpid()}-{next(_CHECKS)}"), limits
    )  # none: no check
    guard = Guard(group, (checkout,), limits, every_s=LIMITS.check_disk_every_s)
    filter_fd = data_fd(seccomp.encode(seccomp.program(os.uname().machine)), "oms-seccomp")
    try:
        sandboxed = check_argv(bwrap.locate(), bwrap.host(), checkout, fin.show, argv, filter_fd)
        done = run_bounded(
            sandboxed,
            env=child_env(),
            timeout=fin.timeout_s,
            max_output=fin.max_output,
            pass_fds=(filter_fd,),
            confine=group.confinement(limits.file_bytes),
            watch=guard.poll,
            watch_every=LIMITS.cgroup_poll_s,
        )
        reached = done.reached or guard.final()  # what it left counts too
    finally:
        os.close(filter_fd)
        guard.close()
        group.remove()
    ran = Ran(argv, done.returncode, done.duration_ms, done.output, done.truncated, reached)
    outcome = (
        "passed"
        if ran.passed
        else guard.detail(ran.limit)
        if ran.limit is not None
        else ("timed out" if done.returncode is None else f"exit {done.returncode}")
    )
    progress(f"  {outcome} in {done.duration_ms / 1000:.1f}s")
    return ran


def _keep(
    ws: Workspace, dispatch_id: str, ref: str, ran: tuple[Ran, ...], recorded: int | None
) -> None:
    """The outputs (bounded), and the pointer to the latest verification of the dispatch: the
    state root's file, or on a cluster the `recorded`-th pointer event (`_recorded`)."""
    root = ws.store.state.root
    folder = f"{VERIFY_DIR}/{dispatch_id}"
    root.mkdirs(folder)
    for i, r in enumerate(ran, 1):  # kept as they were: noted in the ledger (ADR 0027)
        ledger.publish_noted(root, "output", f"{folder}/{ref}-{i}.log", r.output)
    if recorded is not None:
        _point(ws, dispatch_id, ref, recorded)
        return
    if root.exists(f"{folder}/latest"):
        root.unlink(f"{folder}/latest")
    root.publish(f"{folder}/latest", ref.encode("ascii"))


def _pointer_id(dispatch_id: str, n: int) -> str:
    return stable_id("evt-verified", dispatch_id, n)


def _recorded(ws: Workspace, dispatch_id: str) -> int | None:
    """On a cluster: how many verifications of the dispatch are recorded (the next pointer's
    number), refused at `LIMITS.verify_records_max`; None on files (the pointer is a file)."""
    if ws.store.backend is None:
        return None
    cap = LIMITS.verify_records_max
    count = _count(lambda n: ws.store.events.exists(_pointer_id(dispatch_id, n)), cap)
    if count >= cap:
        raise ConflictError(
            f"{dispatch_id} was verified {cap} times; nothing verified",
            hint="oms audit log shows each verification",
        )
    return count


def _count(exists: Callable[[int], bool], cap: int) -> int:
    """The number of pointers 0, 1, … that exist (they are created in order, none skipped), at
    most `cap`: doubling, then halving, so ~2·log2(count) reads."""
    low, high = 0, 1  # low exist; the count is below `high` once pointer high-1 is missing
    while high <= cap and exists(high - 1):
        low, high = high, high * 2
    top = min(high - 1, cap)  # the count is in [low, top]
    while low < top:
        mid = (low + top + 1) // 2
        if exists(mid - 1):
            low = mid
        else:
            top = mid - 1
    return low


def _point(ws: Workspace, dispatch_id: str, ref: str, n: int) -> None:
    """The n-th pointer event of the dispatch naming `ref`, created once (under the verify lock
    and its fence: one writer; if one landed at n anyway, the next free number)."""
    payload: JsonObject = {"dispatch_id": dispatch_id, "evidence": ref, "host": ws.host()}
    for at in range(n, LIMITS.verify_records_max):
        _, created = ws.store.events.create(
            _pointer_id(dispatch_id, at), VERIFIED, ws.now(), payload
        )
        if created:
            return
    raise ConflictError(f"{dispatch_id} was verified {LIMITS.verify_records_max} times")


def latest(ws: Workspace, dispatch_id: str) -> tuple[str, JsonObject] | None:
    """The latest verification evidence of a dispatch (ref, payload), checked to be of that
    dispatch."""
    ref = _latest_ref(ws, dispatch_id)
    if ref is None:
        return None
    body = ws.store.evidence.get(ref).body  # signed: a pointer can only name genuine evidence
    payload = access.obj(body, "payload")
    if body.get("evidence_kind") != "verification" or payload.get("dispatch_id") != dispatch_id:
        return None
    return ref, payload


def _latest_ref(ws: Workspace, dispatch_id: str) -> str | None:
    """The latest verification's evidence address as the pointer names it: the state root's
    file, or on a cluster the last pointer event of the dispatch."""
    if ws.store.backend is None:
        data = ws.store.state.root.read_optional(f"{VERIFY_DIR}/{dispatch_id}/latest", 64)
        return None if data is None else data.decode("ascii", "replace")
    count = _count(
        lambda n: ws.store.events.exists(_pointer_id(dispatch_id, n)), LIMITS.verify_records_max
    )
    if count == 0:
        return None
    pointer = verification_recorded(ws.store.events.read(_pointer_id(dispatch_id, count - 1)))
    return pointer["evidence"] if pointer["dispatch_id"] == dispatch_id else None
