"""Providers' standing in the store, shared by the fleet, and the route of a dispatch (issue 13, ADR
0019): the IO shell of `domain/routing.py`.

One `provider` record per configured provider holds its cooldown (until, kind, reason, what reported
it) and its last quota reading. A cooldown only ever grows: a shorter one (a transient 429 while a
quota rest runs) never shortens a rest. A quota probe is the provider's configured argv (never a
shell), run by the conductor at most once per provider per tick, for at most 10 s and 4 KiB of
output, in a cgroup of its own with `[limits]` (ADR 0025: a probe that reaches a bound fails, naming
it); its first number is the percent used, none is unknown.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from oms import store
from oms.adapters import bwrap, cgroups, seccomp
from oms.adapters.check_sandbox import CHECK_HOME, probe_argv
from oms.adapters.sandbox import SANDBOX_PATH
from oms.canonical import next_after, parse_ts
from oms.domain import routing as routing_rules
from oms.domain.cgroups import identity
from oms.domain.config import Role
from oms.domain.proxy import DEFAULT_KEY_ENV, IMPLICIT
from oms.domain.sandbox_limits import SandboxLimits
from oms.errors import (
    OmsError,
    ProcessError,
    RecordNotFoundError,
    SandboxUnavailableError,
    VersionConflictError,
    one_line,
)
from oms.limits import LIMITS
from oms.process import data_fd, runner
from oms.schemas.payloads import ProviderPayload
from oms.services.workspace import Workspace
from oms.services.workspace.backend import out_of_reach
from oms.store import Record
from oms.store.payloads import as_json, provider_payload

KIND = "provider"
ACTOR = "oms-conductor"

Probe = Callable[
    [tuple[str, ...]], bytes
]  # runs a probe's argv, returns its stdout (raises OmsError)


SECCOMP_SLOT = "oms-probe-seccomp-fd"  # in a probe's argv: its filter's descriptor (`run_probe`)


def sandboxed(
    ws: Workspace, argv: tuple[str, ...], key_env: str | None, *, host_network: bool = False
) -> tuple[str, ...]:
    """A probe's argv inside bubblewrap (`adapters/check_sandbox.probe_argv`): the system
    directories, its program and the interpreter that runs it read-only (nothing its argv names:
    a committed probe is the repository's, which nobody approved), nothing of the user's home or
    the state root, its own network unless `host_network`, its environment the base one plus the
    provider's key only. A probe shown anything under the state root is refused."""
    program, roots, path_dirs = bwrap.program_roots(argv[0])
    sets = [
        ("PATH", ":".join((*path_dirs, SANDBOX_PATH))),
        ("HOME", CHECK_HOME),
        ("LANG", "C.UTF-8"),
    ]
    if key_env is not None and os.environ.get(key_env):
        sets.append((key_env, os.environ[key_env]))
    if host_network:  # (ADR 0043, amendment `attack-agent`)
        out_of_reach(ws.store.backend, 'a quota probe with quota_probe_network = "host"')
    state = os.path.realpath(ws.store.state.path)
    for path in roots:
        if path == state or path.startswith(state + "/") or state.startswith(path + "/"):
            raise SandboxUnavailableError(f"{path} would show the state root to a quota probe")
    return probe_argv(
        bwrap.locate(), bwrap.host(), roots, (program, *argv[1:]), tuple(sets), SECCOMP_SLOT,
        host_network=host_network,
    )  # fmt: skip


_PROBES = [0]


def run_probe(argv: tuple[str, ...], limits: SandboxLimits | None = None) -> bytes:
    """A probe's stdout: its (sandboxed) argv run outside any shell, bounded in time and output,
    in a cgroup of its own with `limits` (the defaults unless given)."""
    bound = limits or SandboxLimits()
    _PROBES[0] += 1
    group = cgroups.make(identity("probe", f"{os.getpid()}-{_PROBES[0]}"), bound)  # none, no probe
    fds: tuple[int, ...] = ()
    try:
        slot = _seccomp_slot(argv)
        if slot is not None:  # the workers' filter, a descriptor of its own for each run
            fds = (data_fd(seccomp.encode(seccomp.program(os.uname().machine)), "oms-seccomp"),)
            argv = (*argv[:slot], str(fds[0]), *argv[slot + 1 :])
        done = runner.run(
            argv,
            timeout=LIMITS.provider_probe_timeout_s,
            max_output=LIMITS.provider_probe_output_bytes,
            check=False,
            pass_fds=fds,
            confine=group.confinement(bound.file_bytes),
        )
        reached = group.reached()
    finally:
        for fd in fds:
            os.close(fd)
        group.remove()
    shown = argv[argv.index("--") + 1] if "--" in argv else argv[0]
    if reached is not None:
        raise ProcessError(f"{shown} reached its bound (limit: {reached}) and was ended")
    if done.returncode != 0:
        raise ProcessError(
            f"{shown} exited {done.returncode}: {one_line(done.stderr.decode('utf-8', 'replace'))}"
        )
    return done.stdout


def _seccomp_slot(argv: tuple[str, ...]) -> int | None:
    """Where `sandboxed` left the filter's descriptor to be set: the word after bubblewrap's
    `--seccomp`, before the probe's own argv (whose words are never read as ours)."""
    own = argv[: argv.index("--")] if "--" in argv else argv
    for at, word in enumerate(own[:-1]):
        if word == "--seccomp" and own[at + 1] == SECCOMP_SLOT:
            return at + 1
    return None


def standing_of(record: Record | None) -> routing_rules.Standing:
    """What a provider record says (no record: nothing known)."""
    if record is None:
        return routing_rules.Standing()
    p = provider_payload(record)
    return routing_rules.Standing(
        p["cooldown_until"], p["cooldown_kind"], p["cooldown_reason"], p["quota_percent"]
    )


def rest_since_routed(ws: Workspace, provider_id: str, routed_at: str) -> str | None:
    """Why a dispatch routed to `provider_id` at `routed_at` may not be accepted now: the provider
    rests by a rest begun since (`routing.rested_since`: a person's `oms provider rest`, another
    attempt's quota report), else None. The provider's history is read only when it rests now."""
    now = ws.now()
    records = ws.store.records(KIND)
    current = records.read_if_exists(provider_id)
    standing = standing_of(current)
    if current is None or not routing_rules.rests(standing, now):
        return None
    then = None
    for version in records.history(provider_id):
        if parse_ts(version.observed_at) > parse_ts(routed_at):
            break
        then = version
    if not routing_rules.rested_since(standing_of(then), routed_at, standing, now):
        return None
    why = f" ({standing.cooldown_reason})" if standing.cooldown_reason else ""
    return f"provider {provider_id} rests until {standing.cooldown_until}{why}"


def standings(ws: Workspace) -> dict[str, routing_rules.Standing]:
    """Every provider's standing (an unreadable record counts as nothing known: `store verify` names
    it)."""
    return {r.record_id: standing_of(r) for r in ws.store.latest(KIND).records}


def route(ws: Workspace, role: Role, pin: str | None = None) -> routing_rules.Choice:
    """The provider for a dispatch of `role` now (`pin`: a person's explicit choice)."""
    config = ws.config()
    standing = standings(ws)
    return routing_rules.choose(
        config.routing,
        role.transport,
        role.model,
        role.route,
        standing,
        ws.now(),
        pin,
    )


@dataclass(frozen=True, slots=True)
class Change:
    """What to change in a provider's standing (None: leave as it is)."""

    cooldown: routing_rules.Cooldown | None = None
    source: str | None = None
    quota_percent: int | None = None
    probed: bool = False
    probe_note: str | None = None
    clear: bool = False  # end the cooldown now


def _update(ws: Workspace, provider_id: str, change: Change, op: str) -> Record | None:
    """Write the change (created if the provider has no record yet); None if it changed nothing."""
    records = ws.store.records(KIND)

    def decide(current: Record | None) -> store.Change | None:
        standing = standing_of(current)
        payload: ProviderPayload = (
            {**provider_payload(current)} if current is not None else _blank(provider_id, ws.now())
        )
        if change.cooldown is not None:
            if not routing_rules.later(standing, change.cooldown):
                return None
            payload |= {
                "cooldown_until": change.cooldown.until,
                "cooldown_kind": change.cooldown.kind,
                "cooldown_reason": one_line(change.cooldown.reason, 512),
                "cooldown_source": None if change.source is None else one_line(change.source, 200),
            }
        if change.clear:
            if standing.cooldown_until is None:
                return None
            payload |= {
                "cooldown_until": None,
                "cooldown_kind": None,
                "cooldown_reason": None,
                "cooldown_source": None,
            }
        if change.probed:
            payload |= {
                "quota_percent": change.quota_percent,
                "probed_at": ws.now(),
                "probe_note": change.probe_note,
            }
        payload["updated_at"] = ws.now()
        if current is None:
            return store.Change("known", as_json(payload), op, ACTOR, ws.now())
        after = next_after(current.observed_at, ws.now())
        return store.Change("known", as_json(payload), f"{op}-{current.version + 1}", ACTOR, after)

    try:  # another worker's report may land first: decided again on it
        written = records.upsert(provider_id, decide, rounds=LIMITS.record_race_rounds)
    except VersionConflictError:
        return None
    return None if written is None else written.record


def _blank(provider_id: str, now: str) -> ProviderPayload:
    return {
        "provider_id": provider_id,
        "cooldown_until": None,
        "cooldown_kind": None,
        "cooldown_reason": None,
        "cooldown_source": None,
        "quota_percent": None,
        "probed_at": None,
        "probe_note": None,
        "updated_at": now,
    }


def _known(ws: Workspace, provider_id: str) -> bool:
    """A configured provider, or a family's implicit one (the proxy's, for workers not routed)."""
    return provider_id in ws.config().routing.providers or provider_id in IMPLICIT.values()


def rest(ws: Workspace, provider_id: str, cooldown: routing_rules.Cooldown, source: str) -> bool:
    """Put a provider in cooldown, unless it already rests as long; True if this changed its
    standing."""
    if not _known(ws, provider_id):
        raise RecordNotFoundError(
            f"no provider {provider_id} is configured", hint="see `oms route explain`"
        )
    op = f"rest-{cooldown.kind}-{cooldown.until.replace(':', '').replace('.', '').lower()}"
    return _update(ws, provider_id, Change(cooldown=cooldown, source=source), op) is not None


def clear(ws: Workspace, provider_id: str) -> bool:
    """End a provider's cooldown now; True if it was resting."""
    if not _known(ws, provider_id):
        raise RecordNotFoundError(
            f"no provider {provider_id} is configured", hint="see `oms provider show`"
        )
    return (
        _update(
            ws,
            provider_id,
            Change(clear=True),
            f"clear-{ws.now().replace(':', '').replace('.', '').lower()}",
        )
        is not None
    )


def probe_all(ws: Workspace, probe: Probe | None = None) -> tuple[list[str], list[str]]:
    """Run every configured quota probe once (`run_probe` with `[limits]` unless `probe` is given);
    (lines of what was read, lines of what could not be)."""
    if probe is None:
        limits = ws.config().limits
        probe = lambda argv: run_probe(argv, limits)  # noqa: E731
    done: list[str] = []
    skipped: list[str] = []
    for provider_id, provider in ws.config().routing.providers.items():
        if provider.quota_probe is None or not provider.enabled:
            continue
        try:
            argv = sandboxed(
                ws,
                provider.quota_probe,
                provider.key_env or DEFAULT_KEY_ENV.get(provider.family),
                host_network=provider.quota_probe_network == "host",
            )
            percent, note = routing_rules.parse_probe(probe(argv)), None
        except OmsError as exc:
            percent, note = None, one_line(exc.message, 512)
        except (OSError, ValueError) as exc:
            percent, note = None, one_line(f"{type(exc).__name__}: {exc}", 512)
        change = Change(quota_percent=percent, probed=True, probe_note=note)
        try:
            _update(
                ws,
                provider_id,
                change,
                f"probe-{ws.now().replace(':', '').replace('.', '').lower()}",
            )
        except OmsError as exc:
            skipped.append(f"{provider_id}: {one_line(exc.message)}")
            continue
        shown = "unknown" if percent is None else f"{percent}%"
        (skipped if note is not None else done).append(
            f"{provider_id}: quota {shown}" + (f" ({note})" if note is not None else "")
        )
    return done, skipped
