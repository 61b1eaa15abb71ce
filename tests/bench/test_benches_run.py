"""Every bench runs, at a small size, so that none can rot unnoticed.

Each `bench/*_bench.py` runs here once as a real process, with the flags of its small mode, in a
fresh HOME: a new empty directory with fresh XDG directories, no git identity, no `~/.codex` or
`~/.claude`, and an environment holding only PATH, the locale and TMPDIR (no GIT_*, OMS_* or API key
variables), as a new user's machine would run it. It must exit 0 and print, for each comparison it
exists for, its `ratio:` line (bench/_common.py `ratio_line`: a median against its baseline measured
in the same run), and leave nothing of oms's in that HOME (a throwaway state root's ledger anchor,
docs/adr/0027, belongs in the bench's scratch: bench/_common.py `scratch_anchors`). Timings are
never asserted: a ratio's value is only checked to be a number. A bench added to bench/ without
being listed in SMALL fails here.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.helpers import REPO

BENCH = REPO / "bench"
HELPERS = frozenset({"__init__.py", "_common.py"})
FROZEN = REPO / "dist" / "oms" / "oms"
RATIO = re.compile(
    r"ratio: (?P<what>.+): (?P<times>\d+\.\d\d)x "  # <case> / <baseline>: <r>x
    r"\((?P<stat>[^()]+?) [-\d.]+ \S+ / [-\d.]+ \S+\)",  # (<stat> <value> <unit> / <base> <unit>)
)
TIMEOUT_S = 300
STOP_S = 30


class Small(NamedTuple):
    """A bench's small mode: its flags, the ratios it must print (each the start of a `ratio:`
    line's `<case> / <baseline>`), and whether it needs the frozen binary (build/freeze.py)."""

    flags: tuple[str, ...]
    ratios: tuple[str, ...]
    frozen: bool = False


KILL_SOON = ("--min-delay", "0.2", "--max-delay", "0.5")  # the conductor's kill, after its start
LEAN = "frozen empty script, oms's spec choices (lean floor)"
SMALL: dict[str, Small] = {
    "agent_doors_bench.py": Small(
        ("--runs", "2", "--events", "20"),
        (
            f"hook relay PreToolUse (allowed tool) / {LEAN}",
            f"hook relay UserPromptSubmit / {LEAN}",
            f"hook relay Stop (result recorded) / {LEAN}",
            f"bridge relay spawn -> initialize -> first tools/call / {LEAN}",
            "hook relay UserPromptSubmit, more events in the state root / hook relay",
        ),
        frozen=True,
    ),
    "audit_log_bench.py": Small(
        ("--sizes", "100,1000", "--repeat", "2"),
        ("audit log --limit 5, 1000 entries / 100 entries",),
    ),
    "compaction_etcd_bench.py": Small(
        ("--tickets", "3", "--versions", "2"), ("compaction a ticket, etcd / files",)
    ),
    "conductor_restart_bench.py": Small(
        ("--rounds", "1", "--tickets", "2", "--workers", "2", *KILL_SOON),
        ("the queue worked through, 1 SIGKILLs / never killed",),
    ),
    "conductor_tick_bench.py": Small(
        ("--sizes", "10,100", "--workers", "3", "--repeat", "2"),
        ("an idle tick, 100 tickets / 10 tickets", "a one-shot tick, 100 tickets / 10 tickets"),
    ),
    "deliver_bench.py": Small(
        ("--samples", "3", "--stored", "100"),
        ("the broker serves, 100 stored / ", "deliver() returns, 100 stored / "),
    ),
    "fleet_chaos_bench.py": Small(
        ("--seconds", "4", "--tickets", "2", "--workers", "2", "--gap", "1", "--settle", "120"),
        ("time to done under chaos, p95 / p50",),
    ),
    "finishing_bench.py": Small(
        ("--samples", "3", "--files", "10,100"),
        (
            "salvage, 100 changed files / git status of the same tree",
            "salvage in its tree job, 100 changed files / git status of the same worktree",
            "a check (`true`) in the check sandbox / `/bin/true` run directly",
        ),
    ),
    "hosts_chaos_bench.py": Small(
        ("--small",),
        (
            "an idle `oms conductor tick` on etcd, 1 hosts up / on files",
            "an idle `oms conductor tick` on etcd, 3 hosts up / on files",
            "`oms ticket add` on etcd, 3 hosts up / on files",
        ),
    ),
    "cli_tree_bench.py": Small(
        ("--runs", "2"),
        ("Click tree, narrowed / whole app", "oms ticket list --json, narrowed / whole app"),
    ),
    "help_bench.py": Small(
        ("--runs", "3"),
        ("oms hook provider --help / oms --version", "oms --help (Typer) / oms --version"),
        frozen=True,
    ),
    "ledger_bench.py": Small(
        ("--entries", "1000", "--samples", "20", "--writers", "2", "--writes", "20"),
        (
            "audit verify, 1000 entries / reading and hashing its files",
            "publish + ledger note / publish alone",
            "checkpoint + anchor / checkpoint alone",
        ),
    ),
    "limits_bench.py": Small(
        ("--small",),
        tuple(
            f"{case}, {attack} / {case}, {idle}"
            for attack, idle in (("fork bomb", "idle"), ("4 GiB allocation", "idle, again"))
            for case in ("hook relay PreToolUse", "broker alone: PreToolUse", "`oms status --json`")
        ),
    ),
    "proxy_bench.py": Small(
        ("--samples", "5", "--events", "20"),
        (
            "request, proxied / direct",
            "stream: first event, proxied / direct",
            "stream: all events, relayed / direct",
        ),
    ),
    "proxy_route_bench.py": Small(
        ("--samples", "4", "--cold", "2"),
        ("a launch that starts the proxy on demand / a launch while it runs",),
    ),
    "race_bench.py": Small(("--races", "5"), ("a race of two callers / one caller alone",)),
    "read_commands_bench.py": Small(
        ("--sizes", "10,100", "--repeat", "2"),
        (
            "`oms status`, 100 tickets / `oms --version`",
            "`oms store verify`, 100 tickets / `oms --version`",
            "`oms status`, 100 tickets / 10 tickets",
            "`oms ticket list`, 100 tickets / 10 tickets",
        ),
        frozen=True,
    ),
    "review_bench.py": Small(
        ("--files", "50", "--repeat", "2"),
        (
            "`oms result diff` first byte, 50 files / `oms --version`",
            "`oms result diff` first byte, 50 files / `oms ticket list` first byte",
            "`oms result diff` first byte, 50 files / `git diff` first byte",
        ),
    ),
    "startup_bench.py": Small(
        ("--runs", "3"),
        ("frozen `oms --version` (onedir) / frozen empty script, oms's spec choices",),
        frozen=True,
    ),
    "state_bytes_bench.py": Small(("--dispatches", "2"), ("state root bytes, compacted / ended",)),
    "etcd_bench.py": Small(
        ("--records", "20", "--samples", "10", "--status-tickets", "20", "--repeat", "2"),
        (
            "etcd read latest, 20 records / files",
            "etcd transition (read, decide, CAS) / files",
            "etcd read latest / etcd round trip",
            "`oms status` on etcd, 20 tickets / files",
            "`oms status` on etcd, 20 tickets, first run / files",
        ),
    ),
    "store_bench.py": Small(
        ("--records", "100", "--samples", "20"),
        (
            "create / a publish of the same size",
            "transition / a publish of the same size",
            "read latest, 100 records / 10 records",
        ),
    ),
    "web_bench.py": Small(
        ("--tickets", "5", "--repeat", "2", "--diff-files", "20"),
        (
            "page load / oms status --json",
            "update / oms status --json",
            "stream delay / oms status --json",
            "GET /api/diff / `git diff`",
        ),
    ),
}


