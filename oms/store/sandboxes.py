"""The sandbox directory: everything a worker's sandbox is shown from the host, kept outside the
state root (ADR 0026).

A sandbox shows the agent its private home, its broker's socket and its door into the model proxy by
bind mounts, and `/proc/self/mountinfo` names each bind's source path (within its filesystem,
however it is bound). So none of them may live under the state root, whose path would then be the
agent's to read and aim at. They live in one private directory of their own:

    <sandbox dir>/homes/<provider>-<session>/   an agent's home (HOME / CODEX_HOME /
    CLAUDE_CONFIG_DIR) <sandbox dir>/brokers/<dispatch>.sock       a worker's broker (bound at
    /oms/broker.sock) <sandbox dir>/doors/<dispatch>/model.sock   a dispatch's door into the model
    proxy (at /oms/door) <sandbox dir>/oms-sandboxes.json            whose directory this is (the
    state root's key id)

Where it is is decided once, when first needed (`oms init`, or the first launch of an older state
root), and recorded in the state root (`sandboxes.json`): every oms process of that state root finds
the same one. By default it is a new directory beside the state root, `.oms-sandboxes-<random>` (or
`sandboxes-<random>`), so it lives as long as the state root does (across reboots: Codex resumes its
own session from its home) and, being on the same filesystem as a rule, old homes can be moved into
it; `OMS_SANDBOX_DIR` names another place at that first moment. Refused, at creation and at every
open: a path that contains the state root's path as a string (a sandbox would show it), lies inside
the state root or contains it, is not absolute and normalised, passes through a symlink, or is not a
directory the user owns with mode 0700; a directory whose marker names another state root.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Mapping

from oms.canonical import JsonObject, access, equal
from oms.errors import AlreadyExistsError, StateRootError, shown
from oms.fsio import Root
from oms.fsio.outside import is_empty_dir, remove_empty_dirs
from oms.limits import LIMITS
from oms.store import ledger
from oms.store.documents import encode_document, read_document_optional, write_document

RECORD = "sandboxes.json"  # in the state root: where its sandbox directory is
MARKER = "oms-sandboxes.json"  # in the sandbox directory: whose it is
HOMES, BROKERS, DOORS = "homes", "brokers", "doors"
ENV = "OMS_SANDBOX_DIR"  # a place of the user's choosing, read only when the directory is made
DOC_BYTES = LIMITS.state_meta_bytes  # the record and the marker: small metadata documents
NOT_OURS = f"{MARKER} is missing or names another"
DEFAULT_NAMES = (
    ".oms-sandboxes-",
    "sandboxes-",
)  # two first characters: one never repeats the state root


def home_rel(name: str) -> str:
    """An agent home, relative to the sandbox directory."""
    return f"{HOMES}/{name}"


def broker_rel(dispatch_id: str) -> str:
    """A worker's broker socket, relative to the sandbox directory."""
    return f"{BROKERS}/{dispatch_id}.sock"


def door_dir_rel(dispatch_id: str) -> str:
    """A dispatch's door directory into the model proxy, relative to the sandbox directory."""
    return f"{DOORS}/{dispatch_id}"


def problem(path: str, state_path: str) -> str | None:
    """Why `path` cannot be the sandbox directory of the state root at `state_path` (None: it can).
    Pure."""
    if not path.startswith("/") or os.path.normpath(path) != path or path == "/":
        return "is not a normalised absolute path"
    if any(not 0x20 <= ord(c) <= 0x7E for c in path):
        return "has a character that is not printable ASCII"
    for state in dict.fromkeys((state_path, os.path.realpath(state_path))):
        if state in path:
            return f"contains the state root's path {shown(state)} (a sandbox would show it)"
        if state.startswith(path.rstrip("/") + "/"):
            return f"contains the state root {shown(state)}"
    return None


def _check(path: str, state_path: str) -> str:
    why = problem(path, state_path)
    if why is None and os.path.realpath(path) != path:
        why = "passes through a symlink"
    if why is not None:
        raise StateRootError(
            f"sandbox directory {shown(path)} {why}",
            hint=f"choose another place (`{ENV}`, read when the sandbox directory is first made)",
        )
    return path


