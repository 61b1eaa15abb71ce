"""The sandbox plan (`adapters/sandbox.py`): what a worker sees, as bubblewrap arguments (pure)."""

from __future__ import annotations

import pytest

from oms.adapters.sandbox import (
    HOME_VIEW,
    PLACEHOLDERS,
    SANDBOX_PATH,
    Host,
    Layout,
    bwrap_args,
    command_args,
    environment,
    exec_marked,
    placeholder_paths,
)
from oms.domain.relay import BROKER_VIEW

HOST = Host(
    euid=1000,
    system=(("/usr", None), ("/bin", "usr/bin"), ("/etc", None)),
    masked_files=("/etc/shadow",),
    masked_dirs=("/etc/ssh",),
    extra_ro=("/run/systemd/resolve/stub-resolv.conf",),
)
LAYOUT = Layout(
    worktree="/work/wt/tkt-1",
    common_dir="/work/repo/.git",
    gitdir="/work/repo/.git/worktrees/tkt-1",
    home="/state/tmp/codex-s",
    home_readonly=("hooks.json", "config.toml"),
    files=(("/home/u/.codex/auth.json", "/oms/home/auth.json"),),
    runtime=("/opt/oms",),
    git_shown=("objects", "refs", "packed-refs", "HEAD"),
)


def _pairs(args: tuple[str, ...], flag: str) -> list[tuple[str, str]]:
    return [(args[i + 1], args[i + 2]) for i, a in enumerate(args) if a == flag]


def _singles(args: tuple[str, ...], flag: str) -> list[str]:
    return [args[i + 1] for i, a in enumerate(args) if a == flag]


def test_namespaces_and_death_with_the_broker() -> None:
    args = bwrap_args(LAYOUT, HOST)
    for flag in (
        "--unshare-user",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--die-with-parent",
    ):
        assert flag in args
    assert "--unshare-net" in args  # its own network: loopback only, by default (ADR 0026)
    assert "--uid" not in args  # not root: the user's own uid inside


def test_only_a_role_that_asked_for_it_shares_the_host_network() -> None:
    assert "--unshare-net" not in bwrap_args(LAYOUT._replace(host_network=True), HOST)


def test_as_root_the_agent_is_never_uid_0_inside() -> None:
    args = bwrap_args(LAYOUT, Host(0, HOST.system))
    assert _singles(args, "--uid") == ["1000"]
    assert _singles(args, "--gid") == ["1000"]


def test_what_is_read_only_and_what_is_writable() -> None:
    args = bwrap_args(LAYOUT, HOST)
    rw = _pairs(args, "--bind")
    ro = _pairs(args, "--ro-bind")
    assert rw == [("/state/tmp/codex-s", HOME_VIEW), ("/work/wt/tkt-1", "/work/wt/tkt-1")]
    assert ("/usr", "/usr") in ro
    assert ("/etc", "/etc") in ro
    assert ("/dev/null", "/etc/shadow") in ro
    assert ("/opt/oms", "/opt/oms") in ro
    assert ("/run/systemd/resolve/stub-resolv.conf",) * 2 in ro
    assert ("/state/tmp/codex-s/hooks.json", f"{HOME_VIEW}/hooks.json") in ro
    assert ("/state/tmp/codex-s/config.toml", f"{HOME_VIEW}/config.toml") in ro
    assert ("/home/u/.codex/auth.json", f"{HOME_VIEW}/auth.json") in ro
    assert ("/work/repo/.git/objects",) * 2 in ro
    assert ("/work/repo/.git/refs",) * 2 in ro
    assert ("/work/repo/.git/worktrees/tkt-1",) * 2 in ro
    assert ("/work/wt/tkt-1/.git",) * 2 in ro
    assert ("usr/bin", "/bin") in _pairs(args, "--symlink")
    # nothing of the state root but the home; no user home, no other worktree
    sources = [s for s, _ in rw + ro]
    assert not any(
        s.startswith("/state") and not s.startswith("/state/tmp/codex-s") for s in sources
    )
    assert not any(s.startswith("/home/u") and s != "/home/u/.codex/auth.json" for s in sources)


