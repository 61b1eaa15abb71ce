"""Every hint a command prints in the cases a newcomer met is run as it is printed (issue 26 item
3): each command in backticks, in order, as a person would type it (with the same roots), must
work, and the work go on. Real `oms` processes, real git, a command advisor that counts its
calls (each one a model call a person pays for)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.chain import ADVISOR, _replace_advisor_argv
from tests.helpers import OmsCommand

pytestmark = pytest.mark.cli

COUNTED = """
import runpy, sys
with open(sys.argv[2], "a") as out:
    out.write("call\\n")
sys.argv = [sys.argv[1], "approve"]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


class Repo:
    """A repository with oms in it, a command advisor whose calls are counted, a leased ticket."""

    def __init__(self, oms: OmsCommand, base: Path) -> None:
        self.oms, self.base = oms, base
        self.repo, self.state, self.calls = base / "repo", base / "state", base / "calls"
        self.git("init", "-q", "-b", "main", str(self.repo), cwd=base)
        self.git("commit", "-q", "--allow-empty", "-m", "start")
        assert self.run("init").returncode == 0
        (base / "advisor.py").write_text(ADVISOR)
        (base / "counted.py").write_text(COUNTED)
        argv = [sys.executable, str(base / "counted.py"), str(base / "advisor.py"), str(self.calls)]
        config = self.repo / ".oms" / "config.toml"
        text = _replace_advisor_argv(config.read_text(), argv)
        text = text.replace(
            'role = "oms.ticket-executor"       # the role new', 'role = "oms.cmd" # '
        )
        text += '\n[roles."oms.cmd"]\nmodel = "s"\ntransport = "command"\n'
        text += 'sandbox = "ticket-worktree-write"\nargv = ["true"]\n'
        config.write_text(text)
        policy = json.loads((self.repo / ".oms" / "role-policy.json").read_text())
        policy["roles"]["oms.cmd"] = policy["roles"]["oms.ticket-executor"]
        (self.repo / ".oms" / "role-policy.json").write_text(json.dumps(policy, indent=2))
        self.git("add", ".oms")
        self.git("commit", "-q", "-m", "oms")

    def git(self, *args: str, cwd: Path | None = None) -> None:
        subprocess.run(["git", *args], cwd=cwd or self.repo, check=True, capture_output=True)

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.oms.run(*args, "--state-root", str(self.state), cwd=self.repo)

    def advisor_calls(self) -> int:
        return len(self.calls.read_text().splitlines()) if self.calls.exists() else 0

    def proposed(self) -> str:
        assert self.run("ticket", "add", "--title", "t", "--no-body").returncode == 0
        assert self.run("ticket", "lease", "tkt-1", "--worker", "me").returncode == 0
        assert self.run("worktree", "create", "tkt-1").returncode == 0
        return self.propose()

    def propose(self) -> str:
        done = self.run("dispatch", "propose", "tkt-1", "--json")
        assert done.returncode == 0, done.stderr
        return str(json.loads(done.stdout)["dispatch"]["id"])

    def follow(self, result: subprocess.CompletedProcess[str]) -> list[str]:
        """Run each command the hint names, in order; the new dispatch a propose makes is the one
        the next commands ('and review it') act on. Returns what each printed."""
        hint = next(line for line in result.stderr.splitlines() if line.startswith("  hint: "))
        commands = re.findall(r"`(oms [^`]+)`", hint)
        assert commands, hint
        out, made = [], None
        for command in commands:
            words = shlex.split(command)[1:]
            if made is not None:
                words = [made if w.startswith("dsp-") else w for w in words]
            if words[:2] in (["ticket", "reopen"], ["ticket", "retry"]):
                words += ["--person", "ann"]  # who decides, named off a terminal (as it says)
            done = self.run(*words)
            assert done.returncode == 0, (command, done.stderr)
            if words[:2] == ["dispatch", "propose"]:
                made = next(w for w in done.stdout.split() if w.startswith("dsp-"))
            out.append(done.stdout)
        if "review it" in hint and made is not None:
            assert self.run("dispatch", "review", made).returncode == 0
        return out


@pytest.fixture
def repo(oms: OmsCommand, tmp_path: Path) -> Repo:
    return Repo(oms, tmp_path)