def test_every_bench_is_listed() -> None:
    """A bench nobody runs rots: every bench/*_bench.py has a small mode here, and bench/ holds
    nothing else but the shared helpers."""
    found = {p.name for p in BENCH.glob("*.py")}
    benches = {p.name for p in BENCH.glob("*_bench.py")}
    assert found - HELPERS == benches, "a bench's file name ends in _bench.py"
    assert sorted(found - HELPERS) == sorted(SMALL)


def fresh_env(home: Path) -> dict[str, str]:
    """A new user's environment: an empty HOME and XDG directories; PATH, locale, TMPDIR only."""
    home.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "LANG": "C.UTF-8"}
    for var, rel in (
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_CACHE_HOME", ".cache"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_STATE_HOME", ".local/state"),
    ):
        env[var] = str(home / rel)
    if "TMPDIR" in os.environ:
        env["TMPDIR"] = os.environ["TMPDIR"]
    return env


def run_bench(name: str, flags: tuple[str, ...], env: dict[str, str]) -> tuple[int, str, str]:
    """Run one bench to its end (its process group killed if it outlives TIMEOUT_S)."""
    proc = subprocess.Popen(
        [sys.executable, str(BENCH / name), *flags],
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGINT)  # as ^C: the bench's clean-up (tmux, sandboxes) runs
        try:
            out, err = proc.communicate(timeout=STOP_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
        pytest.fail(f"{name} ran longer than {TIMEOUT_S} s: {out[-2000:]}{err[-2000:]}")
    return proc.returncode, out, err


def test_a_fresh_home_has_no_git_identity(tmp_path: Path) -> None:
    """The environment the benches run in here is one where `git commit` finds no identity."""
    env = fresh_env(tmp_path / "home")
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], env=env, check=True)
    done = subprocess.run(
        ["git", "-C", str(repo), "commit", "-q", "--allow-empty", "-m", "x"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0, "a git identity in the fresh HOME: a bench relying on one passes"
    assert not (tmp_path / "home" / ".codex").exists()
    assert not (tmp_path / "home" / ".claude").exists()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SMALL))
def test_bench_runs_and_prints_its_ratios(name: str, tmp_path: Path) -> None:
    small = SMALL[name]
    if small.frozen and not FROZEN.is_file():
        pytest.fail(f"{FROZEN} is missing: build it first with `python build/freeze.py`")
    home = tmp_path / "home"
    code, out, err = run_bench(name, small.flags, fresh_env(home))
    assert code == 0, f"{name} exited {code}:\n{out[-3000:]}\n{err[-3000:]}"
    left = sorted(str(p.relative_to(home)) for p in home.rglob("*") if "oms" in p.name)
    assert not left, (
        f"{name} left oms's files in the user's home (anchors: docs/adr/0027): {left[:5]}"
    )
    lines = [line for line in out.splitlines() if line.startswith("ratio: ")]
    printed = []
    for line in lines:
        match = RATIO.fullmatch(line)
        assert match is not None, f"{name}: not a ratio line: {line!r}"
        printed.append(match["what"])
    for ratio in small.ratios:
        found = any(what.startswith(ratio) for what in printed)
        assert found, f"{name} printed no ratio {ratio!r}:\n{out}"
