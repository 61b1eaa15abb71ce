"""`oms doctor`: one line per check, OK or FAIL with the fix."""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
from dataclasses import dataclass

from oms.adapters import bwrap, cgroups, cli_models
from oms.adapters.advisor import ADVISOR_ENV
from oms.adapters.advisor import LOGINS as ADVISOR_LOGINS
from oms.adapters.providers import REGISTRY
from oms.adapters.providers.base import Login
from oms.adapters.tools import TOOLS, probe
from oms.domain import notify as notify_rules
from oms.domain import routing
from oms.domain.config import CONFIG_PATH, CREDENTIAL_DEFAULT, Config, Role, is_worker_role
from oms.domain.policy import POLICY_PATH
from oms.domain.proxy import IMPLICIT, UNKNOWABLE
from oms.domain.sandbox_limits import SandboxLimits, unbounded
from oms.errors import OmsError, suppress_faults
from oms.fsio import Root, capabilities
from oms.limits import LIMITS
from oms.process import child_env, is_frozen, landlock
from oms.schemas import SCHEMA_NAMES, schema_source, validator
from oms.services.containment import opt_outs
from oms.services.notify import notices
from oms.services.proxy import control as proxy_control
from oms.services.proxy import credentials as proxy_credentials
from oms.services.workspace import Workspace, launch_paths
from oms.services.workspace.committed import committed_config
from oms.services.workspace.policy import load_tracked
from oms.store import StateRoot, repository, sandboxes
from oms.version import __version__


@dataclass(frozen=True, slots=True)
class Check:
    """One doctor line."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    warn: bool = False  # ok, but worth a look (WARN): it does not fail doctor

    def to_json(self) -> dict[str, object]:
        """Machine form."""
        return {
            "check": self.name,
            "ok": self.ok,
            "warning": self.warn,
            "detail": self.detail,
            "fix": self.fix,
        }


def _oms() -> Check:
    how = "frozen" if is_frozen() else f"python {sys.version.split()[0]}"
    return Check("oms", True, f"{__version__} ({how}, {sys.executable})")


def _schemas() -> Check:
    try:
        for name in SCHEMA_NAMES:
            validator(name)
    except OmsError as exc:
        return Check("schemas", False, exc.message, "reinstall oms")
    return Check("schemas", True, f"{len(SCHEMA_NAMES)} loaded from {schema_source()}")


def _tools() -> list[Check]:
    out = []
    for tool in TOOLS:
        found = probe(tool)
        if found.error is not None:
            out.append(Check(tool.name, False, found.error, tool.install))
        else:
            out.append(
                Check(
                    tool.name,
                    True,
                    f"{found.version} at {found.path} (verified with {tool.verified})",
                )
            )
    return out


def _sandbox() -> list[Check]:
    """Bubblewrap, a real sandbox of a worker's shape, and the kernel facts both rely on."""
    facts = bwrap.kernel_facts()
    kernel = ", ".join(f"{k}={v}" for k, v in facts.items())
    blocked = bwrap.userns_blocked(facts)
    out = [
        Check(
            "kernel",
            blocked is None,
            kernel if blocked is None else f"{kernel}: {blocked}",
            ""
            if blocked is None
            else "enable unprivileged user namespaces (or allow bwrap in AppArmor)",
        )
    ]
    version = landlock.abi()
    out.append(
        Check(
            "landlock",
            version >= landlock.SCOPES_SINCE_ABI,
            f"ABI {version}: abstract sockets and signals scoped to each sandbox"
            if version >= landlock.SCOPES_SINCE_ABI
            else f"ABI {version}: a sandbox can reach the host's abstract Unix sockets",
            ""
            if version >= landlock.SCOPES_SINCE_ABI
            else "Linux 6.12 or newer, with Landlock enabled",
        )
    )
    try:
        path = bwrap.locate()
    except OmsError as exc:
        return [*out, Check("bubblewrap", False, exc.message, bwrap.INSTALL)]
    try:
        bwrap.probe(path)
        release = bwrap.version(path)
    except OmsError as exc:
        return [*out, Check("bubblewrap", False, exc.message, exc.remedy)]
    how = (
        "as root: the agent is uid 1000 in its own user namespace and /etc's private files are "
        "masked; files only root can read in /usr and /opt are not: prefer an ordinary user"
        if facts["euid"] == "0"
        else "user namespaces"
    )
    detail = f"{release} at {path} (verified with {bwrap.VERIFIED}); a test sandbox ran ({how})"
    return [*out, Check("bubblewrap", True, detail)]