def test_accept_without_review_says_to_review_and_its_hint_works(repo: Repo) -> None:
    """It said to run review, and in its hint to propose again (which failed)."""
    dispatch = repo.proposed()
    refused = repo.run("dispatch", "accept", dispatch)
    assert refused.returncode == 1
    assert refused.stderr.splitlines()[0] == "oms: error: dispatch has no approval yet"
    assert "propose" not in refused.stderr
    repo.follow(refused)  # review it
    accepted = repo.run("dispatch", "accept", dispatch)
    assert accepted.returncode == 0, accepted.stderr


@pytest.mark.parametrize("change", ["policy", "model"])
def test_a_stale_intent_is_never_reviewed_and_proposing_again_works(
    repo: Repo, change: str
) -> None:
    """After a policy change, propose failed even after cancel ('operation dsp-propose-... already
    produced version 0 with a different change'), and review spent a model call approving an
    intent already stale."""
    dispatch = repo.proposed()
    if change == "policy":
        path = repo.repo / ".oms" / "role-policy.json"
        policy = json.loads(path.read_text())
        policy["human_approval"] = not policy["human_approval"]
        path.write_text(json.dumps(policy, indent=2))
    else:
        path = repo.repo / ".oms" / "config.toml"
        path.write_text(path.read_text().replace('model = "s"', 'model = "t"'))
    repo.git("commit", "-q", "-am", change)
    refused = repo.run("dispatch", "review", dispatch)
    assert refused.returncode == 1
    assert repo.advisor_calls() == 0  # never paid for
    assert len(refused.stderr.splitlines()) == 2  # one line, and its hint
    repo.follow(refused)  # cancel, propose again, review the new one
    assert repo.advisor_calls() == 1
    shown = json.loads(repo.run("dispatch", "list", "--json").stdout)["dispatches"]
    assert sorted(d["state"] for d in shown) == ["cancelled", "proposed"]
    fresh = next(d["id"] for d in shown if d["state"] == "proposed")
    assert repo.run("dispatch", "accept", fresh).returncode == 0


def test_doctor_outside_a_repository_and_reopen_hints_work(repo: Repo, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    doctor = repo.oms.run("doctor", "--state-root", str(repo.state), cwd=outside)
    line = next(x for x in doctor.stdout.splitlines() if x.split()[:2] == ["FAIL", "config"])
    assert (
        "(fix: run oms inside the git repository it works on (cd there, or pass --config-root))"
        in line
    )
    there = repo.oms.run("doctor", "--state-root", str(repo.state), cwd=repo.repo)
    assert any(x.split()[:2] == ["OK", "config"] for x in there.stdout.splitlines())
    assert repo.run("ticket", "add", "--title", "t", "--no-body").returncode == 0
    refused = repo.run("ticket", "reopen", "tkt-1", "--person", "ann")
    assert refused.returncode == 1
    repo.follow(refused)  # the retry of an open ticket


def test_a_proxy_record_oms_cannot_read_fails_doctor_and_its_fix_works(repo: Repo) -> None:
    """Every contained launch waits while the proxy's record cannot be read (none is started
    beside a proxy that may run): doctor says so, and its fix works."""
    record = repo.state / "proxy" / "proxy.json"
    record.parent.mkdir(mode=0o700, exist_ok=True)
    record.write_text("not json\n")
    record.chmod(0o600)
    doctor = repo.run("doctor")
    line = next(
        x for x in doctor.stdout.splitlines() if x.split()[:3] == ["FAIL", "model", "proxy"]
    )
    fix = re.findall(r"`(oms [^`]+)`", line)
    assert fix == ["oms proxy stop"], line
    assert repo.run(*shlex.split(fix[0])[1:]).returncode == 0
    again = repo.run("doctor").stdout.splitlines()
    assert any(x.split()[:3] == ["OK", "model", "proxy"] for x in again)


def test_a_handle_that_names_nothing_says_where_the_ids_are(repo: Repo) -> None:
    """Issue 26 item 4: a ticket or dispatch handle that names none says why in one line (a ticket's
    own dispatches listed), and where to look; that runs and lists the dispatch meant."""
    dispatch = repo.proposed()
    for args, why in (
        (("dispatch", "show", "tkt-9"), "no dispatch or ticket tkt-9"),
        (("worker", "stop", "dsp-zz"), "no dispatch or ticket dsp-zz"),
        (("result", "merge", "tkt-1"), f"ticket tkt-1 has no result; its dispatches: {dispatch}"),
    ):
        refused = repo.run(*args)
        assert refused.returncode == 1, refused.stderr
        assert refused.stderr.startswith(f"oms: error: {why}"), refused.stderr
        assert dispatch in "".join(repo.follow(refused))
