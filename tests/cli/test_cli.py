"""The oms command as a real process: exit codes, one-line errors, --json, and no state change on
bad input.

Runs from source by default and against the frozen binary when OMS_TEST_BINARY is set (CI does
both).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from tests.helpers import GIT_IDENTITY_ENV, OmsCommand

pytestmark = pytest.mark.cli


def _tree(path: Path) -> dict[str, object]:
    if not path.exists():
        return {}
    return {
        str(p.relative_to(path)): (p.stat().st_mode, p.read_bytes() if p.is_file() else None)
        for p in sorted(path.rglob("*"))
    }


def _no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr + result.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


@pytest.fixture
def initialised(oms: OmsCommand, tmp_path: Path, repo: Path) -> Path:
    state = tmp_path / "state"
    result = oms.run("init", "--state-root", str(state), "--config-root", str(repo))
    assert result.returncode == 0, result.stderr
    subprocess.run(["git", "add", ".oms"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "oms"], cwd=repo, check=True)
    return state


def test_version(oms: OmsCommand) -> None:
    result = oms.run("--version")
    assert (result.returncode, result.stdout) == (0, "oms 0.1.0\n")


def test_init_creates_private_root_key_and_config(
    oms: OmsCommand, tmp_path: Path, repo: Path
) -> None:
    state = tmp_path / "state"
    result = oms.run("init", "--state-root", str(state), "--config-root", str(repo))
    assert result.returncode == 0, result.stderr
    assert "(created)" in result.stdout
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert stat.S_IMODE((state / "keys" / "state.ed25519").stat().st_mode) == 0o600
    assert (repo / ".oms" / "config.toml").read_text().startswith("# oms configuration")
    again = oms.run("init", "--state-root", str(state), "--config-root", str(repo), "--json")
    assert again.returncode == 0
    data = json.loads(again.stdout)
    assert data["ok"] is True
    assert (data["state_created"], data["config_created"]) == (False, False)
    assert len(data["key_id"]) == 64


def test_init_uses_environment_defaults(oms: OmsCommand, tmp_path: Path, repo: Path) -> None:
    result = oms.run(
        "init", env={"OMS_STATE_ROOT": str(tmp_path / "envstate"), "OMS_CONFIG_ROOT": str(repo)}
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "envstate" / "oms-state.json").is_file()


@pytest.mark.parametrize("where", ["inside-config-root", "inside-worktree"])
def test_init_refuses_a_state_root_agents_could_reach(
    oms: OmsCommand, tmp_path: Path, repo: Path, where: str
) -> None:
    state = repo / "state" if where == "inside-config-root" else repo / "sub" / "state"
    config = repo if where == "inside-config-root" else tmp_path / "elsewhere"
    config.mkdir(exist_ok=True)
    subprocess.run(["git", "init", "-q", str(config)], check=True)  # (oms runs in a repository)
    before = _tree(repo)
    result = oms.run("init", "--state-root", str(state), "--config-root", str(config))
    assert result.returncode == 1
    assert result.stderr.startswith("oms: error: state root")
    assert "hint:" in result.stderr
    _no_traceback(result)
    assert _tree(repo) == before


def test_init_refuses_a_symlinked_state_root(
    oms: OmsCommand, tmp_path: Path, repo: Path, initialised: Path
) -> None:
    os.symlink(initialised, tmp_path / "alias")
    result = oms.run("init", "--state-root", str(tmp_path / "alias"), "--config-root", str(repo))
    assert result.returncode == 1
    assert "symlink" in result.stderr
    _no_traceback(result)


def test_init_refuses_a_loose_key_and_changes_nothing(
    oms: OmsCommand, repo: Path, initialised: Path
) -> None:
    os.chmod(initialised / "keys" / "state.ed25519", 0o644)
    before = _tree(initialised)
    result = oms.run("init", "--state-root", str(initialised), "--config-root", str(repo))
    assert result.returncode == 1
    assert "keys/state.ed25519" in result.stderr
    assert "0644" in result.stderr
    _no_traceback(result)
    assert _tree(initialised) == before


def test_init_rejects_an_invalid_existing_config_naming_the_key(
    oms: OmsCommand, tmp_path: Path, repo: Path
) -> None:
    (repo / ".oms").mkdir()
    (repo / ".oms" / "config.toml").write_text("format = 1\n[pool]\nmax_workers = 2.5\n")
    result = oms.run("init", "--state-root", str(tmp_path / "state"), "--config-root", str(repo))
    assert result.returncode == 1
    assert "$.pool.max_workers" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert (repo / ".oms" / "config.toml").read_text().endswith("2.5\n")


KEYS = {
    "OPENAI_API_KEY": "sk-test",
    "ANTHROPIC_API_KEY": "sk-ant-test",
}  # what a logged-in user's CLIs have


def test_doctor_all_ok(oms: OmsCommand, repo: Path, initialised: Path) -> None:
    result = oms.run(
        "doctor", "--state-root", str(initialised), "--config-root", str(repo), env=KEYS
    )
    assert result.returncode == 0, result.stdout
    lines = result.stdout.strip().splitlines()
    assert all(line.startswith("OK") for line in lines), (
        result.stdout
    )  # the scaffold's models are current
    names = {line.split()[1] for line in lines}
    assert {
        "git",
        "tmux",
        "codex",
        "claude",
        "state",
        "openat2",
        "renameat2",
        "o_tmpfile",
        "config",
        "role",
    } <= names
    assert {"login"} <= names


def test_doctor_says_which_cli_needs_a_login_and_which_model_is_retired(
    oms: OmsCommand, tmp_path: Path, repo: Path, initialised: Path
) -> None:
    config = repo / ".oms" / "config.toml"
    config.write_text(config.read_text().replace('model = "sonnet"', 'model = "claude-sonnet-4-5"'))
    subprocess.run(["git", "commit", "-q", "-am", "an old model"], cwd=repo, check=True)
    homes = {"CODEX_HOME": str(tmp_path / "codex"), "CLAUDE_CONFIG_DIR": str(tmp_path / "claude")}
    for home in homes.values():
        Path(home).mkdir()
    out = dict.fromkeys((*KEYS, "CODEX_API_KEY"), "")
    result = oms.run(
        "doctor", "--state-root", str(initialised), "--config-root", str(repo), env={**out, **homes}
    )
    assert result.returncode == 1  # the advisor's and the worker's CLIs are not logged in
    lines = {" ".join(line.split()[:3]): line for line in result.stdout.splitlines()}
    assert "run `codex login`" in lines["FAIL login oms.exec-advisor"]
    worker = lines["FAIL login oms.ticket-executor"]  # contained: what the model proxy would hold
    assert "not logged in: the model proxy would hold none for oms-anthropic" in worker
    assert "export ANTHROPIC_API_KEY" in worker  # a Claude Code login is never handed to a worker
    assert "WARN login oms.goal-long-executor" in lines  # configured, not used: a warning
    retired = [
        line
        for line in result.stdout.splitlines()
        if line.startswith("WARN  model oms.ticket-executor")
    ]
    assert retired, result.stdout
    assert "Claude Code says Claude Sonnet 4.5 was retired on November 30, 2026" in retired[0]


def test_init_commit_commits_the_scaffold_and_the_hint_without_it_is_a_command_that_works(
    oms: OmsCommand, tmp_path: Path, repo: Path
) -> None:
    ident = ["-c", "user.name=Dev", "-c", "user.email=dev@example.com"]
    subprocess.run(
        ["git", *ident, "commit", "-q", "--allow-empty", "-m", "init"], cwd=repo, check=True
    )
    subprocess.run(["git", "config", "user.name", "Dev"], cwd=repo, check=True)
    subprocess.run(["git", "config", "user.email", "dev@example.com"], cwd=repo, check=True)
    plain = oms.run("init", "--state-root", str(tmp_path / "s1"), "--config-root", str(repo))
    assert plain.returncode == 0, plain.stderr
    hint = (
        next(line for line in plain.stdout.splitlines() if line.startswith("next "))
        .removeprefix("next")
        .strip()
    )
    assert hint.startswith("git -C ")
    # the printed hint, as a user runs it
    subprocess.run(hint, shell=True, check=True, capture_output=True)  # noqa: S602
    doctor = oms.run(
        "doctor", "--state-root", str(tmp_path / "s1"), "--config-root", str(repo), env=KEYS
    )
    assert "OK    config" in doctor.stdout
    other = tmp_path / "repo2"
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    subprocess.run(["git", "config", "user.name", "Dev"], cwd=other, check=True)
    subprocess.run(["git", "config", "user.email", "dev@example.com"], cwd=other, check=True)
    where = ("--state-root", str(tmp_path / "s2"), "--config-root", str(other))
    done = oms.run("init", "--commit", "--json", *where, unset=GIT_IDENTITY_ENV)  # (the config's)
    assert done.returncode == 0, done.stderr
    head = subprocess.run(
        ["git", "log", "--format=%an %s", "-1"],
        cwd=other,
        capture_output=True,
        text=True,
        check=True,
    )
    assert head.stdout.startswith("Dev oms: configuration and role policy")
    assert json.loads(done.stdout)["committed"] is not None
    again = oms.run(
        "init",
        "--commit",
        "--json",
        "--state-root",
        str(tmp_path / "s2"),
        "--config-root",
        str(other),
    )
    assert json.loads(again.stdout)["committed"] is None  # nothing new to commit


def test_init_commit_says_gits_reason_when_git_cannot_commit(
    oms: OmsCommand, tmp_path: Path, repo: Path
) -> None:
    env = {"GIT_CONFIG_GLOBAL": str(tmp_path / "none")}
    where = ("--state-root", str(tmp_path / "s"), "--config-root", str(repo))
    unnamed = oms.run("init", "--commit", *where, env=env, unset=GIT_IDENTITY_ENV)
    assert unnamed.returncode != 0
    assert "git does not know who you are" in unnamed.stderr
    assert 'hint: say it: oms init --commit --author "Your Name <you@' in unnamed.stderr
    assert not (tmp_path / "s").exists()  # refused before anything was made
    subprocess.run(["git", "config", "user.name", "Dev"], cwd=repo, check=True)
    subprocess.run(["git", "config", "user.email", "dev@example.com"], cwd=repo, check=True)
    (repo / ".git" / "index.lock").write_text(
        ""
    )  # another git is at work: git refuses, and says why
    locked = oms.run(
        "init", "--commit", "--state-root", str(tmp_path / "s"), "--config-root", str(repo)
    )
    assert locked.returncode != 0
    assert (
        "git exited 128: fatal: Unable to create" in locked.stderr
    )  # git's own reason, never just "exited"
    assert "index.lock" in locked.stderr


def test_doctor_reports_each_failure_with_its_fix(
    oms: OmsCommand, tmp_path: Path, repo: Path
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("git", "tmux"):
        os.symlink(shutil.which(tool) or "/missing", bin_dir / tool)
    result = oms.run(
        "doctor",
        "--state-root",
        str(tmp_path / "nostate"),
        "--config-root",
        str(repo),
        "--json",
        env={"PATH": str(bin_dir)},
    )
    assert result.returncode == 1
    checks = {c["check"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["git"]["ok"] is True
    assert checks["codex"]["ok"] is False
    assert "npm install -g @openai/codex" in checks["codex"]["fix"]
    assert checks["claude"]["ok"] is False
    assert checks["state root"]["ok"] is False
    assert "oms init" in checks["state root"]["fix"]
    assert checks["config"]["ok"] is False
    assert checks["role policy"]["ok"] is False
    assert checks["bubblewrap"]["ok"] is False  # not on this PATH: no worker could be sandboxed
    assert "apt-get install bubblewrap" in checks["bubblewrap"]["fix"]
    assert checks["kernel"]["ok"] is True  # the kernel facts themselves are fine here
    text = oms.run(
        "doctor",
        "--state-root",
        str(tmp_path / "nostate"),
        "--config-root",
        str(repo),
        env={"PATH": str(bin_dir)},
    )
    fail_lines = [line for line in text.stdout.splitlines() if line.startswith("FAIL")]
    assert len(fail_lines) == 6
    assert all("(fix: " in line for line in fail_lines)


def test_store_verify_ok_and_failing(oms: OmsCommand, initialised: Path) -> None:
    ok = oms.run("store", "verify", "--state-root", str(initialised))
    assert ok.returncode == 0
    assert ok.stdout.startswith("store verify: ok")
    (initialised / "records" / "rogue").mkdir(mode=0o700)
    os.symlink("/etc/passwd", initialised / "events" / "evil.json")
    bad = oms.run("store", "verify", "--state-root", str(initialised))
    assert bad.returncode == 1
    assert "FAIL  events/evil.json: is a symlink" in bad.stdout
    assert "FAIL  records/rogue: unknown record kind" in bad.stdout
    assert "2 problems" in bad.stdout.splitlines()[-1]
    data = json.loads(oms.run("store", "verify", "--state-root", str(initialised), "--json").stdout)
    assert data["ok"] is False
    assert {f["path"] for f in data["findings"]} == {"events/evil.json", "records/rogue"}


def test_store_sweep(oms: OmsCommand, initialised: Path) -> None:
    (
        initialised / "events" / ".oms-tmp.999999.1.00000000000000000000000000000000.abcdef012345"
    ).write_bytes(b"")
    result = oms.run("store", "sweep", "--state-root", str(initialised), "--json")
    assert result.returncode == 0
    assert json.loads(result.stdout)["removed"] == [
        "events/.oms-tmp.999999.1.00000000000000000000000000000000.abcdef012345"
    ]


@pytest.mark.parametrize(
    "args",
    [
        ["bogus"],
        ["init", "--no-such-flag"],
        ["store"],
        ["store", "verify", "--state-root"],
        ["doctor", "extra"],
    ],
)
def test_usage_errors_exit_2_in_one_line(oms: OmsCommand, args: list[str]) -> None:
    result = oms.run(*args)
    assert result.returncode == 2
    _no_traceback(result)
    if args != ["store"]:
        assert len(result.stderr.strip().splitlines()) == 1
        assert result.stderr.startswith("oms: usage:")


def test_errors_as_json(oms: OmsCommand, tmp_path: Path) -> None:
    result = oms.run("store", "verify", "--state-root", str(tmp_path / "nope"), "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout)["ok"] is False
    state = tmp_path / "s"
    state.mkdir(mode=0o700)
    os.symlink("/etc", state / "keys")
    subprocess.run(["git", "init", "-q", str(tmp_path / "cfg")], check=True)
    err = oms.run(
        "init", "--state-root", str(state), "--config-root", str(tmp_path / "cfg"), "--json"
    )
    assert err.returncode == 1
    assert json.loads(err.stdout)["error"] == "path-escape"
    assert not (tmp_path / "etc").exists()
    assert sorted(p.name for p in state.iterdir()) == ["keys"]
    _no_traceback(err)


def test_help_lists_commands(oms: OmsCommand) -> None:
    result = oms.run("--help")
    assert result.returncode == 0
    for command in ("init", "doctor", "store"):
        assert command in result.stdout


def test_doctors_fix_for_an_uncommitted_config_is_a_command_that_works(
    oms: OmsCommand, tmp_path: Path, repo: Path
) -> None:
    subprocess.run(["git", "config", "user.name", "Dev"], cwd=repo, check=True)
    subprocess.run(["git", "config", "user.email", "dev@example.com"], cwd=repo, check=True)
    done = oms.run("init", "--state-root", str(tmp_path / "s"), "--config-root", str(repo))
    assert done.returncode == 0, done.stderr
    doctor = oms.run(
        "doctor", "--state-root", str(tmp_path / "s"), "--config-root", str(repo), env=KEYS
    )
    line = next(line for line in doctor.stdout.splitlines() if line.startswith("FAIL  config"))
    fix = line.split("(fix: ", 1)[1].removesuffix(")").split(" (or: ", 1)[0]
    # the printed fix, as a user runs it
    subprocess.run(fix, shell=True, check=True, capture_output=True)  # noqa: S602
    again = oms.run(
        "doctor", "--state-root", str(tmp_path / "s"), "--config-root", str(repo), env=KEYS
    )
    assert again.returncode == 0, again.stdout
