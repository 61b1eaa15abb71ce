"""`[limits]`: what bounds every sandbox oms starts — a worker's, a check's, a quota probe's (issue
23, ADR 0025). Pure: a validated config table in, the bounds out.

Each sandbox gets a cgroup of its own (`domain/cgroups.py`) with a pids limit, a memory limit (never
swap) and a CPU weight; every process in it a largest file (RLIMIT_FSIZE); and a worker's worktree
and private home (a check's checkout) a disk bound that a watchdog measures. A role may override any
key under `[roles."<id>".limits]`; what a worker's role gets is part of its dispatch's approved
intent (`role_limits`). The defaults are what a laptop survives with two workers:

- `pids` 2048: the pids controller counts threads, and a Node CLI (Codex, Claude Code) runs dozens
  of them, a build a few hundred processes; a fork bomb stops there instead of at the host's
  pid_max;
- `memory_bytes` 4 GiB: an agent CLI takes a few hundred MiB, a compiler or a test run a few GiB;
  two workers at their bound leave a 16 GiB laptop usable. Their `/tmp` tmpfs pages count too;
- `cpu_weight` 50: half a default share, so oms's own processes (the broker, the hooks' relays, the
  CLI) stay responsive while workers spin;
- `disk_bytes` 10 GiB for the worktree and the home together, `file_bytes` 4 GiB for any one file.

`cgroup = "unsafe-none"` is the one way to run without a cgroup (where none can be had); it is part
of the approved intent and `oms doctor` and `oms status` show it as a warning.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

from oms.canonical import JsonObject
from oms.errors import ConfigError
from oms.limits import LIMITS

GIB = 1024 * 1024 * 1024
FILE_IN_DISK = "a file is part of the disk"
REQUIRED = "required"
UNSAFE_NONE = "unsafe-none"
NO_BOUND = "no pids, memory or CPU bound"


@dataclass(frozen=True, slots=True)
class SandboxLimits:
    """The bounds of one sandbox (the keys of `[limits]`)."""

    pids: int = LIMITS.sandbox_pids
    memory_bytes: int = LIMITS.sandbox_memory_bytes
    cpu_weight: int = LIMITS.sandbox_cpu_weight
    disk_bytes: int = LIMITS.sandbox_disk_bytes
    file_bytes: int = LIMITS.sandbox_file_bytes
    cgroup: str = REQUIRED

    @property
    def unsafe(self) -> bool:
        """No cgroup: neither pids, memory nor CPU is bounded."""
        return self.cgroup == UNSAFE_NONE

    def to_json(self) -> JsonObject:
        """The intent's and the launch spec's form (schema `sandbox_limits`)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def shown(self) -> str:
        """One line for people."""
        if self.unsafe:
            files, disk = _size(self.file_bytes), _size(self.disk_bytes)
            return f"no cgroup (unsafe-none), file {files}, disk {disk}"
        return (
            f"pids {self.pids}, memory {_size(self.memory_bytes)}, cpu weight {self.cpu_weight}, "
            f"disk {_size(self.disk_bytes)}, file {_size(self.file_bytes)}"
        )


KEYS = tuple(f.name for f in fields(SandboxLimits))


def from_json(doc: Mapping[str, object]) -> SandboxLimits:
    """The bounds of a schema-valid `sandbox_limits` document (a launch spec's, an intent's)."""
    return _apply(SandboxLimits(), doc, "sandbox limits")


def parse(table: object, where: str, base: SandboxLimits | None = None) -> SandboxLimits:
    """`[limits]` (or a role's override of `base`) of a schema-valid config; `ConfigError` names
    `where` when the largest file is above the disk bound."""
    return _apply(base or SandboxLimits(), table if isinstance(table, dict) else {}, where)


def _apply(base: SandboxLimits, table: Mapping[str, object], where: str) -> SandboxLimits:
    out = base
    for key in KEYS:
        value = table.get(key)
        if value is None:
            continue
        wanted = str if key == "cgroup" else int
        if not isinstance(value, wanted) or isinstance(value, bool):
            raise ConfigError(f"{where}: {key} must be {'text' if wanted is str else 'an integer'}")
        out = replace(out, **{key: value})  # type: ignore[arg-type]
    if out.cgroup not in (REQUIRED, UNSAFE_NONE):
        got = out.cgroup[:40]
        raise ConfigError(f"{where}: cgroup must be {REQUIRED} or {UNSAFE_NONE} (got {got!r})")
    if out.file_bytes > out.disk_bytes:
        above = f"file_bytes {out.file_bytes} is above disk_bytes {out.disk_bytes}"
        raise ConfigError(f"{where}: {above}: {FILE_IN_DISK}")
    return out


def unbounded(base: SandboxLimits, roles: dict[str, SandboxLimits]) -> list[str]:
    """What runs with no cgroup, one line each (`oms doctor` and `oms status` warn of it)."""
    out = []
    if base.unsafe:
        out.append(f"[limits] cgroup = {UNSAFE_NONE!r}: checks and quota probes have {NO_BOUND}")
    out += [
        f"role {role_id}: cgroup = {UNSAFE_NONE!r}: its workers have {NO_BOUND}"
        for role_id, limits in sorted(roles.items())
        if limits.unsafe
    ]
    return out


def _size(n: int) -> str:
    for unit, scale in (("GiB", GIB), ("MiB", 1024 * 1024), ("KiB", 1024)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} bytes"
