"""Predicates of the `journal-entry` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_C0: object = 'oms-journal-v1'
_C1: tuple[object, ...] = ('live-contact',)
_C2: tuple[object, ...] = ('worker-session', 'worker-resume', 'advisor-review', 'result-publish', 'result-sync')
_C3: tuple[object, ...] = ('codex-goal', 'claude-interactive', 'command', 'codex-exec', 'claude-print', 'gh')


def _v736(x: object) -> bool:
    # journal-entry#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v737(x: object) -> bool:
    # journal-entry#/properties/journal
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v738(x: object) -> bool:
    # journal-entry#/properties/seq
    if not _m_defs._v132(x):
        return False
    return True


def _v740(x: object) -> bool:
    # journal-entry#/properties/previous_sha256/anyOf/0
    if not _m_defs._v3(x):
        return False
    return True


def _v741(x: object) -> bool:
    # journal-entry#/properties/previous_sha256/anyOf/1
    if not (x is None):
        return False
    return True


def _v739(x: object) -> bool:
    # journal-entry#/properties/previous_sha256
    if not (_v740(x) or _v741(x)):
        return False
    return True


def _v742(x: object) -> bool:
    # journal-entry#/properties/recorded_at
    if not _m_defs._v118(x):
        return False
    return True


def _v744(x: object) -> bool:
    # journal-entry#/properties/entry/properties/authorization_id
    if not _m_defs._v7(x):
        return False
    return True


def _v745(x: object) -> bool:
    # journal-entry#/properties/entry/properties/authorization_version
    if not _m_defs._v132(x):
        return False
    return True


def _v746(x: object) -> bool:
    # journal-entry#/properties/entry/properties/repository
    if not _m_defs._v98(x):
        return False
    return True


def _v747(x: object) -> bool:
    # journal-entry#/properties/entry/properties/operation
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v748(x: object) -> bool:
    # journal-entry#/properties/entry/properties/contact_surface
    if not any(_eq(x, c) for c in _C3):
        return False
    return True


def _v749(x: object) -> bool:
    # journal-entry#/properties/entry/properties/subject_id
    if not _m_defs._v7(x):
        return False
    return True


def _v751(x: object) -> bool:
    # journal-entry#/properties/entry/properties/request/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v752(x: object) -> bool:
    # journal-entry#/properties/entry/properties/request/properties/ticket_id
    if not _m_defs._v7(x):
        return False
    return True


def _v753(x: object) -> bool:
    # journal-entry#/properties/entry/properties/request/properties/role_id
    if not _m_defs._v17(x):
        return False
    return True


def _v754(x: object) -> bool:
    # journal-entry#/properties/entry/properties/request/properties/model_id
    if not _m_defs._v19(x):
        return False
    return True


def _v755(x: object) -> bool:
    # journal-entry#/properties/entry/properties/request/properties/provider_mode
    if not _m_defs._v26(x):
        return False
    return True


def _v756(x: object) -> bool:
    # journal-entry#/properties/entry/properties/request/properties/worktree_id
    if not _m_defs._v7(x):
        return False
    return True


def _v757(x: object) -> bool:
    # journal-entry#/properties/entry/properties/request/properties/approved_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v750(x: object) -> bool:
    # journal-entry#/properties/entry/properties/request
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'model_id', 'provider_mode', 'role_id', 'ticket_id', 'worktree_id'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v751(x['dispatch_id']):
            return False
        if 'ticket_id' in x and not _v752(x['ticket_id']):
            return False
        if 'role_id' in x and not _v753(x['role_id']):
            return False
        if 'model_id' in x and not _v754(x['model_id']):
            return False
        if 'provider_mode' in x and not _v755(x['provider_mode']):
            return False
        if 'worktree_id' in x and not _v756(x['worktree_id']):
            return False
        if 'approved_sha256' in x and not _v757(x['approved_sha256']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'ticket_id', 'role_id', 'model_id', 'provider_mode', 'worktree_id', 'approved_sha256'):
                return False
    return True


def _v758(x: object) -> bool:
    # journal-entry#/properties/entry/properties/disclosed_at
    if not _m_defs._v118(x):
        return False
    return True


def _v743(x: object) -> bool:
    # journal-entry#/properties/entry
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('authorization_id', 'authorization_version', 'contact_surface', 'disclosed_at', 'operation', 'repository', 'request', 'subject_id'):
            if k not in x:
                return False
        if 'authorization_id' in x and not _v744(x['authorization_id']):
            return False
        if 'authorization_version' in x and not _v745(x['authorization_version']):
            return False
        if 'repository' in x and not _v746(x['repository']):
            return False
        if 'operation' in x and not _v747(x['operation']):
            return False
        if 'contact_surface' in x and not _v748(x['contact_surface']):
            return False
        if 'subject_id' in x and not _v749(x['subject_id']):
            return False
        if 'request' in x and not _v750(x['request']):
            return False
        if 'disclosed_at' in x and not _v758(x['disclosed_at']):
            return False
        for k in x:
            if k not in ('authorization_id', 'authorization_version', 'repository', 'operation', 'contact_surface', 'subject_id', 'request', 'disclosed_at'):
                return False
    return True


def _v735(x: object) -> bool:
    # journal-entry#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('entry', 'format', 'journal', 'previous_sha256', 'recorded_at', 'seq'):
            if k not in x:
                return False
        if 'format' in x and not _v736(x['format']):
            return False
        if 'journal' in x and not _v737(x['journal']):
            return False
        if 'seq' in x and not _v738(x['seq']):
            return False
        if 'previous_sha256' in x and not _v739(x['previous_sha256']):
            return False
        if 'recorded_at' in x and not _v742(x['recorded_at']):
            return False
        if 'entry' in x and not _v743(x['entry']):
            return False
        for k in x:
            if k not in ('format', 'journal', 'seq', 'previous_sha256', 'recorded_at', 'entry'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'journal-entry': _v735,
}
