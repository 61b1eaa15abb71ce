"""Every end salvages, whatever the repository's settings say, or says loudly why it could not
(issue 24 item 5, ADR 0029; SECURITY.md "Salvage").

A person (or anything that writes the repository's `.git`) plants a setting git would run or
follow — `core.fsmonitor`, a clean filter named by the work's own `.gitattributes`,
`core.hooksPath`, an `include.path`, or `core.ignorecase`, which hides from `git status` a file
whose name differs from a tracked one in case alone — in the repository config or in the worktree's
`config.worktree`. `oms worker stop` of a running worker must still keep the work at its salvage
ref, byte for byte, and nothing the setting names may run. Before ADR 0029 the salvage refused the
repository (`refuse_unsafe_config`): the stop exited 0 with no salvage ref, the reason only in the
worker record's `salvage_error`.

An end that cannot salvage (a FIFO the work holds) says so: the stop's output, `oms worker observe`,
`oms status`, and the end record's detail."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.chain import Chain, accepted, use_worker, wait_served
from tests.helpers import OmsCommand, git

WORK = {
    "work.txt": b"one\r\ntwo\r\n$Id$\r\n",  # CRLF, an ident: no filter or conversion touches them
    "README.md": b"# rewritten by the agent\n",
    "deep/er/file.bin": bytes(range(256)),
    ".gitattributes": b"* filter=evil ident text eol=lf\n",  # names the planted filter
    "readme.md": b"a name that differs from README.md in case alone\n",  # (core.ignorecase)
}
SETTINGS = {  # key -> value, from the marker script, the hooks folder and the included file
    "fsmonitor": (("core.fsmonitor", "script"),),
    "filter": (
        ("filter.evil.clean", "script"),
        ("filter.evil.smudge", "script"),
        ("filter.evil.process", "script"),
    ),
    "hooksPath": (("core.hooksPath", "hooks"),),
    "include": (("include.path", "include"),),
    # (a literal, not a command: a repository made on a case-insensitive disk carries it, and git
    # would not list an untracked `readme.md` beside a tracked `README.md`)
    "ignorecase": (("core.ignorecase", "true"),),
}
WHERE = ("repository", "config.worktree")


def _run(oms: OmsCommand, chain: Chain, *args: str) -> subprocess.CompletedProcess[str]:
    return oms.run(*args, "--state-root", str(chain.state), "--config-root", str(chain.repo))


def _running(chain: Chain) -> tuple[str, Path]:
    """A delivered command worker that waits in its pane; (dispatch id, its worktree)."""
    use_worker(chain, mode="wait")
    dispatch_id, event_id = accepted(chain)
    with chain.workspace() as ws:
        from oms.services.delivery.service import Delivery

        outcome = Delivery.open(ws).deliver(event_id)["outcome"]
        payload = ws.store.records("dispatch").read(dispatch_id).payload
    assert isinstance(outcome, dict), outcome
    assert outcome["status"] == "created", outcome
    wait_served(chain, dispatch_id)
    return dispatch_id, Path(str(payload["worktree_path"]))


def _plant(chain: Chain, worktree: Path, name: str, where: str) -> Path:
    """Plant setting `name` in `where`; the marker file its commands would create."""
    marker = chain.base / "ran"
    script = chain.base / "evil.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\ncat\n")
    script.chmod(0o755)
    hooks = chain.base / "hooks"
    hooks.mkdir(exist_ok=True)
    for hook in ("reference-transaction", "post-index-change", "post-checkout", "pre-commit"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {marker}\n")
        (hooks / hook).chmod(0o755)
    include = chain.base / "included.config"
    include.write_text(f'[core]\n\tfsmonitor = {script}\n[filter "evil"]\n\tclean = {script}\n')
    places = {"script": script, "hooks": hooks, "include": include}
    entries = [(key, str(places.get(value, value))) for key, value in SETTINGS[name]]
    if where == "repository":
        for key, value in entries:
            git("config", key, value, cwd=chain.repo)
    else:
        git("config", "extensions.worktreeConfig", "true", cwd=chain.repo)
        gitdir = Path(git("rev-parse", "--absolute-git-dir", cwd=worktree).strip())
        for key, value in entries:
            git("config", "--file", str(gitdir / "config.worktree"), key, value, cwd=chain.repo)
    return marker


def _committed(repo: Path, commit: str) -> dict[str, bytes]:
    names = git("ls-tree", "-r", "-z", "--name-only", commit, cwd=repo).split("\0")
    cat = ("git", "-C", str(repo), "cat-file", "blob")
    out = {}
    for n in filter(None, names):
        out[n] = subprocess.run([*cat, f"{commit}:{n}"], capture_output=True, check=True).stdout
    return out


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_a_planted_setting_neither_stops_nor_steers_a_salvage(
    oms: OmsCommand, deliverable: Chain, name: str, where: str
) -> None:
    dispatch_id, worktree = _running(deliverable)
    for rel, data in WORK.items():
        (worktree / rel).parent.mkdir(parents=True, exist_ok=True)
        (worktree / rel).write_bytes(data)
    marker = _plant(deliverable, worktree, name, where)
    stopped = _run(oms, deliverable, "worker", "stop", dispatch_id, "--json")
    assert stopped.returncode == 0, stopped.stderr
    view = json.loads(stopped.stdout)
    assert "salvage_error" not in view, view
    ref, commit = view["salvage_ref"], view["salvage_commit"]
    assert ref == "refs/oms/salvage/tkt-1/1"
    assert git("rev-parse", ref, cwd=deliverable.repo).strip() == commit
    kept = _committed(deliverable.repo, commit)
    assert {k: kept[k] for k in WORK} == WORK  # byte for byte: no filter, ident or eol conversion
    assert not marker.exists(), f"{name} in {where} ran"
    observed = json.loads(_run(oms, deliverable, "worker", "observe", dispatch_id, "--json").stdout)
    assert (observed["salvage_ref"], observed["salvage_commit"]) == (ref, commit)


def test_an_end_that_cannot_salvage_says_so_everywhere(oms: OmsCommand, deliverable: Chain) -> None:
    dispatch_id, worktree = _running(deliverable)
    (worktree / "kept.txt").write_text("work\n")
    (worktree / "README.md").unlink()
    os.mkfifo(worktree / "README.md")  # a tracked file now a FIFO: git cannot keep it, said by name
    stopped = _run(oms, deliverable, "worker", "stop", dispatch_id)
    assert stopped.returncode == 0, stopped.stderr
    why = "README.md is a FIFO, which git cannot keep; nothing committed"
    said = f"its work was NOT salvaged ({why})"
    assert f"WARN {said}; it stays in the worktree" in stopped.stderr
    observed = json.loads(_run(oms, deliverable, "worker", "observe", dispatch_id, "--json").stdout)
    assert observed["salvage_error"] == why
    assert said in observed["end_detail"]
    status = _run(oms, deliverable, "status")
    assert f"WARN worker {dispatch_id} of tkt-1 ended: {said}" in status.stdout
    assert (worktree / "kept.txt").read_text() == "work\n"  # nothing deleted