UNSAFE_FIX = 'remove cgroup = "unsafe-none" once `oms doctor` shows cgroups OK'


def _cgroups(config_root: str | None, config: Config | None = None) -> list[Check]:
    """A cgroup made and removed as a sandbox's would be (ADR 0025); what the config leaves
    unbounded (`config`: the one the caller read already)."""
    limits, roles = SandboxLimits(), {}
    if config is None and config_root is not None:
        with suppress_faults():  # the config line says why it cannot be read
            config = committed_config(os.path.abspath(config_root))
    if config is not None:
        limits, roles = config.limits, {r: role.limits for r, role in config.roles.items()}
    out = [Check("limits", True, line, UNSAFE_FIX, warn=True) for line in unbounded(limits, roles)]
    try:
        made = cgroups.trial(SandboxLimits())
    except OmsError as exc:
        failed = Check("cgroups", False, f"no cgroup for a sandbox: {exc.message}", exc.remedy)
        return [*out, failed]
    shown = limits.shown() if not limits.unsafe else SandboxLimits().shown()
    return [*out, Check("cgroups", True, f"each sandbox gets its own ({shown}): {made}")]


def _repository(config_root: str | None, outside: OmsError | None) -> Check:
    """The repository oms runs in (ADR 0032)."""
    if outside is not None:
        return Check("repository", False, outside.message, outside.remedy)
    if config_root is None:
        fix = "pass --config-root (the repository oms works on)"
        return Check("repository", False, "none given", fix)
    return Check("repository", True, config_root)


def _served(state: StateRoot, config_root: str | None) -> Check:
    """The state root serves this repository (ADR 0032)."""
    try:
        served = repository.recorded(state.root)
    except OmsError as exc:
        return Check("served repository", False, exc.message, "oms store verify")
    if served is None:
        why = "the state root names no repository (made before oms recorded one)"
        fix = f"oms init --state-root {shlex.quote(state.path)} (in its repository)"
        return Check("served repository", False, why, fix)
    if config_root is not None and served != config_root:
        why = f"the state root serves {served}, not this repository"
        fix = "run oms there, or unset OMS_STATE_ROOT (each repository has its own by default)"
        return Check("served repository", False, why, fix)
    return Check("served repository", True, served)


def _state(state_root: str, config_root: str | None = None) -> tuple[list[Check], str | None]:
    try:
        state = StateRoot.open(state_root)
    except OmsError as exc:
        return [
            Check("state root", False, exc.message, f"oms init --state-root {state_root}")
        ], None
    try:
        state.signer()
        st = os.stat(state.path, follow_symlinks=False)
        detail = (
            f"{state.path} (owner uid {st.st_uid}, mode "
            f"{st.st_mode & 0o777:04o}, key {state.meta.key_id[:16]})"
        )
        checks = [Check("state root", True, detail), _served(state, config_root), _sandboxes(state)]
        return checks, state.path
    except OmsError as exc:
        return [
            Check("state root", False, exc.message, "oms store verify; restore the key or re-init")
        ], None
    finally:
        state.close()


def _sandboxes(state: StateRoot) -> Check:
    """The sandbox directory (ADR 0026): private, the state root's, its path not the state
    root's."""
    try:
        if sandboxes.recorded_path(state.root) is None:
            none = "none yet: made beside the state root at the first launch"
            return Check("sandbox directory", True, none)
        with sandboxes.open_existing(state.root, state.meta.key_id) as found:
            detail = f"{found.path} (private, outside the state root)"
            return Check("sandbox directory", True, detail)
    except OmsError as exc:
        return Check("sandbox directory", False, exc.message, exc.remedy or "oms store verify")