def _doc(path: str, key_id: str, now: str) -> JsonObject:
    return {"format": 1, "path": path, "key_id": key_id, "created_at": now}


def open_dir(state: Root, key_id: str, now: str, *, env: Mapping[str, str] | None = None) -> Root:
    """The state root's sandbox directory, verified; made (and recorded) if the state root has none
    yet."""
    found = read_document_optional(state, RECORD, "sandbox-dir", DOC_BYTES)
    if found is None:
        return _create(state, key_id, now, os.environ if env is None else env)
    root = _open(found, state.path, key_id)
    try:
        for area in (HOMES, BROKERS, DOORS):
            root.mkdirs(area)
    except BaseException:
        root.close()
        raise
    return root


def open_existing(state: Root, key_id: str) -> Root:
    """The state root's sandbox directory, verified; nothing made or changed (`oms doctor`, `store
    verify`)."""
    found = read_document_optional(state, RECORD, "sandbox-dir", DOC_BYTES)
    if found is None:
        where = shown(state.path)
        raise StateRootError(f"the state root {where} has no sandbox directory ({RECORD})")
    return _open(found, state.path, key_id)


def recorded_path(state: Root) -> str | None:
    """Where the record says the sandbox directory is (unverified; None: none recorded)."""
    found = read_document_optional(state, RECORD, "sandbox-dir", DOC_BYTES)
    return None if found is None else access.text(found, "path")


def _open(doc: JsonObject, state_path: str, key_id: str) -> Root:
    path = _check(access.text(doc, "path"), state_path)
    if not equal(access.text(doc, "key_id"), key_id):
        raise StateRootError(f"{RECORD} names another state root's sandbox directory")
    root = Root.open(path, private=True)  # owner and 0700 checked, the last component never a link
    try:
        marker = read_document_optional(root, MARKER, "sandbox-dir", DOC_BYTES)
        ours = marker is not None and equal(access.text(marker, "key_id"), key_id)
        if not ours or marker is None or marker["path"] != path:
            why = f"is not this state root's ({NOT_OURS})"
            raise StateRootError(f"sandbox directory {shown(path)} {why}")
    except BaseException:
        root.close()
        raise
    return root


def _create(state: Root, key_id: str, now: str, env: Mapping[str, str]) -> Root:
    """Make a new sandbox directory, mark it, and record it (a concurrent maker's record wins: ours
    goes)."""
    chosen = env.get(ENV)
    if chosen:
        path = _check(os.path.abspath(chosen), state.path)
        if os.path.lexists(path) and not is_empty_dir(path):
            hint = f"name a new place in {ENV}"
            raise StateRootError(f"sandbox directory {shown(path)} is not empty", hint=hint)
    else:
        path = _default(state.path)
    root = Root.open(path, private=True, create=True)
    try:
        _check(path, state.path)  # (again, now that it exists: no symlink on the way)
        with contextlib.suppress(AlreadyExistsError):
            write_document(root, MARKER, _doc(path, key_id, now), "sandbox-dir", DOC_BYTES)
        try:
            data = encode_document(_doc(path, key_id, now), "sandbox-dir", RECORD, DOC_BYTES)
            ledger.publish_noted(state, "sandboxes", RECORD, data)  # with its entry (ADR 0027)
        except AlreadyExistsError:  # another process recorded its own first: use that one
            root.unlink(MARKER)
            root.close()
            remove_empty_dirs(os.path.dirname(path), (os.path.basename(path),))
            return open_existing(state, key_id)
        for area in (HOMES, BROKERS, DOORS):
            root.mkdirs(area)
    except BaseException:
        root.close()
        raise
    return root


def _default(state_path: str) -> str:
    """A new name beside the state root whose path does not contain the state root's."""
    parent = os.path.dirname(os.path.realpath(state_path))
    suffix = secrets.token_hex(6)
    for prefix in DEFAULT_NAMES:
        path = os.path.join(parent, prefix + suffix)
        if problem(path, state_path) is None and not os.path.lexists(path):
            return path
    raise StateRootError(
        f"no place beside the state root {shown(state_path)} for its sandbox directory",
        hint=f"set {ENV}",
    )
