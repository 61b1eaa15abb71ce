"""Predicates of the `worktree-record` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_C0: object = 'oms-worktree-v1'


def _v1091(x: object) -> bool:
    # worktree-record#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v1092(x: object) -> bool:
    # worktree-record#/properties/ticket_id
    if not _m_defs._v7(x):
        return False
    return True


def _v1093(x: object) -> bool:
    # worktree-record#/properties/repository_root
    if not _m_defs._v35(x):
        return False
    return True


def _v1094(x: object) -> bool:
    # worktree-record#/properties/worktree_root
    if not _m_defs._v35(x):
        return False
    return True


def _v1095(x: object) -> bool:
    # worktree-record#/properties/branch
    if not _m_defs._v37(x):
        return False
    return True


def _v1096(x: object) -> bool:
    # worktree-record#/properties/base_commit
    if not _m_defs._v39(x):
        return False
    return True


def _v1097(x: object) -> bool:
    # worktree-record#/properties/worktree_id
    if not _m_defs._v7(x):
        return False
    return True


def _v1098(x: object) -> bool:
    # worktree-record#/properties/created_at
    if not _m_defs._v118(x):
        return False
    return True


def _v1090(x: object) -> bool:
    # worktree-record#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('base_commit', 'branch', 'created_at', 'format', 'repository_root', 'ticket_id', 'worktree_id', 'worktree_root'):
            if k not in x:
                return False
        if 'format' in x and not _v1091(x['format']):
            return False
        if 'ticket_id' in x and not _v1092(x['ticket_id']):
            return False
        if 'repository_root' in x and not _v1093(x['repository_root']):
            return False
        if 'worktree_root' in x and not _v1094(x['worktree_root']):
            return False
        if 'branch' in x and not _v1095(x['branch']):
            return False
        if 'base_commit' in x and not _v1096(x['base_commit']):
            return False
        if 'worktree_id' in x and not _v1097(x['worktree_id']):
            return False
        if 'created_at' in x and not _v1098(x['created_at']):
            return False
        for k in x:
            if k not in ('format', 'ticket_id', 'repository_root', 'worktree_root', 'branch', 'base_commit', 'worktree_id', 'created_at'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'worktree-record': _v1090,
}