def _probe(state_root: str | None) -> dict[str, str | None] | Check:
    """Probe under the state root's `tmp/` (through fsio: a symlink there is refused, not followed),
    or the system's temporary directory when there is no state root; a Check when it cannot be
    probed."""
    if state_root is None:
        return capabilities.probe(tempfile.gettempdir())
    try:
        with Root.open(state_root) as root, root.dir_fd("tmp") as fd:
            return capabilities.probe_at(fd)
    except OmsError as exc:
        return Check(
            "fsio probes",
            False,
            exc.message,
            "oms store verify; restore the state root's tmp/ directory",
        )
    except OSError as exc:
        where = os.path.join(state_root, "tmp")
        return Check(
            "fsio probes",
            False,
            f"{where}: {(exc.strerror or 'cannot probe').lower()}",
            "oms store verify",
        )


def _capabilities(state_root: str | None) -> list[Check]:
    found = _probe(state_root)
    if isinstance(found, Check):
        return [found]
    fixes = {
        "openat2": (
            "needs Linux >= 5.6 without a seccomp filter on "
            "openat2; oms falls back to an O_NOFOLLOW walk"
        ),
        "renameat2": "needs a filesystem with RENAME_NOREPLACE; oms falls back to link+unlink",
        "o_tmpfile": "needs O_TMPFILE and /proc; oms falls back to named temp files",
    }
    return [
        Check(
            name,
            reason is None,
            "available" if reason is None else f"unavailable: {reason}",
            "" if reason is None else fixes[name],
        )
        for name, reason in found.items()
    ]


def _config(config_root: str | None) -> Check:
    if config_root is None:
        return Check(
            "config",
            False,
            "no config root given",
            "pass --config-root (the repository oms works on)",
        )
    quoted = shlex.quote(os.path.abspath(config_root))
    commit = (
        f"git -C {quoted} add .oms && git -C {quoted} commit "
        f"-m 'oms config' (or: oms init --commit)"
    )
    try:
        committed_config(os.path.abspath(config_root))
        with Root.open(config_root, private=False) as repo:
            if repo.read_optional(CONFIG_PATH, LIMITS.config_bytes) is None:
                return Check(
                    "config", False, f"{os.path.join(config_root, CONFIG_PATH)} is missing", commit
                )
    except OmsError as exc:
        if "not committed" in exc.message:
            return Check("config", False, exc.message, commit)
        redo = f"correct {CONFIG_PATH} as this line says and commit it (oms reads it at HEAD)"
        return Check("config", False, exc.message, exc.remedy or redo)
    return Check(
        "config",
        True,
        os.path.join(os.path.abspath(config_root), CONFIG_PATH) + " (committed at HEAD)",
    )


def _notify(config_root: str | None) -> list[Check]:
    """The person's `[notify]` (ADR 0036 as amended), when there is one; and a repository's
    `[notify]`, which is ignored, with where it moved. Nothing when neither is there."""
    path = notify_rules.settings_path(os.environ)
    out = []
    try:
        found = notices.settings()
    except OmsError as exc:
        fix = exc.remedy or f"correct {path} as this line says"  # its own fix: chmod go-w
        out.append(Check("notify", False, exc.message, fix))
    else:
        if found is not None:
            out.append(Check("notify", True, f"{len(found.commands)} command(s) from {path}"))
    if config_root is not None:
        with suppress_faults():  # the config line says what is wrong with it
            if committed_config(os.path.abspath(config_root)).stale_notify:
                moved = notify_rules.MOVED.format(path=path)
                fix = f"move the [notify] table from {CONFIG_PATH} to {path} and commit its removal"
                out.append(Check("notify", True, moved, fix, warn=True))
    return out


def _host() -> Check:
    """This host's name and where it came from (ADR 0043, amendment `hosts`): its workers carry
    it, and its conductor acts only on theirs."""
    from oms.services.workspace.host import this_host

    try:
        named = this_host()
    except OmsError as exc:
        return Check("host", False, exc.message, exc.remedy)
    return Check("host", True, f"{named.name} (from {named.source})")


