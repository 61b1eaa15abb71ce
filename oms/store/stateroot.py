"""The state root: its layout, its metadata file and its signing key (SECURITY.md, Threat model).

`create` is idempotent and crash-safe: it makes the private directories, then the key (once), then
`oms-state.json`, which marks the root as initialised. `open` refuses a root that is missing, not
private, a symlink, inside a git worktree, or not initialised.
"""

from __future__ import annotations

import os
from typing import NamedTuple

from oms.canonical import JsonObject, access, check, equal
from oms.canonical.ids import folder_label
from oms.errors import (
    AlreadyExistsError,
    InvalidInputError,
    NotFoundError,
    OmsError,
    StateRootError,
    shown,
)
from oms.fsio import FsioOptions, Root, enclosing_git
from oms.limits import LIMITS
from oms.store import keys, ledger
from oms.store.documents import read_document_optional, write_document

META = "oms-state.json"
KEY = "keys/state.ed25519"
LAYOUT = (
    "keys",
    "records",
    "events",
    "outbox",
    "evidence",
    "journals",
    "tickets",
    "worktree-records",
    "panes",
    "tmp",
)
# oms's own tmux server reads this when it starts: options only, never commands.
TMUX_CONF = (
    "set -g remain-on-exit on\n"
    "set -g default-shell /bin/sh\n"
    "set -g focus-events on\n"
    "set -g history-limit 5000\n"
    "set -g default-terminal tmux-256color\n"
)
RECORD_KINDS = ("authorization", "dispatch", "pool", "provider", "session", "ticket", "worker")


class StateMeta(NamedTuple):
    """What `oms-state.json` says."""

    created_at: str
    public_key: bytes
    key_id: str


def default_state_root(
    env: dict[str, str] | os._Environ[str] | None = None,
    repository: str | None = None,
) -> str:
    """`$OMS_STATE_ROOT`, else one per repository (ADR 0032): `<base>/<name>-<tag>` for the
    repository whose top level is `repository`, `<base>` being `$XDG_STATE_HOME/oms`, else
    `~/.local/state/oms` — unless `<base>` is itself a state root (oms's default before it had one
    per repository), which stays the default. `<base>` alone when no repository is given."""
    source = os.environ if env is None else env
    if source.get("OMS_STATE_ROOT"):
        return source["OMS_STATE_ROOT"]
    home = source.get("HOME") or os.path.expanduser("~")
    xdg = source.get("XDG_STATE_HOME") or os.path.join(home, ".local", "state")
    base = os.path.join(xdg, "oms")
    if repository is None or os.path.lexists(os.path.join(base, META)):
        return base
    return os.path.join(base, folder_label(repository, tagged=True))


def left_behind(base: str) -> list[tuple[str, str]]:
    """The state roots in `base` (where the default ones are made) that serve a repository no
    longer at its path — moved, renamed or removed (ADR 0032): (state root, the path it serves)."""
    from oms.store import repository  # (it needs nothing of this module)

    try:
        names = sorted(os.listdir(base))[: LIMITS.left_behind_roots]
    except OSError:
        return []
    found = []
    for name in names:
        path = os.path.join(base, name)
        try:
            with Root.open(path, private=True) as root:
                served = repository.recorded(root)
        except OmsError:  # not a state root, or not one to read: not this one
            continue
        if served is not None and not os.path.isdir(served):
            found.append((path, served))
    return found


def _refuse_inside_worktree(path: str) -> None:
    repo = enclosing_git(path)
    if repo is not None:
        raise StateRootError(
            f"state root {shown(path)} is inside the git worktree {shown(repo)}",
            hint=(
                "choose a state root outside every repository and worktree (agents can write there)"
            ),
        )


