"""Attack (ledger, ADR 0027): every kind of file in a state root, tampered with, is named by `oms
audit verify` or `oms store verify`. Before, receipts, worktree records (even one whose
`worktree_root` names another ticket's worktree), `oms-state.json` and a deleted checkpoint were
checked by neither.

The state root is a full run's: `oms demo` (a ticket through advisor, worker and result), then the
result verified and discarded (a check's output and a bundle), a journal entry, and a signed
checkpoint. Every file in it must be of a kind listed below — a new kind fails this test until it is
listed, with what covers it. For each kind the run made, one file of it is edited by one byte,
deleted, and replaced by a link, each in a copy of the state root, and the verifiers must name it
where the kind says they do. Runtime files (changed and removed by oms as it runs) are checked for
form only: a link is named, an edit or a removal is not (SECURITY.md, Known limits)."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from oms.canonical import now
from oms.canonical.strict_json import dumps
from oms.errors import OmsError
from oms.store import Store
from oms.store.verify import verify as store_verify
from tests.chain import Chain
from tests.helpers import contact_entry, git, isolate_home, oms_command

H = r"[0-9a-f]{64}"
ID = r"[a-z0-9][a-z0-9.-]*"
N = r"(?:0|[1-9][0-9]*)"


@dataclass(frozen=True)
class Kind:
    """A kind of file in the state root, what a tamper with it must be named by, and why."""

    name: str
    pattern: str
    edit: bool
    delete: bool
    link: bool
    covered_by: str
    made: bool = True  # does the full run below make one (else: where its tampering is tested)
    also: tuple[str, ...] = ()  # other words a verifier may name it by

    def matches(self, rel: str) -> bool:
        return re.fullmatch(self.pattern, rel) is not None


LEDGER = "oms audit verify: its ledger entry"
RUNTIME = "runtime: oms changes and removes it as it runs; store verify checks its form"
KINDS = (
    Kind("state metadata", r"oms-state\.json", True, True, True, LEDGER),
    Kind("sandbox directory record", r"sandboxes\.json", True, True, True, LEDGER),
    Kind("repository record", r"repository\.json", True, True, True, LEDGER),
    Kind("state key", r"keys/state\.ed25519", True, True, True, "store verify: its public half"),
    Kind("record version", rf"records/[a-z]+/{ID}/{N}\.json", True, True, True, LEDGER),
    Kind(
        "op index entry",
        rf"records/[a-z]+/{ID}/ops/{ID}\.json",
        True,
        True,  # (an earlier version's: the latest's is written again before the next version)
        True,
        "store verify: the version it names",
    ),
    Kind("event", rf"events/{ID}\.json", True, True, True, LEDGER),
    Kind("evidence", rf"evidence/{H}\.json", True, True, True, LEDGER),
    Kind("receipt", rf"outbox/{ID}/{ID}\.receipt\.json", True, True, True, LEDGER),
    Kind("outbox lock", rf"outbox/{ID}/{ID}\.lock", False, False, True, RUNTIME, made=False),
    Kind("journal entry", rf"journals/[a-z-]+/{N}\.json", True, True, True, LEDGER),
    Kind("ticket content", rf"tickets/{ID}/{H}\.json", True, True, True, LEDGER),
    Kind("worktree record", rf"worktree-records/{ID}\.json", True, True, True, LEDGER),
    Kind(
        "ledger log",
        r"ledger/log",
        True,
        True,
        True,
        "oms audit verify: each line's MAC; the anchor",
        also=("rolled back", "no ledger"),
    ),
    Kind("checkpoint", rf"ledger/checkpoints/{N}\.json", True, True, True, LEDGER),
    Kind(
        "accepted rollback",
        rf"ledger/rollbacks/{N}\.json",
        True,
        True,
        True,
        LEDGER + " (tests/security/ledger/test_rollback.py)",
        made=False,
    ),
    Kind(
        "compaction archive",
        rf"compacted/{ID}\.json\.z",
        True,
        True,
        True,
        LEDGER + " (tests/security/compaction/)",
        made=False,
    ),
    Kind("compaction lock", r"compacted/compact\.lock", False, False, True, RUNTIME, made=False),
    Kind("compaction leftovers", r"compacted/retired/.+", False, False, True, RUNTIME, made=False),
    Kind(
        "record summary",
        rf"index/[a-z]+/{N}\.json",
        True,
        False,  # a cache: read again from the records
        True,
        "store verify: its MAC (test_summary_attacks.py)",
        made=False,
    ),
    Kind(
        "live index marker",  # store/live.py: a live record it misses is named
        rf"index/live/ticket/{ID}\.{N}",
        False,  # empty; what it names is read again from the records
        False,  # a stale one is not needed; a missing live one: test_live_index.py
        True,
        "store verify: a live ticket it does not name (test_live_index.py)",
    ),
    Kind(
        "live index complete mark",
        r"index/live/ticket/complete",
        False,
        False,  # removed: the next reader scans and builds the index again
        True,
        RUNTIME,
        made=False,
    ),
    Kind(
        "compaction look mark",
        r"index/compact/looked",
        False,  # a cache: a wrong time delays or hastens a look for due tickets
        False,
        True,
        RUNTIME,
        made=False,
    ),
    Kind("check output", rf"verify/{ID}/{H}-[1-9][0-9]*\.log", True, True, True, LEDGER),
    Kind("latest check", rf"verify/{ID}/latest", False, False, True, RUNTIME),
    Kind("discard bundle", rf"archive/{ID}\.bundle", True, True, True, LEDGER),
    Kind("proxy file", r"proxy/.+", False, False, True, RUNTIME, made=False),
    Kind("broker log", rf"panes/{ID}\.log", False, False, True, RUNTIME),
    Kind(
        "pane document",
        rf"panes/{ID}\.(?:json|kill\.json|exit\.json|launch\.json|begun\.json|init\.json)",
        False,
        False,
        True,
        RUNTIME,
        made=False,  # removed when a worker ends (test_delivery.py, test_supervise.py)
    ),
    Kind("broker socket", rf"panes/{ID}\.sock", False, False, True, RUNTIME, made=False),
    Kind(
        "agent home an older oms left",  # homes live in the sandbox directory now (ADR 0026)
        r"tmp/[a-z]+-[^/]+/.+",
        False,
        False,
        False,
        "the agent's own (store verify notes)",
        made=False,
    ),
    Kind(
        "tmux options",
        r"tmux\.conf",
        True,
        False,
        True,
        "store verify: its exact bytes (rewritten)",
    ),
    Kind("tmux socket", r"tmux\.sock", False, False, True, RUNTIME),
)


def _kind(rel: str) -> Kind:
    found = [k for k in KINDS if k.matches(rel)]
    names = [k.name for k in found]
    assert len(found) == 1, f"{rel}: a kind of file no verifier is known to cover: {names}"
    return found[0]


def _walk(state: Path) -> Iterator[str]:
    for path in sorted(state.rglob("*")):
        if not path.is_dir() or path.is_symlink():
            yield str(path.relative_to(state))


@pytest.fixture(scope="module")
def full_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """A state root after a full run (see the module docstring): (state root, its anchor folder)."""
    with pytest.MonkeyPatch.context() as isolated:  # (it runs before the autouse fixture)
        isolate_home(isolated, tmp_path_factory)
        yield from _full_run(tmp_path_factory)


def _full_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    where = tmp_path_factory.mktemp("every-kind") / "demo"
    anchors = tmp_path_factory.mktemp("every-kind-anchors")
    env = {"OMS_ANCHOR_DIR": str(anchors)}
    run = oms_command().run
    done = run("demo", "--dir", str(where), "--json", timeout=300, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    demo = json.loads(done.stdout)
    state, repo = Path(demo["state_root"]), Path(demo["repo"])
    roots = ("--state-root", str(state), "--config-root", str(repo))
    config = repo / ".oms" / "config.toml"
    text = config.read_text().replace(
        'directory = "../worktrees"\n', 'directory = "../worktrees"\narchive_bundles = true\n'
    )
    config.write_text(text + '\n[verify]\ncommands = [["true"]]\n')
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "checks", cwd=repo)
    for args in (("result", "verify"), ("result", "discard")):
        done = run(*args, str(demo["dispatch_id"]), *roots, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
    with Store.open(str(state)) as store:
        store.journal("live-contact").append(contact_entry(0), now())
    done = run("audit", "checkpoint", *roots, env=env)
    assert done.returncode == 0, done.stderr
    yield state, anchors
    server = ["tmux", "-S", str(state / "tmux.sock"), "kill-server"]
    subprocess.run(server, capture_output=True, check=False)


def _problems(state: Path) -> list[str]:
    """Every problem both verifiers name (a verifier that stops names what stopped it)."""
    findings = store_verify(str(state)).findings
    found = [f"{f.path}: {f.problem}" for f in findings if f.severity == "error"]
    try:
        with Store.open(str(state)) as store:
            found += store.audit().problems
    except OmsError as exc:
        found.append(exc.message)
    return found


def _edit(path: Path, outside: Path) -> None:
    """One byte: the first digit counted up (a date, a number, a digest stays well-formed), or, in
    the key, its middle byte flipped (an empty file gets one)."""
    data = bytearray(path.read_bytes())
    digits = [i for i, b in enumerate(data) if 0x30 <= b <= 0x39]
    if digits and path.suffix != ".ed25519":
        data[digits[0]] = (data[digits[0]] - 0x30 + 1) % 10 + 0x30
    elif not data:  # (an empty output: one byte added)
        data = bytearray(b"x")
    else:
        data[len(data) // 2] ^= 1
    path.chmod(0o600)
    path.write_bytes(bytes(data))


def _delete(path: Path, outside: Path) -> None:
    path.unlink()


def _link(path: Path, outside: Path) -> None:
    """Its bytes moved outside the state root, a link left in its place."""
    kept = outside / path.name
    if path.exists() or path.is_symlink():
        shutil.move(str(path), kept)
    else:
        kept.write_bytes(b"")  # (a socket: not copied)
    path.symlink_to(kept)


TAMPERS: dict[str, Callable[[Path, Path], None]] = {"edit": _edit, "delete": _delete, "link": _link}


def _sample(state: Path, kind: Kind, files: list[str]) -> str:
    """One file of `kind` (an op index entry of an earlier version: only those are kept)."""
    mine = [f for f in files if kind.matches(f)]
    if kind.name == "op index entry":
        for rel in mine:
            folder = (state / rel).parent.parent
            versions = [int(p.stem) for p in folder.glob("*.json")]
            if json.loads((state / rel).read_bytes())["version"] < max(versions):
                return rel
    return mine[0]


def test_every_file_in_a_full_run_is_of_a_listed_kind(
    full_run: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    state, anchors = full_run
    monkeypatch.setenv("OMS_ANCHOR_DIR", str(anchors))
    seen = {_kind(rel).name for rel in _walk(state)}
    assert seen == {k.name for k in KINDS if k.made}, "the run and the list disagree"
    assert _problems(state) == []


@pytest.mark.parametrize("tamper", sorted(TAMPERS))
@pytest.mark.parametrize("kind", [k for k in KINDS if k.made], ids=lambda k: k.name)
def test_a_tampered_file_of_each_kind_is_named(
    full_run: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    kind: Kind,
    tamper: str,
) -> None:
    state, anchors = full_run
    monkeypatch.setenv("OMS_ANCHOR_DIR", str(anchors))  # the run's anchor: a copy is on it
    files = list(_walk(state))
    rel = _sample(state, kind, files)
    expected = getattr(kind, tamper)
    is_socket = stat.S_ISSOCK((state / rel).lstat().st_mode)
    if is_socket and tamper != "link":
        pytest.skip("a socket has no bytes to edit, and tmux makes it again")
    copy, outside = tmp_path / "state", tmp_path / "outside"
    outside.mkdir()
    shutil.copytree(state, copy, symlinks=True, ignore=_sockets)
    TAMPERS[tamper](copy / rel, outside)
    problems = _problems(copy)
    named = [p for p in problems if rel in p or any(word in p for word in kind.also)]
    if expected:
        what = f"{tamper} of {rel} ({kind.name}, {kind.covered_by})"
        assert named, f"{what} is named by neither: {problems}"
    else:
        what = f"{rel} ({kind.name}) is {kind.covered_by}"
        assert not named, f"{what}; the list says {tamper} is not named"


def _sockets(folder: str, names: list[str]) -> set[str]:
    return {n for n in names if stat.S_ISSOCK(os.lstat(os.path.join(folder, n)).st_mode)}


def test_a_worktree_record_pointed_at_another_tickets_worktree_is_named(chain: Chain) -> None:
    first, _ = chain.leased_ticket("One")
    second, _ = chain.leased_ticket("Two")
    record = chain.state / "worktree-records" / f"{first}.json"
    other = json.loads((chain.state / "worktree-records" / f"{second}.json").read_bytes())
    doc = json.loads(record.read_bytes())
    doc["worktree_root"] = other["worktree_root"]  # `first`'s agent would work in `second`'s tree
    record.write_bytes(dumps(doc))
    assert store_verify(str(chain.state)).ok  # well-formed: the store's own check cannot see it
    with Store.open(str(chain.state)) as store:
        problems = store.audit().problems
    assert any(f"worktree-records/{first}.json was changed" in p for p in problems), problems
