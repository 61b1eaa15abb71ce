"""The files of a worker's pane: `panes/<dispatch>.*` in the state root — every name, and the three
documents delivery, `oms worker stop` and the pane's supervisor leave for each other (ADR 0009,
0012).

- `<dispatch>.json` (`pane-registry`): which tmux pane (id, pid = its process group) delivery
  started for the dispatch. Written once the pane exists; lets `observe` end a worker whose pane is
  gone.
- `<dispatch>.kill.json` (`kill-marker`): `oms worker stop` leaves it before it kills the pane, so
  that the end is recorded as `stopped` (by whom, why) and not as the signal the kill caused.
- `<dispatch>.exit.json` (`pane-exit`): the supervisor's record of how the agent ended, published
  once per pane. Delivery clears it whenever it starts a new pane (there is no live one): only the
  current pane's end is trusted, never an earlier pane's.
- `<dispatch>.begun.json` (`launch-begun`): a first launch leaves it before it creates the pane, and
  nothing removes it but `stop`: a launch that finds it, with no session and no live pane, knows an
  earlier launch may have started the agent (its deliverer died before the session was registered)
  and parks the worker for `oms worker resume` instead of starting it a second time (ADR 0014).
- `<dispatch>.launch.json` (`launch-spec`, `services/delivery/spec.py`), `<dispatch>.log` (the
  broker's log), `<dispatch>.init.json` (`sandbox-init`, `services/containment/reaper.py`). The
  broker's socket is in the sandbox directory (`store/sandboxes.py`, ADR 0026); a `<dispatch>.sock`
  here is an older oms's.

Nothing else spells these names: `store verify` classifies the directory with `schema_of`.
"""

from __future__ import annotations

import contextlib

from oms.canonical import JsonObject, check
from oms.canonical.ids import OPAQUE_ID
from oms.errors import AlreadyExistsError, NotFoundError, OmsError
from oms.fsio import Root
from oms.limits import LIMITS
from oms.store.documents import encode_document, read_document_optional

PANES_DIR = "panes"
REGISTRY, KILL, EXIT = ".json", ".kill.json", ".exit.json"
SPEC, INIT, SOCKET, LOG, BEGUN = ".launch.json", ".init.json", ".sock", ".log", ".begun.json"
SCHEMAS = (  # longest suffix first: `.json` also ends the others
    (KILL, "kill-marker"),
    (SPEC, "launch-spec"),
    (BEGUN, "launch-begun"),
    (INIT, "sandbox-init"),
    (EXIT, "pane-exit"),
    (REGISTRY, "pane-registry"),
)


def _path(dispatch_id: str, suffix: str) -> str:
    return f"{PANES_DIR}/{check(dispatch_id, 'dispatch id')}{suffix}"


def registry_path(dispatch_id: str) -> str:
    """The pane registry of `dispatch_id`, relative to the state root."""
    return _path(dispatch_id, REGISTRY)


def kill_path(dispatch_id: str) -> str:
    """The kill marker of `dispatch_id`."""
    return _path(dispatch_id, KILL)


def exit_path(dispatch_id: str) -> str:
    """Where the supervisor records the end of `dispatch_id`'s sandbox."""
    return _path(dispatch_id, EXIT)


def spec_path(dispatch_id: str) -> str:
    """The launch spec of `dispatch_id`."""
    return _path(dispatch_id, SPEC)


def begun_path(dispatch_id: str) -> str:
    """Where a first launch records that it began, before its pane."""
    return _path(dispatch_id, BEGUN)


def init_path(dispatch_id: str) -> str:
    """Where the supervisor records its sandbox's init."""
    return _path(dispatch_id, INIT)


def log_path(dispatch_id: str) -> str:
    """The broker's log of `dispatch_id`."""
    return _path(dispatch_id, LOG)


def schema_of(name: str) -> str | None:
    """The schema of a document in `panes/` by its name (None: not a pane document)."""
    for suffix, schema in SCHEMAS:
        if name.endswith(suffix) and OPAQUE_ID.fullmatch(name[: -len(suffix)]):
            return schema
    return None


def is_broker_socket(path: str) -> bool:
    """`panes/<dispatch>.sock`, a worker broker's socket as an older oms made it (relative to the
    state root; ADR 0026 moved them to the sandbox directory)."""
    head, _, name = path.partition("/")
    return (
        head == PANES_DIR
        and name.endswith(SOCKET)
        and OPAQUE_ID.fullmatch(name[: -len(SOCKET)]) is not None
    )


def is_broker_log(name: str) -> bool:
    """`<dispatch>.log` in `panes/`, a worker broker's log."""
    return name.endswith(LOG) and OPAQUE_ID.fullmatch(name[: -len(LOG)]) is not None


def _leave_first(root: Root, rel: str, doc: JsonObject, schema: str) -> None:
    """Publish `doc` at `rel` unless a document is there already (the first one stays)."""
    root.mkdirs(PANES_DIR)
    if not root.exists(rel):
        with contextlib.suppress(
            AlreadyExistsError
        ):  # another writer was first: its document stays
            root.publish(rel, encode_document(doc, schema, rel, LIMITS.pane_file_bytes))