def parse_meta(doc: JsonObject) -> StateMeta:
    """The metadata of a validated `oms-state.json` (its key id must match its public key)."""
    public = keys.b64decode(access.text(doc, "public_key"), META)
    kid = access.text(doc, "key_id")
    if len(public) != 32 or not equal(keys.key_id(public), kid):
        raise StateRootError(f"{META}: key_id does not match public_key")
    return StateMeta(access.text(doc, "created_at"), public, kid)


class StateRoot:
    """An opened, initialised state root."""

    def __init__(self, root: Root, meta: StateMeta) -> None:
        self.root = root
        self.meta = meta
        self._signer: keys.SigningKey | None = None

    @property
    def path(self) -> str:
        """The absolute path of the state root."""
        return self.root.path

    @classmethod
    def create(
        cls, path: str, now: str, *, options: FsioOptions | None = None
    ) -> tuple[StateRoot, bool]:
        """Create (or finish creating) a state root; returns it and whether anything was created."""
        absolute = os.path.abspath(path)
        _refuse_inside_worktree(absolute)
        root = Root.open(absolute, private=True, create=True, options=options)
        try:
            created = False
            for name in LAYOUT:
                if not root.exists(name):
                    created = True
                root.mkdirs(name)
            if not root.exists(KEY):
                _, seed = keys.SigningKey.generate()
                try:
                    root.publish(KEY, seed, mode=0o600)
                    created = True
                except AlreadyExistsError:
                    pass  # a concurrent init won; use its key
            seed = root.read_secret(KEY, keys.SEED_BYTES)
            signer = keys.SigningKey(seed)
            public = signer.public_raw()
            doc = read_document_optional(root, META, "state-meta", LIMITS.state_meta_bytes)
            if doc is None:
                meta_doc: JsonObject = {
                    "format": "oms-state-v1",
                    "created_at": now,
                    "public_key": keys.b64encode(public),
                    "key_id": keys.key_id(public),
                }
                try:
                    write_document(root, META, meta_doc, "state-meta", LIMITS.state_meta_bytes)
                    created = True
                except AlreadyExistsError:
                    pass
                doc = read_document_optional(root, META, "state-meta", LIMITS.state_meta_bytes)
                assert doc is not None  # noqa: S101 - just published or raced
            meta = parse_meta(doc)
            if not equal(meta.key_id, keys.key_id(public)):
                raise StateRootError(f"{META}: public key does not match {KEY}")
            ledger.start(root)  # (a root with records and no ledger predates it: `oms audit adopt`)
            state = cls(root, meta)
            state._signer = signer
            return state, created
        except BaseException:
            root.close()
            raise

    @classmethod
    def open(cls, path: str, *, options: FsioOptions | None = None) -> StateRoot:
        """Open an existing, initialised state root."""
        absolute = os.path.abspath(path)
        _refuse_inside_worktree(absolute)
        try:
            root = Root.open(absolute, private=True, options=options)
        except NotFoundError as exc:
            raise StateRootError(f"state root {shown(absolute)} does not exist") from exc
        try:
            doc = read_document_optional(root, META, "state-meta", LIMITS.state_meta_bytes)
            if doc is None:
                raise StateRootError(f"state root {shown(absolute)} is not initialised (no {META})")
            return cls(root, parse_meta(doc))
        except OmsError:
            root.close()
            raise

    def signer(self) -> keys.SigningKey:
        """The private key, loaded on first use and checked against the metadata."""
        if self._signer is None:
            signer = keys.SigningKey(self.root.read_secret(KEY, keys.SEED_BYTES))
            if not equal(keys.key_id(signer.public_raw()), self.meta.key_id):
                raise StateRootError(f"{KEY} does not match the public key in {META}")
            self._signer = signer
        return self._signer

    def close(self) -> None:
        """Close the root descriptor."""
        self.root.close()


def check_kind(kind: str) -> str:
    """A record kind oms knows."""
    if kind not in RECORD_KINDS:
        raise InvalidInputError(
            f"unknown record kind {kind!r} (expected one of {', '.join(RECORD_KINDS)})"
        )
    return check(kind, "record kind")
