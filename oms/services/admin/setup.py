"""`oms init`: create (or finish creating) the state root and its key; scaffold the
configuration."""

from __future__ import annotations

import os
from dataclasses import dataclass

from oms.canonical import now
from oms.domain.config import CONFIG_PATH, DEFAULT_CONFIG, parse_config
from oms.domain.policy import POLICY_PATH, parse_policy
from oms.errors import (
    AlreadyExistsError,
    GitIdentityError,
    InvalidInputError,
    NotARepositoryError,
    OmsError,
    OtherRepositoryError,
    StateRootError,
    shown,
)
from oms.fsio import Root
from oms.limits import LIMITS
from oms.services.workspace import launch_paths
from oms.services.workspace.policy import default_policy_bytes
from oms.store import StateRoot, repository, sandboxes


@dataclass(frozen=True, slots=True)
class InitResult:
    """What `init` did."""

    state_root: str
    state_created: bool
    key_id: str
    config_path: str | None
    config_created: bool
    policy_path: str | None = None
    policy_created: bool = False
    committed: str | None = None  # the commit `--commit` made of .oms/ (None: none made)
    sandbox_dir: str | None = None  # what sandboxes are shown, outside the state root (ADR 0026)
    repository_root: str | None = None  # the repository the state root serves (ADR 0032)

    def to_json(self) -> dict[str, object]:
        """Machine form."""
        return {
            "state_root": self.state_root,
            "state_created": self.state_created,
            "key_id": self.key_id,
            "config_path": self.config_path,
            "config_created": self.config_created,
            "policy_path": self.policy_path,
            "policy_created": self.policy_created,
            "committed": self.committed,
            "sandbox_dir": self.sandbox_dir,
            "repository_root": self.repository_root,
        }


def _inside(child: str, parent: str) -> bool:
    child, parent = os.path.realpath(child), os.path.realpath(parent)
    return child == parent or child.startswith(parent.rstrip("/") + "/")


def _check_config_root(repo: Root) -> None:
    """Everything `init` would refuse about a config root, checked before anything is created: the
    files it keeps must parse, and where it would create one it must be able to."""
    missing = False
    for rel, cap, parse in (
        (CONFIG_PATH, LIMITS.config_bytes, parse_config),
        (POLICY_PATH, LIMITS.policy_bytes, parse_policy),
    ):
        data = repo.read_optional(rel, cap)
        if data is None:
            missing = True
        else:
            parse(data, os.path.join(repo.path, rel))
    where = os.path.dirname(CONFIG_PATH) if repo.exists(os.path.dirname(CONFIG_PATH)) else ""
    if missing and not repo.writable(where):
        raise StateRootError(
            f"cannot create files in {shown(os.path.join(repo.path, where))}: permission denied",
            hint="run oms init as a user who may write to the repository",
        )


def committer(config_root: str, stated: str | None) -> tuple[tuple[str, str], bool]:
    """Who `oms init --commit` commits as — `stated` (`Name <email>`, its `--author`), else the
    person git knows in the repository — and whether to keep them in the repository's git config
    (git knows no one there yet: then git's own commits and `oms result merge` find them).
    `GitIdentityError` when neither says who (ADR 0032)."""
    from oms.adapters import git

    known = git.known_person(config_root)
    if stated is None:
        if known is None:
            say = 'oms init --commit --author "Your Name <you@example.com>"'
            hint = f"say it: {say} (kept in the repository's git config), or set git's user.name"
            why = "git does not know who you are, and `oms init --commit` commits as you"
            raise GitIdentityError(why, hint=f"{hint} and user.email")
        return known, False
    person = git.parse_person(stated)
    if person is None:
        raise InvalidInputError(
            f"--author {shown(stated)} is not 'Your Name <you@example.com>'",
            hint='oms init --commit --author "Your Name <you@example.com>" (a name, then an '
            "address in angle brackets)",
        )
    return person, known is None


def commit_scaffold(config_root: str, person: tuple[str, str], keep: bool = False) -> str | None:
    """Commit `.oms/config.toml` and `.oms/role-policy.json` as they are, as `person` (what runs
    comes from HEAD); None when HEAD has them already. `keep`: set `person` as the repository's git
    identity first (`committer`)."""
    from oms.adapters import git

    repo = os.path.abspath(config_root)
    if keep:
        git.keep_person(repo, person)
    paths = (CONFIG_PATH, POLICY_PATH)
    with Root.open(repo, private=False) as root:
        current = {p: root.read_bytes(p, LIMITS.config_bytes) for p in paths}
    committed = git.committed_blobs(repo, paths)
    held = [committed[p] for p in paths]
    if all(blob is not None and blob[1] == current[p] for p, blob in zip(paths, held, strict=True)):
        return None
    message = "oms: configuration and role policy (oms init --commit)"
    return git.commit_paths(repo, paths, message, person)