def _drop(root: Root, rel: str) -> None:
    with contextlib.suppress(NotFoundError):
        root.unlink(rel)


# ---------------------------------------------------------------------- the registry
def read_registry(root: Root, dispatch_id: str) -> JsonObject | None:
    """The pane registry, if there is one (a damaged one raises)."""
    return read_document_optional(
        root, registry_path(dispatch_id), "pane-registry", LIMITS.pane_file_bytes
    )


def write_registry(root: Root, doc: JsonObject) -> bool:
    """Register a pane (replacing an earlier pane's registry); False when this pane is registered
    already — the same pane id *and* process (a new tmux server numbers its panes from `%0` again).
    A registry that cannot be read raises: it is not replaced unread."""
    dispatch_id = str(doc["dispatch_id"])
    rel = registry_path(dispatch_id)
    existing = read_registry(root, dispatch_id)
    if existing is not None and (existing["pane_id"], existing["pane_pid"]) == (
        doc["pane_id"],
        doc["pane_pid"],
    ):
        return False
    if existing is not None:
        root.unlink(rel)
    root.mkdirs(PANES_DIR)
    root.publish(rel, encode_document(doc, "pane-registry", rel, LIMITS.pane_file_bytes))
    return True


def drop_registry(root: Root, dispatch_id: str) -> None:
    """Forget the pane registry (none is fine)."""
    _drop(root, registry_path(dispatch_id))


# ---------------------------------------------------------------------- the kill marker
def read_kill(root: Root, dispatch_id: str) -> JsonObject | None:
    """The kill marker, if `oms worker stop` left one."""
    return read_document_optional(
        root, kill_path(dispatch_id), "kill-marker", LIMITS.pane_file_bytes
    )


def leave_kill(root: Root, doc: JsonObject) -> None:
    """Leave a kill marker (the first one stays: it says who stopped the worker first)."""
    _leave_first(root, kill_path(str(doc["dispatch_id"])), doc, "kill-marker")


def drop_kill(root: Root, dispatch_id: str) -> None:
    """Remove the kill marker (none is fine)."""
    _drop(root, kill_path(dispatch_id))


# ---------------------------------------------------------------------- the exit record
def read_exit(root: Root, dispatch_id: str) -> JsonObject | None:
    """The supervisor's exit record of the current pane, if it has ended and recorded it."""
    return read_document_optional(root, exit_path(dispatch_id), "pane-exit", LIMITS.pane_file_bytes)


def write_exit(root: Root, doc: JsonObject) -> None:
    """Publish a supervisor's exit record, once per pane: a record its own pane (`pane_pid`)
    published first stays, and so does a later pane's (`pane_started`); one an earlier pane left
    (another `pane_pid`, none, or unreadable) is replaced, so it is never taken for this pane's end
    (ADR 0014, GAP_STALE_EXIT and GAP_LATE_EXIT)."""
    dispatch_id = str(doc["dispatch_id"])
    rel = exit_path(dispatch_id)
    data = encode_document(doc, "pane-exit", rel, LIMITS.pane_file_bytes)
    root.mkdirs(PANES_DIR)
    try:
        root.publish(rel, data)
        return
    except AlreadyExistsError:
        pass
    try:
        existing = read_exit(root, dispatch_id)
    except OmsError:
        existing = None  # damaged: not this pane's
    if existing is not None and existing.get("pane_pid") == doc.get("pane_pid"):
        return
    if existing is not None and _started(existing) > _started(doc):
        # a later pane's record: an earlier pane's supervisor, ending late, never replaces it
        return
    _drop(root, rel)
    with contextlib.suppress(AlreadyExistsError):
        root.publish(rel, data)


def _started(doc: JsonObject) -> int:
    started = doc.get("pane_started")
    return started if isinstance(started, int) else -1


def clear_exit(root: Root, dispatch_id: str) -> None:
    """Forget an earlier pane's exit record: a new pane is starting, and only its own end is
    trusted."""
    _drop(root, exit_path(dispatch_id))


# ---------------------------------------------------------------------- the launch begun
def read_begun(root: Root, dispatch_id: str) -> JsonObject | None:
    """The record that a first launch of the worker began, if one did (a damaged one raises)."""
    return read_document_optional(
        root, begun_path(dispatch_id), "launch-begun", LIMITS.pane_file_bytes
    )


def leave_begun(root: Root, doc: JsonObject) -> None:
    """Record that a first launch begins (the first record stays: it names the launch that began
    first)."""
    _leave_first(root, begun_path(str(doc["dispatch_id"])), doc, "launch-begun")


def drop_begun(root: Root, dispatch_id: str) -> None:
    """Forget that a launch began (none is fine): only once the worker has ended."""
    _drop(root, begun_path(dispatch_id))
