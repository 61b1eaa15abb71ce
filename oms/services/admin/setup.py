"""`oms init`: create (or finish creating) the state root and its key; scaffold the configuration."""

from __future__ import annotations

import os
from dataclasses import dataclass

from oms.canonical import now
from oms.domain.config import CONFIG_PATH, DEFAULT_CONFIG, parse_config
from oms.domain.policy import POLICY_PATH, parse_policy
from oms.errors import AlreadyExistsError, StateRootError, shown
from oms.fsio import Root
from oms.limits import LIMITS
from oms.services.workspace import launch_paths
from oms.services.workspace.policy import default_policy_bytes
from oms.store import StateRoot, sandboxes


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
        }


def _inside(child: str, parent: str) -> bool:
    child, parent = os.path.realpath(child), os.path.realpath(parent)
    return child == parent or child.startswith(parent.rstrip("/") + "/")


def _check_config_root(repo: Root) -> None:
    """Everything `init` would refuse about a config root, checked before anything is created: the files it
    keeps must parse, and where it would create one it must be able to."""
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


def commit_scaffold(config_root: str) -> str | None:
    """Commit `.oms/config.toml` and `.oms/role-policy.json` as they are (what runs comes from HEAD); None
    when HEAD has them already."""
    from oms.adapters import git

    repo = os.path.abspath(config_root)
    paths = (CONFIG_PATH, POLICY_PATH)
    with Root.open(repo, private=False) as root:
        current = {p: root.read_bytes(p, LIMITS.config_bytes) for p in paths}
    committed = git.committed_blobs(repo, paths)
    if all(committed[p] is not None and committed[p][1] == current[p] for p in paths):  # type: ignore[index]
        return None
    return git.commit_paths(repo, paths, "oms: configuration and role policy (oms init --commit)")


def init(state_root: str, config_root: str | None) -> InitResult:
    """Create or verify the state root, then scaffold `.oms/config.toml` under `config_root` if missing.
    Everything that could refuse is checked before anything is created (a refused init changes
    nothing): a state root or an oms a launch could not name on its command line too (ADR 0031)."""
    launch_paths.refuse(state_root, None, None)
    if config_root is not None and _inside(state_root, config_root):
        raise StateRootError(
            f"state root {shown(state_root)} is inside the config root {shown(config_root)}",
            hint="keep the state root outside the repository (agents can write there)",
        )
    if config_root is not None:
        with Root.open(config_root, private=False) as repo:
            _check_config_root(repo)
    chosen = os.environ.get(sandboxes.ENV)
    if chosen:  # refused before anything is made
        why = sandboxes.problem(os.path.abspath(chosen), os.path.abspath(state_root))
        if why is not None:
            hint = "choose another place"
            raise StateRootError(f"{sandboxes.ENV} {shown(chosen)} {why}", hint=hint)
    state, created = StateRoot.create(state_root, now())
    try:
        with sandboxes.open_dir(state.root, state.meta.key_id, now()) as made:
            sandbox_dir = made.path
        result_path: str | None = None
        policy_path: str | None = None
        config_created = policy_created = False
        if config_root is not None:
            with Root.open(config_root, private=False) as repo:
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
        )
    finally:
        state.close()