def _etcd_tls() -> list[Check]:
    """The person's etcd TLS settings (ADR 0043, amendment `etcdtls`), when there are any: read and
    loaded as a command on an etcd store loads them, so a key readable by others, a CA bundle
    someone else can rewrite or a key that is not the certificate's is named before a command
    needs it. Nothing when there is no such file."""
    from oms.adapters.etcd.client import tls_context
    from oms.services.workspace.backend import client_tls

    try:
        tls = client_tls()
        if tls is None:
            return []
        tls_context(tls)
    except OmsError as exc:
        return [Check("etcd tls", False, exc.message, exc.remedy)]
    parts = (("a CA bundle", tls.ca), ("a client certificate and key", tls.cert))
    named = " and ".join(what for what, given in parts if given is not None) or "nothing"
    return [Check("etcd tls", True, f"{named} from {tls.source}")]


def _store(state_root: str | None, config_root: str | None) -> list[Check]:
    """Where the records are, when the committed `[store]` names a cluster (ADR 0043): the cluster
    opened as a command opens it (its pin, the person's TLS settings, the members) and one read
    of the keys' ledger head, so an unreachable or unpinned cluster is named here rather than by
    the next command. Nothing on files (the state root's line is the store)."""
    from oms.adapters.etcd.store import EtcdStore
    from oms.services.workspace.committed import committed_backend

    if state_root is None or config_root is None:
        return []
    where = os.path.abspath(config_root)
    if committed_backend(where) != "etcd":
        return []
    try:
        with Workspace.open(state_root, where, etcd=True) as ws:
            backend = ws.store.backend
            if not isinstance(backend, EtcdStore):  # (a configuration that cannot be read)
                return [Check("store", False, "[store] names etcd but opens none", "oms doctor")]
            head = backend.chain().moved()
            members = ", ".join(ws.config().store.endpoints)
    except OmsError as exc:
        return [Check("store", False, exc.message, exc.remedy or "see README (a small cluster)")]
    at = f"ledger head at revision {head}" if head else "no ledger entry yet"
    return [Check("store", True, f"etcd at {members} under {backend.prefix}: answers, {at}")]


def _policy(config_root: str | None) -> Check:
    if config_root is None:
        return Check("role policy", False, "no config root given", "pass --config-root")
    try:
        with Root.open(config_root, private=False) as repo:
            policy = load_tracked(os.path.abspath(config_root), repo)
    except OmsError as exc:
        redo = f"correct {POLICY_PATH} as this line says and commit it (oms reads it at HEAD)"
        return Check("role policy", False, exc.message, exc.remedy or redo)
    return Check(
        "role policy",
        True,
        f"committed at HEAD, digest {policy.digest[:16]}, {len(policy.roles)} roles",
    )


def agent_login(role: Role) -> tuple[str, Login | None] | None:
    """The agent CLI `role` runs and how its login is asked — a worker's from its provider's
    registry entry (`Provider.login`), an advisor's from `advisor.LOGINS` — or None: it runs no
    agent CLI (`command`). A login None is a CLI whose login oms does not check."""
    if not is_worker_role(role) and role.transport in ADVISOR_LOGINS:
        found = ADVISOR_LOGINS[role.transport]
        return found.cli, found
    provider = REGISTRY.get(role.transport)
    if provider is None or provider.compatible is None:
        return None
    return provider.compatible[0], provider.login


