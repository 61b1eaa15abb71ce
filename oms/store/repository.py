"""Which repository a state root serves (ADR 0032): `repository.json` in the state root.

A state root serves one repository: its tickets, worktrees, conductor, tmux server and model proxy
are that repository's, and its configuration is what that repository commits. The repository is
named by its top level (the real path `git rev-parse --show-toplevel` gives in it). `oms init`, run
in the repository, records it once — a state root made before oms recorded it gets it from the
first `oms init` after — with its ledger entry (ADR 0027); nothing replaces it. `Workspace.open`
opens a state root only from the repository it names.
"""

from __future__ import annotations

import contextlib

from oms.canonical import JsonObject, access
from oms.errors import AlreadyExistsError
from oms.fsio import Root
from oms.limits import LIMITS
from oms.store import ledger
from oms.store.documents import encode_document, read_document_optional

RECORD = "repository.json"
SCHEMA = "state-repository"
DOC_BYTES = LIMITS.state_meta_bytes  # a small metadata document


def recorded(state: Root) -> str | None:
    """The top level of the repository the state root serves (None: none recorded yet)."""
    found = read_document_optional(state, RECORD, SCHEMA, DOC_BYTES)
    return None if found is None else access.text(found, "repository_root")


def record(state: Root, repository_root: str, now: str) -> str:
    """Record `repository_root` as the state root's repository unless one is recorded already; the
    one recorded (a concurrent `oms init` may have been first)."""
    doc: JsonObject = {"format": 1, "repository_root": repository_root, "created_at": now}
    data = encode_document(doc, SCHEMA, RECORD, DOC_BYTES)
    with contextlib.suppress(AlreadyExistsError):  # recorded already: that one stands
        ledger.publish_noted(state, "repository", RECORD, data)  # with its entry (ADR 0027)
    found = recorded(state)
    assert found is not None  # noqa: S101 - just published, or someone else's
    return found
