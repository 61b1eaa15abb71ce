"""What runs is what HEAD holds: the configuration and the executor instructions as committed (issue
10).

The role policy's digest has always come from HEAD (`services/workspace/policy.py`). The
configuration — every role's model, endpoint, transport, sandbox and argv — and the executor
instructions come from HEAD too, read with object-level git (no filter runs), so an edit in the
working tree after an approval changes nothing that runs. A dispatch binds the role's fields, the
tools the policy grants it and the instructions' digest into its intent; `uncommitted` names what
differs in the working tree, and the authority checks refuse while anything does (a change after
approval, committed or not, parks the worker with the field's name).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from oms.adapters import git
from oms.domain.config import CONFIG_PATH, Config, parse_config, store_backend_named
from oms.domain.policy import POLICY_PATH
from oms.errors import ConfigError, OmsError
from oms.limits import LIMITS

if TYPE_CHECKING:
    from oms.fsio import Root

INSTRUCTIONS_PATH = ".agents/agents/executor.md"
ACTIVATION_TEXT = (
    "You are an oms worker. Call the read_dispatch tool of the oms_worker server, then "
    "acknowledge_dispatch, do the work in this worktree (you cannot commit: oms does), then call "
    "record_dispatch_result."
)
NOT_A_REPOSITORY = "run oms inside the git repository it works on (cd there, or pass --config-root)"
ROLE_FIELDS = ("model", "endpoint", "transport", "sandbox", "argv", "limits")


Head = dict[
    str, "tuple[str, bytes] | None"
]  # what `head_files` read: path -> (object id, bytes) or None


def _not_a_repository(config_root: str, exc: OmsError) -> ConfigError:
    what = f"{config_root} is not a git repository oms can read ({exc.message})"
    return ConfigError(what, hint=NOT_A_REPOSITORY)


def head_files(config_root: str) -> Head:
    """The config, the executor instructions and the role policy at HEAD, read by one git process:
    what one authority check compares (one read of HEAD for all three, not one each)."""
    try:
        return git.committed_blobs(config_root, (CONFIG_PATH, INSTRUCTIONS_PATH, POLICY_PATH))
    except OmsError as exc:
        raise _not_a_repository(config_root, exc) from exc


def _head(config_root: str, rel: str, head: Head | None = None) -> bytes | None:
    if head is not None and rel in head:
        found = head[rel]
    else:
        try:
            found = git.committed_blob(config_root, rel)
        except OmsError as exc:
            raise _not_a_repository(config_root, exc) from exc
    return None if found is None else found[1]


def committed_config(config_root: str, head: Head | None = None) -> Config:
    """The configuration committed at HEAD of `config_root` (`head`: the files at HEAD already read,
    `head_files`)."""
    where = os.path.join(config_root, CONFIG_PATH)
    data = _head(config_root, CONFIG_PATH, head)
    if data is None:
        raise ConfigError(
            f"{where} is not committed at HEAD (what runs comes from HEAD)",
            hint=f"git -C {config_root} add .oms && git -C {config_root} commit -m 'oms config'",
        )
    if len(data) > LIMITS.config_bytes:
        raise ConfigError(f"{where}@HEAD is larger than {LIMITS.config_bytes} bytes")
    return parse_config(data, f"{where}@HEAD")


def committed_backend(config_root: str) -> str:
    """The store backend the configuration committed at HEAD names (`store_backend_named`; one
    git process): "files" when nothing is committed or the repository cannot be read."""
    try:
        data = _head(config_root, CONFIG_PATH)
    except OmsError:
        return "files"
    if data is None or len(data) > LIMITS.config_bytes:
        return "files"
    return store_backend_named(data)


def committed_config_if_any(config_root: str) -> Config | None:
    """`committed_config`, or None when the repository has no committed configuration (or no
    commit yet)."""
    try:
        data = _head(config_root, CONFIG_PATH)
    except OmsError:
        return None
    return None if data is None else committed_config(config_root)


def flatten_instructions(data: bytes | None) -> str:
    """The instructions as one ASCII line (they go on an agent's command line), or oms's default."""
    text = "" if data is None else data[: LIMITS.instructions_bytes].decode("utf-8", "replace")
    flat = " ".join(text.split())
    if flat and not flat.isascii():
        raise ConfigError(
            f"{INSTRUCTIONS_PATH} must be ASCII (it is passed on the agent's command line)"
        )
    return (flat or ACTIVATION_TEXT)[:4096]


def committed_instructions(config_root: str, head: Head | None = None) -> str:
    """The executor instructions committed at HEAD (or oms's default when there are none)."""
    return flatten_instructions(_head(config_root, INSTRUCTIONS_PATH, head))


def uncommitted(config_root: str, repo: Root, head: Head | None = None) -> list[str]:
    """What differs between the working tree and HEAD among what runs: config fields
    (`roles.R.argv`, …), `executor instructions`; empty when the working tree holds exactly what
    HEAD does."""
    found: list[str] = []
    head_config = _head(config_root, CONFIG_PATH, head)
    try:
        working = repo.read_optional(CONFIG_PATH, LIMITS.config_bytes)
    except OmsError:
        working = b"\x00unreadable"
    if working != head_config:
        found += _config_fields(head_config, working)
    head_text = _head(config_root, INSTRUCTIONS_PATH, head)
    try:
        working_text = repo.read_optional(INSTRUCTIONS_PATH, LIMITS.instructions_bytes)
    except OmsError:  # too large, a link, not ours: not what HEAD holds either way
        working_text = b"\x00unreadable"
    if working_text != head_text:
        found.append("executor instructions")
    return found


def _config_fields(head: bytes | None, working: bytes | None) -> list[str]:
    if head is None or working is None:
        return [f"{CONFIG_PATH} ({'added' if head is None else 'deleted'})"]
    try:
        before, after = parse_config(head), parse_config(working)
    except ConfigError:
        return [f"{CONFIG_PATH} (unparseable in the working tree)"]
    fields = [
        f"roles.{role_id}.{name}"
        for role_id in sorted(set(before.roles) | set(after.roles))
        for name in ROLE_FIELDS
        if getattr(before.roles.get(role_id), name, None)
        != getattr(after.roles.get(role_id), name, None)
    ]
    top = ("advisor_role", "worker_role", "max_workers", "lease_minutes", "worktrees_directory")
    fields += [name for name in top if getattr(before, name) != getattr(after, name)]
    return fields or [f"{CONFIG_PATH} (comments or layout)"]