def _check_served(state_root: str, top: str) -> None:
    """An existing state root that serves another repository is refused (ADR 0032)."""
    try:
        state = StateRoot.open(state_root)
    except OmsError:
        return  # none yet, or not one: `StateRoot.create` makes it or says why
    try:
        served = repository.recorded(state.root)
    finally:
        state.close()
    if served is not None and served != top:
        where = shown(state_root)
        raise OtherRepositoryError(
            f"the state root {where} serves the repository {shown(served)} (this is {shown(top)})",
            hint="give this repository its own state root (by default each has one: unset "
            "OMS_STATE_ROOT, or pass --state-root)",
        )


def _check_socket_room(state_root: str) -> None:
    """oms's tmux server listens at `<state root>/tmux.sock`, and tmux takes that path whole into
    an AF_UNIX address (`Limits.tmux_socket_path_bytes`): a longer one could never start a pane."""
    sock = os.path.join(os.path.abspath(state_root), "tmux.sock")
    size = len(sock.encode("utf-8", "surrogateescape"))
    if size > LIMITS.tmux_socket_path_bytes:
        most = LIMITS.tmux_socket_path_bytes
        why = f"its tmux socket's path would be {size} bytes (at most {most})"
        hint = "choose a shorter state root (--state-root, OMS_STATE_ROOT)"
        raise StateRootError(f"state root {shown(state_root)} is too long: {why}", hint=hint)


def init(state_root: str, config_root: str) -> InitResult:
    """Create or verify the state root for the repository whose top level is `config_root` (recorded
    as the one it serves: ADR 0032), then scaffold `.oms/config.toml` there if missing. Everything
    that could refuse is checked before anything is created (a refused init changes nothing): a
    state root or an oms a launch could not name on its command line too (ADR 0031)."""
    from oms.adapters import git

    launch_paths.refuse(state_root, None, None)
    top = git.repository_top(config_root)
    if top != os.path.realpath(config_root):
        where = shown(config_root)
        raise NotARepositoryError(f"{where} is not the top of its repository ({shown(top)} is)")
    if _inside(state_root, top):
        raise StateRootError(
            f"state root {shown(state_root)} is inside the config root {shown(top)}",
            hint="keep the state root outside the repository (agents can write there)",
        )
    _check_served(state_root, top)
    _check_socket_room(state_root)
    with Root.open(top, private=False) as repo:
        _check_config_root(repo)
    chosen = os.environ.get(sandboxes.ENV)
    if chosen:  # refused before anything is made
        why = sandboxes.problem(os.path.abspath(chosen), os.path.abspath(state_root))
        if why is not None:
            hint = "choose another place"
            raise StateRootError(f"{sandboxes.ENV} {shown(chosen)} {why}", hint=hint)
    state, created = StateRoot.create(state_root, now())
    try:
        if repository.record(state.root, top, now()) != top:  # another `oms init` came first
            _check_served(state_root, top)
        with sandboxes.open_dir(state.root, state.meta.key_id, now()) as made:
            sandbox_dir = made.path
        config_created = policy_created = False
        with Root.open(top, private=False) as repo:
            result_path = os.path.join(repo.path, CONFIG_PATH)
            policy_path = os.path.join(repo.path, POLICY_PATH)
            repo.mkdirs(os.path.dirname(CONFIG_PATH))
            try:
                repo.publish(CONFIG_PATH, DEFAULT_CONFIG.encode("utf-8"), mode=0o644)
                config_created = True
            except AlreadyExistsError:
                parse_config(repo.read_bytes(CONFIG_PATH, LIMITS.config_bytes), result_path)
            try:
                repo.publish(POLICY_PATH, default_policy_bytes(), mode=0o644)
                policy_created = True
            except AlreadyExistsError:
                parse_policy(repo.read_bytes(POLICY_PATH, LIMITS.policy_bytes), policy_path)
        return InitResult(
            state.path,
            created,
            state.meta.key_id,
            result_path,
            config_created,
            policy_path,
            policy_created,
            sandbox_dir=sandbox_dir,
            repository_root=top,
        )
    finally:
        state.close()
