"""The retry path as a property (issue 24 item 4, ADR 0029): attempt n leaves random work in its
worktree (files written, rewritten, deleted, in new folders, any bytes), its worker's end may or may
not have salvaged it, the attempt lapses, and attempt n + 1's launch makes its checkout ready
(`checkout.ready`, as `launcher.prepare` does). Then: the worktree is clean at the start commit,
and every state an attempt left is held by exactly one salvage ref of the ticket — no two refs
hold the same tree. Real git, real worktrees, real tree jobs; the ticket moves through the real
services."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oms.canonical import access
from oms.services.checkout import planned as checkout
from oms.services.checkout import salvage
from oms.store.payloads import dispatch_payload
from tests.chain import Chain, next_attempt
from tests.helpers import git

PATHS = ("README.md", "new.txt", "dir/a.bin", "dir/sub/b.txt", "with space.txt", "other/c")
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("write"), st.sampled_from(PATHS), st.binary(max_size=48)),
        st.tuples(st.just("delete"), st.sampled_from(PATHS), st.just(b"")),
    ),
    max_size=6,
)
FIXTURE = HealthCheck.function_scoped_fixture  # each example takes a ticket of its own
ROUNDS = st.lists(st.tuples(OPS, st.booleans()), min_size=1, max_size=3)


def _files(top: Path) -> dict[str, bytes]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = [d for d in dirnames if not (dirpath == str(top) and d == ".git")]
        for name in filenames:
            if dirpath == str(top) and name == ".git":
                continue
            path = Path(dirpath, name)
            out[str(path.relative_to(top))] = path.read_bytes()
    return out


def _committed(repo: Path, rev: str) -> dict[str, bytes]:
    names = git("ls-tree", "-r", "-z", "--name-only", rev, cwd=repo).split("\0")
    cat = ("git", "-C", str(repo), "cat-file", "blob")
    out = {}
    for n in filter(None, names):
        out[n] = subprocess.run([*cat, f"{rev}:{n}"], capture_output=True, check=True).stdout
    return out


def _salvages(repo: Path, ticket: str) -> dict[str, str]:
    fmt = "--format=%(refname) %(tree)"
    out = git("for-each-ref", fmt, f"refs/oms/salvage/{ticket}/", cwd=repo)
    return dict(line.split() for line in out.splitlines())


def _work(worktree: Path, ops: list[tuple[str, str, bytes]]) -> None:
    for op, rel, data in ops:
        path = worktree / rel
        if op == "write":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        elif path.exists():
            path.unlink()


@settings(max_examples=8, deadline=None, suppress_health_check=[FIXTURE])
@given(rounds=ROUNDS)
def test_each_lapse_is_salvaged_once_and_the_next_attempt_starts_clean(
    chain: Chain, rounds: list[tuple[list[tuple[str, str, bytes]], bool]]
) -> None:
    ticket, _token, dispatch_id = chain.proposed()
    with chain.workspace() as ws:
        dispatch = ws.store.records("dispatch").read(dispatch_id)
    worktree = Path(access.text(dispatch.payload, "worktree_path"))
    left: list[dict[str, bytes]] = []
    for ops, ended in rounds:
        before = _files(worktree)
        _work(worktree, ops)
        now = _files(worktree)
        if now != before:
            left.append(now)
        if ended:  # its worker's end salvaged it (`oms worker stop`, a deadline, a pane that died)
            with chain.workspace() as ws:
                kept = salvage.keep(ws, dispatch, "ended")
            assert kept is None or kept.error is None, kept
        dispatch = next_attempt(chain, ticket, dispatch)
        payload = dispatch_payload(dispatch)
        checkout.ready(payload, None, str(chain.repo), bound=False)  # what a launch does first
        checkout.verify(payload, str(chain.repo))  # clean, at its start commit
        start = payload["worktree_start_commit"]
        assert _files(worktree) == _committed(chain.repo, start)
        held = _salvages(chain.repo, ticket)
        assert len(set(held.values())) == len(held), held  # no two refs keep the same work
        for state in left:  # every state an attempt left is kept, by exactly one ref
            holders = [ref for ref in held if _committed(chain.repo, ref) == state]
            assert len(holders) == 1, (sorted(state), held)