def test_only_what_git_needs_of_the_common_dir_is_shown_and_all_of_it_read_only() -> None:
    args = bwrap_args(LAYOUT, HOST)
    assert "/work/repo/.git" in _singles(args, "--tmpfs")  # the common dir is an allow-list
    shown = [s for s, _ in _pairs(args, "--ro-bind") if s.startswith("/work/repo/.git/")]
    assert shown == [
        f"/work/repo/.git/{n}"
        for n in ("objects", "refs", "packed-refs", "HEAD", "worktrees/tkt-1")
    ]
    assert args.index("/work/repo/.git") < args.index("/work/repo/.git/objects")
    full = command_args(args, "/s/d.sock", 3, 4, (5, "/work/repo/.git/config"))
    assert full[-5:] == [
        "--ro-bind-data",
        "5",
        "/work/repo/.git/config",
        "--remount-ro",
        "/work/repo/.git",
    ]
    with pytest.raises(ValueError, match="not shown"):
        bwrap_args(LAYOUT._replace(git_shown=("modules",)), HOST)


def test_placeholders_are_read_only_and_come_after_the_worktree() -> None:
    args = bwrap_args(LAYOUT, HOST)
    worktree_bind = args.index("--bind", args.index("/work/repo/.git/worktrees/tkt-1"))
    for name in PLACEHOLDERS:
        path = f"/work/wt/tkt-1/{name}"
        assert path in _singles(args, "--tmpfs")
        assert path in _singles(args, "--remount-ro")
        assert args.index(path) > worktree_bind
    assert placeholder_paths("/w") == ("/w/.codex", "/w/.claude", "/w/.mcp.json")
    assert args[-2:] == ("--chdir", "/work/wt/tkt-1")


def test_private_tmp_proc_and_dev_come_first() -> None:
    args = bwrap_args(LAYOUT, HOST)
    assert args.index("/tmp") < args.index("/work/wt/tkt-1")
    assert _singles(args, "--proc") == ["/proc"]
    assert "/proc/1" in _singles(args, "--tmpfs")  # the sandbox's init is hidden from the agent
    assert "/proc/1" in _singles(args, "--remount-ro")
    assert _singles(args, "--dev") == ["/dev"]


@pytest.mark.parametrize(
    "change",
    [
        {"worktree": "relative/wt"},
        {"worktree": "/work/wt/../etc"},
        {"worktree": "/"},
        {"home": "/work/wt/tkt-1/home"},
        {"gitdir": "/elsewhere/.git/worktrees/tkt-1"},
        {"common_dir": "/work/wt/tkt-1/.git", "gitdir": "/work/wt/tkt-1/.git/worktrees/x"},
        {"home_readonly": ("../key",)},
        {"runtime": ("rel",)},
        {"files": (("/a\x00b", "/x"),)},
    ],
)
def test_bad_layouts_are_refused(change: dict[str, object]) -> None:
    fields = {
        "worktree": LAYOUT.worktree,
        "common_dir": LAYOUT.common_dir,
        "gitdir": LAYOUT.gitdir,
        "home": LAYOUT.home,
        "home_readonly": LAYOUT.home_readonly,
        "git_shown": LAYOUT.git_shown,
        "files": LAYOUT.files,
        "runtime": LAYOUT.runtime,
    }
    with pytest.raises(ValueError, match=r"must|not"):
        bwrap_args(Layout(**{**fields, **change}), HOST)  # type: ignore[arg-type]


def test_the_broker_socket_is_appended_and_the_command_marked() -> None:
    assert command_args(("--unshare-pid",), "/state/panes/d.sock", 11, 12) == [
        "--unshare-pid",
        "--bind",
        "/state/panes/d.sock",
        BROKER_VIEW,
        "--json-status-fd",
        "11",
        "--seccomp",
        "12",
    ]
    marked = exec_marked(("/usr/bin/codex", "--model", "x y"), 7)
    assert marked[:2] == ["/bin/sh", "-c"]
    assert marked[3:] == ["/usr/bin/codex", "--model", "x y"]
    with pytest.raises(ValueError, match="descriptor"):
        exec_marked(("true",), 2)


def test_the_environment_is_built_never_inherited() -> None:
    host_env = {
        "TERM": "tmux-256color",
        "LANG": "C.UTF-8",
        "HOME": "/root",
        "OMS_STATE_ROOT": "/s",
        "PATH": "/x",
    }
    env = environment(
        host_env, {"CODEX_HOME": HOME_VIEW, "OPENAI_API_KEY": "k"}, ("/opt/node/bin", "/usr/bin")
    )
    assert env["HOME"] == HOME_VIEW
    assert env["TERM"] == "tmux-256color"
    assert env["TMPDIR"] == "/tmp"
    assert env["PATH"] == "/opt/node/bin:" + SANDBOX_PATH
    assert env["OMS_BROKER_SOCKET"] == BROKER_VIEW
    assert "OMS_STATE_ROOT" not in env
    assert env["OPENAI_API_KEY"] == "k"
