"""The sandboxes a repository's checks run in (`oms result verify`, issue 14, ADR 0021) and its
quota probes (`probe_argv`, ADR 0026). Pure: host facts and paths in, bubblewrap's argv out.

Agent-written code is hostile: the checks see the system directories read-only (the /etc secrets
masked, as for workers), the fresh checkout read-write at `CHECK_VIEW`, the directories the config
names under `[verify] show` read-only, and private, bounded `/tmp`; no network (their own namespace:
loopback only), no state root, no home, no repository metadata, no credentials (a cleared
environment); their own PID namespace, so nothing they start outlives them, its init hidden
(`/proc/1` is an empty read-only tmpfs: it holds oms's environment and command line); the workers'
seccomp filter (no keyrings — bubblewrap keeps the caller's session keyring —, no ptrace, no perf);
never uid 0 inside.
"""

from __future__ import annotations

from oms.adapters.sandbox import SANDBOX_PATH, Host, confined

CHECK_VIEW = "/oms/check"
CHECK_HOME = "/tmp"  # noqa: S108 - the sandbox's own private tmpfs


def check_argv(
    bwrap: str,
    host: Host,
    checkout: str,
    show: tuple[str, ...],
    argv: tuple[str, ...],
    seccomp_fd: int,
) -> tuple[str, ...]:
    """bubblewrap's argv running `argv` in `checkout`, under the workers' seccomp filter
    (`seccomp_fd`: no keyrings — the caller's session keyring would be reachable —, no ptrace or
    perf)."""
    for path in (checkout, *show):
        if not path.startswith("/") or "\x00" in path:
            raise ValueError(f"{path[:80]!r} is not an absolute path")
    args = [bwrap, *confined(host, "oms-check")]
    for path in (*host.extra_ro, *show):
        args += ["--ro-bind", path, path]
    args += [
        "--bind",
        checkout,
        CHECK_VIEW,
        "--chdir",
        CHECK_VIEW,
        "--seccomp",
        str(seccomp_fd),
        "--clearenv",
    ]
    for name, value in (
        ("PATH", SANDBOX_PATH),
        ("HOME", CHECK_HOME),
        ("LANG", "C.UTF-8"),
        ("CI", "true"),
    ):
        args += ["--setenv", name, value]
    return (*args, "--", *argv)


def probe_argv(
    bwrap: str,
    host: Host,
    shown: tuple[str, ...],
    argv: tuple[str, ...],
    env: tuple[tuple[str, str], ...],
    seccomp_fd: str,
    *,
    host_network: bool,
) -> tuple[str, ...]:
    """bubblewrap's argv running a quota probe's `argv` (ADR 0026, amendment `probes`): the system
    directories read-only (the /etc secrets masked), `shown` read-only at their own paths (the
    program, the interpreter its `#!` line names, the files its argv names: what a hostile
    repository's committed probe may read, and nothing of the user's home), a private, bounded
    `/tmp` as its home, its own PID namespace (nothing it starts outlives it), the workers' seccomp
    filter (`seccomp_fd`: its descriptor, as text), never uid 0 inside; its own network namespace
    (loopback only) unless the provider's configuration says `quota_probe_network = "host"`, which
    `oms status` and `oms doctor` show as a warning; the environment exactly `env`."""
    for path in shown:
        if not path.startswith("/") or "\x00" in path:
            raise ValueError(f"{path[:80]!r} is not an absolute path")
    args = [bwrap, *confined(host, "oms-probe", network=host_network, cgroup_ns=False)]
    for path in (*host.extra_ro, *shown):
        args += ["--ro-bind", path, path]
    args += ["--chdir", CHECK_HOME, "--seccomp", seccomp_fd, "--clearenv"]
    for name, value in env:
        args += ["--setenv", name, value]
    return (*args, "--", *argv)
