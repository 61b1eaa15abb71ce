"""`oms demo` (README's first command): the whole chain on a scratch repository, source and
frozen."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

from tests.helpers import OmsCommand, git


def test_demo_runs_the_chain_and_prints_a_timeline(oms: OmsCommand, tmp_path: Path) -> None:
    where = tmp_path / "demo"
    done = oms.run("demo", "--dir", str(where), "--json", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(done.stdout)
    try:
        assert data["ok"] is True
        worktree = where / "worktrees" / str(data["ticket_id"])
        assert data["result_commit"] == git("rev-parse", "HEAD", cwd=worktree).strip()
        shown = git(
            "show", "--format=%s%n%an", "--name-only", str(data["result_commit"]), cwd=worktree
        )
        # the worker could not commit in its sandbox: oms committed what it left, as `oms worker`
        assert shown.split("\n")[:2] == ["Added a CHANGELOG line.", "oms worker"]
        assert shown.split()[-1] == "CHANGELOG.md"
        lines = [(s["source"], s["text"]) for s in data["timeline"]]
        texts = [text for _, text in lines]
        stamps = [s["at"] for s in data["timeline"]]
        assert stamps == sorted(stamps)
        for wanted in (
            "proposed -> accepted",
            "accepted -> acknowledged",
            "acknowledged -> result-received",
            "idle -> working",
            "working -> done",
            "hook SessionStart: oms answers 'call read_dispatch'",
            "hook Stop: blocked (the dispatch has no result yet)",
            "hook Stop: released (the dispatch has its result)",
            "git commit refused inside the sandbox (git metadata is read-only)",
        ):
            assert any(text.startswith(wanted) for text in texts), wanted
        assert ("event", "bridge-acknowledged") in [
            (s["source"], s["subject"]) for s in data["timeline"]
        ]
        assert ("evidence", "dispatch-result") in [
            (s["source"], s["subject"]) for s in data["timeline"]
        ]
        roots = ["--state-root", str(data["state_root"]), "--config-root", str(data["repo"])]
        status = oms.run("status", "--json", *roots)
        assert json.loads(status.stdout)["dispatches"][0]["state"] == "result-received"
        assert (
            data["kept"] is False
        )  # by default nothing of the demo lingers: the worker stopped, the server gone
        worker = json.loads(
            oms.run("worker", "observe", str(data["dispatch_id"]), "--json", *roots).stdout
        )
        assert worker["worker_health"] == "stopped"
        assert (
            worker["end_reason"] == "result-recorded"
        )  # (a stop never rewrites how the worker ended)
        assert worker["pane_live"] is False
    finally:
        server = subprocess.run(
            ["tmux", "-S", str(data["tmux_socket"]), "kill-server"],
            capture_output=True,
            check=False,
        )
    assert server.returncode != 0  # there was no server left to kill


def test_demo_human_output_says_where_to_look(oms: OmsCommand, tmp_path: Path) -> None:
    where = tmp_path / "demo"
    done = oms.run("demo", "--dir", str(where), timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert out.startswith("Timeline\n")
    assert "Result: dispatch dsp-" in out
    assert (
        "The worker was stopped and the demo's tmux server ended (`oms demo --keep` keeps them)."
        in out
    )
    assert "attach" not in out  # no pane to look at
    assert "oms demo: delivered into tmux pane %" in done.stderr  # progress, on stderr
    assert _run_hints(oms, out) >= 3  # every command it prints works


def _run_hints(oms: OmsCommand, out: str) -> int:
    """Run every `oms ...` and `git ...` line under "Where to look" (a hint is a command that
    works)."""
    hints = [
        line.strip()
        for line in out.split("Where to look\n", 1)[1].splitlines()
        if line.startswith("  ")
    ]
    ran = 0
    for hint in hints:
        words = shlex.split(hint.split("   #", 1)[0])
        if words[0] == "oms":
            done = oms.run(*words[1:])
        elif words[0] in ("git", "tmux") and "attach" not in words:
            done = subprocess.run(words, capture_output=True, text=True, check=False)
        else:
            continue
        assert done.returncode == 0, f"{hint}: {done.stderr}"
        ran += 1
    return ran


def test_demo_keep_leaves_the_worker_for_a_look_and_its_hints_work(
    oms: OmsCommand, tmp_path: Path
) -> None:
    where = tmp_path / "demo"
    done = oms.run("demo", "--dir", str(where), "--keep", timeout=300)
    socket = where / "state" / "tmux.sock"
    try:
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"tmux -S {socket} attach -t dsp-" in done.stdout
        dispatch_id = done.stdout.split("Result: dispatch ", 1)[1].split()[0]
        panes = subprocess.run(
            ["tmux", "-S", str(socket), "list-panes", "-a", "-F", "#{session_name}"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert dispatch_id in panes.stdout.split()
        assert _run_hints(oms, done.stdout) >= 4  # the last one, `oms worker stop`, ends it
        gone = subprocess.run(
            ["tmux", "-S", str(socket), "list-panes", "-a", "-F", "#{session_name}"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert dispatch_id not in gone.stdout.split()
    finally:
        subprocess.run(["tmux", "-S", str(socket), "kill-server"], capture_output=True, check=False)


def test_demo_refuses_a_used_directory(oms: OmsCommand, tmp_path: Path) -> None:
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "keep.txt").write_text("mine\n")
    done = oms.run("demo", "--dir", str(tmp_path / "used"))
    assert done.returncode == 1
    assert done.stderr.splitlines()[-2].startswith("oms: error: demo directory")
    assert done.stderr.splitlines()[-1].startswith("  hint: name a new or empty directory")
    assert "Traceback" not in done.stderr
    assert (tmp_path / "used" / "keep.txt").read_text() == "mine\n"
    assert sorted(p.name for p in (tmp_path / "used").iterdir()) == ["keep.txt"]


def test_demo_runs_the_conductor_over_many_tickets(oms: OmsCommand, tmp_path: Path) -> None:
    where = tmp_path / "fleet"
    done = oms.run(
        "demo", "--dir", str(where), "--tickets", "5", "--workers", "2", "--json", timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(done.stdout)
    assert data["ok"] is True
    assert [r["ticket_id"] for r in data["results"]] == [f"tkt-{n}" for n in range(1, 6)]
    assert {r["state"] for r in data["results"]} == {"done"}
    assert len({r["dispatch_id"] for r in data["results"]}) == 5
    assert 1 <= data["max_concurrent_workers"] <= 2
    for r in data["results"]:  # each result is a commit on the ticket's branch
        log = git("log", "--format=%s", "-1", f"oms/{r['ticket_id']}", cwd=where / "repo")
        assert log.strip() == "Added a CHANGELOG line."
    server = subprocess.run(
        ["tmux", "-S", str(where / "state" / "tmux.sock"), "list-sessions"],
        capture_output=True,
        check=False,
    )
    assert server.returncode != 0  # the demo's tmux server has ended
    roots = ["--state-root", str(data["state_root"]), "--config-root", str(data["repo"])]
    status = json.loads(oms.run("status", "--json", *roots).stdout)
    assert len(status["workers"]) == 5
    ended = {(w["health"], w["end_reason"]) for w in status["workers"]}
    assert ended == {("stopped", "result-recorded")}  # every worker ended, the last one too