def _roles(config_root: str | None) -> list[Check]:
    """Each agent role: the CLI's login (the advisor and worker roles in use fail without one, other
    roles warn) unless the role names an endpoint; and its model, as the CLI knows it (retired, or
    not listed)."""
    if config_root is None:
        return []
    try:
        config = committed_config(os.path.abspath(config_root))
    except OmsError:
        return []  # the config line says why
    checks: list[Check] = []
    env = child_env(keep=ADVISOR_ENV)
    codex_listed: list[str] | None = None
    for provider_id, line in opt_outs.probe_opt_outs(config):  # the host's network (ADR 0026)
        fix = f"remove quota_probe_network from [providers.{provider_id}] in {CONFIG_PATH}"
        checks.append(Check(f"containment {provider_id} probe", True, line, fix, warn=True))
    for role_id, role in sorted(config.roles.items()):
        if role.opt_outs:  # containment given up, by the role's own keys (ADR 0026)
            detail = f"{', '.join(role.opt_outs)}: its workers are not contained by default"
            fix = f'remove them from [roles."{role_id}"] in {CONFIG_PATH} unless it needs them'
            checks.append(Check(f"containment {role_id}", True, detail, fix, warn=True))
        agent = agent_login(role)
        if agent is None:
            continue
        cli = agent[0]
        in_use = role_id in (config.advisor_role, config.worker_role)
        checks.append(login(config, role, in_use, env))
        if cli == "codex":
            codex_listed = cli_models.codex_models() if codex_listed is None else codex_listed
            if codex_listed and role.model not in codex_listed:
                checks.append(
                    Check(
                        f"model {role_id}",
                        True,
                        f"codex does not list {role.model} (it lists "
                        f"{', '.join(codex_listed[:6])})",
                        f'set model = "{codex_listed[0]}" under '
                        f'[roles."{role_id}"] in {CONFIG_PATH}',
                        warn=True,
                    )
                )
        elif cli == "claude":
            retired = cli_models.claude_retirement(role.model)
            if retired is not None:
                name, date, past = retired
                checks.append(
                    Check(
                        f"model {role_id}",
                        True,
                        f"Claude Code says {name} {'was' if past else 'will be'} retired on {date}",
                        f'set model = "sonnet" (the latest Sonnet) under '
                        f'[roles."{role_id}"] in {CONFIG_PATH}',
                        warn=True,
                    )
                )
    return checks


PROXY_LOGIN_FIX = {
    "anthropic": "export ANTHROPIC_API_KEY in the environment that starts the conductor or the "
    "worker (the model proxy holds it; a Claude Code login is not handed to workers), or give "
    "the role an `endpoint`",
    "openai": "run `codex login` (or export OPENAI_API_KEY) in the environment that starts the "
    "conductor or the worker (the model proxy holds it), or give the role an `endpoint`",
}


def login(config: Config, role: Role, in_use: bool, env: dict[str, str]) -> Check:
    """The `login <role>` line: can the role's agent reach its model? A worker that goes through
    the model proxy (ADR 0026) needs what the proxy would hold for it, started from this
    environment (`proxy_credentials.missing`, the proxy's own lookup); any other role its CLI's
    own login or an API key, unless it names an endpoint. A role not in use only warns. A missing
    login says "not logged in" (ADR 0031)."""
    name, agent = f"login {role.role_id}", agent_login(role)
    family = routing.family_of(role.transport)
    proxied = is_worker_role(role) and role.credential == CREDENTIAL_DEFAULT
    used = "used" if in_use else "not used by [advisor] or [worker]"
    if agent is None:  # a transport oms knows no CLI of: a finding, never a crash
        detail = f"oms knows no login check for transport {role.transport!r} ({used})"
        fix = f'give [roles."{role.role_id}"] an `endpoint` in {CONFIG_PATH}, or another transport'
        return Check(name, True, detail, fix, warn=True)
    cli, asked = agent
    if proxied and family is not None and not config.routing.providers:
        provider = IMPLICIT[family]
        missing = proxy_credentials.missing({}, provider, role.endpoint, env)
        if missing is None:
            return Check(name, True, f"the model proxy holds a credential for {provider}")
        detail = f"not logged in: the model proxy would hold none for {provider}: {missing}"
        detail += f" ({used})"
        return Check(name, not in_use, detail, PROXY_LOGIN_FIX[family], warn=not in_use)
    if proxied:  # routed to providers: the route decides (`oms route explain`)
        return Check(name, True, "routed to [providers]: `oms route explain` shows each one's key")
    if role.endpoint is not None:
        return Check(name, True, f"{cli} talks to the role's endpoint {role.endpoint}")
    if asked is None:  # its provider declares no login check: said, never guessed
        detail = f"the login of {cli} is not checked: its provider declares no login check ({used})"
        fix = f"log {cli} in as its documentation says, or give the role an `endpoint`"
        return Check(name, True, detail, fix, warn=True)
    missing = cli_models.login_missing(asked, env)
    if missing is None:
        return Check(name, True, f"{cli} is logged in (or has an API key)")
    fix = asked.hint
    return Check(name, not in_use, f"not logged in: {missing} ({used})", fix, warn=not in_use)


def paths(state_root: str, config_root: str | None, config: Config | None = None) -> Check:
    """The paths a launch writes on a command line: printable ASCII (`launch_paths.py`;
    `config`: the one the caller read already)."""
    if config is None and config_root is not None:
        with suppress_faults():  # the config line says why it cannot be read
            config = committed_config(os.path.abspath(config_root))
    found = launch_paths.problems(state_root, config_root, config)
    if not found:
        said = "the state root, worktrees and oms are at printable ASCII paths"
        return Check("paths", True, said)
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return Check("paths", False, found[0].line() + more, found[0].fix)


def proxy(ws: Workspace) -> Check:
    """The model proxy a contained worker's launch reaches (ADR 0026): none running (a launch starts
    one) or one that answers its handshake; a recorded one that fails it, or a record that cannot be
    read, makes every launch wait (none is started beside it)."""
    found = proxy_control.status(ws)
    if found.state in UNKNOWABLE:
        fix = "`oms proxy stop` (a launch then starts its own)"
        return Check("model proxy", False, found.note, fix)
    return Check("model proxy", True, f"{found.state}: {found.note}")


def _proxy_line(state_root: str, config_root: str | None) -> list[Check]:
    if config_root is None:
        return []
    try:
        with Workspace.open(state_root, os.path.abspath(config_root), etcd=True) as ws:
            return [proxy(ws)]
    except OmsError:
        return []  # the state root's or the config's line says why


def launch_checks(state_root: str, config_root: str, config: Config) -> list[Check]:
    """What a launch of the roles in use needs, as `oms doctor` checks it (the conductor asks
    these before any model call: `services/conductor/preflight.py`, ADR 0031): their CLIs,
    bubblewrap, a cgroup (unless the config gives them up), each role's login, the paths."""
    named = (config.advisor_role, config.worker_role)
    in_use = [config.roles[r] for r in named if r in config.roles]
    agents = {r.role_id: agent for r in in_use if (agent := agent_login(r)) is not None}
    clis = {"git", "tmux"} | {cli for cli, _ in agents.values()}
    out = [check for check in _tools() if check.name in clis]
    out += [check for check in _sandbox() if check.name == "bubblewrap"]
    worker = config.roles.get(config.worker_role)
    if not (config.limits.unsafe or (worker is not None and worker.limits.unsafe)):
        out += [check for check in _cgroups(config_root, config) if check.name == "cgroups"]
    env = child_env(keep=ADVISOR_ENV)
    out += [login(config, role, True, env) for role in in_use if role.role_id in agents]
    out.append(paths(state_root, config_root, config))  # the config read once, passed down
    return out


def diagnose(
    state_root: str | None,
    config_root: str | None,
    *,
    outside: OmsError | None = None,
) -> list[Check]:
    """Run every check (none of them changes anything); `outside`: why no repository was found
    at `config_root` (then `state_root` is None unless one was named)."""
    checks = [_oms(), _schemas(), *_tools(), *_sandbox(), *_cgroups(config_root)]
    checks.append(_repository(config_root, outside))
    if state_root is None:
        why = "none named, and oms keeps one per repository (ADR 0032)"
        fix = "run oms in your repository, or pass --state-root"
        checks.append(Check("state root", False, why, fix))
        opened = None
    else:
        state_checks, opened = _state(state_root, None if outside else config_root)
        checks += state_checks
    checks += _capabilities(opened)
    checks.append(_config(config_root))
    checks.append(_policy(config_root))
    checks += _roles(config_root)
    checks += _notify(config_root)
    checks.append(_host())
    checks += _etcd_tls()
    checks += _store(state_root, None if outside else config_root)
    if state_root is not None:
        checks.append(paths(state_root, config_root))
    if state_root is not None and opened is not None and not outside:
        checks += _proxy_line(state_root, config_root)
    return checks
