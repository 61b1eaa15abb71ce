"""Predicates of the `worktree-record` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

_P0 = '^[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?$'
_P1 = '^/[^\\u0000-\\u001f\\u007f]*$'
_P2 = '^oms/[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?$'
_P3 = '^[0-9a-f]{40}(?:[0-9a-f]{24})?$'
_P4 = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$'
_C0: object = 'oms-worktree-v1'


def _v1(x: object) -> bool:
    # worktree-record#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v3(x: object) -> bool:
    # defs#/$defs/opaque_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v2(x: object) -> bool:
    # worktree-record#/properties/ticket_id
    if not _v3(x):
        return False
    return True


def _v5(x: object) -> bool:
    # defs#/$defs/abs_path
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
        if len(x) < 2:
            return False
        if len(x) > 4096:
            return False
    return True


def _v4(x: object) -> bool:
    # worktree-record#/properties/repository_root
    if not _v5(x):
        return False
    return True


def _v6(x: object) -> bool:
    # worktree-record#/properties/worktree_root
    if not _v5(x):
        return False
    return True


def _v8(x: object) -> bool:
    # defs#/$defs/branch
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
        if len(x) > 160:
            return False
    return True


def _v7(x: object) -> bool:
    # worktree-record#/properties/branch
    if not _v8(x):
        return False
    return True


def _v10(x: object) -> bool:
    # defs#/$defs/commit
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P3, x) is None:
            return False
    return True


def _v9(x: object) -> bool:
    # worktree-record#/properties/base_commit
    if not _v10(x):
        return False
    return True


def _v11(x: object) -> bool:
    # worktree-record#/properties/worktree_id
    if not _v3(x):
        return False
    return True


def _v13(x: object) -> bool:
    # defs#/$defs/timestamp
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P4, x) is None:
            return False
    return True


def _v12(x: object) -> bool:
    # worktree-record#/properties/created_at
    if not _v13(x):
        return False
    return True


def _v0(x: object) -> bool:
    # worktree-record#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('base_commit', 'branch', 'created_at', 'format', 'repository_root', 'ticket_id', 'worktree_id', 'worktree_root'):
            if k not in x:
                return False
        if 'format' in x and not _v1(x['format']):
            return False
        if 'ticket_id' in x and not _v2(x['ticket_id']):
            return False
        if 'repository_root' in x and not _v4(x['repository_root']):
            return False
        if 'worktree_root' in x and not _v6(x['worktree_root']):
            return False
        if 'branch' in x and not _v7(x['branch']):
            return False
        if 'base_commit' in x and not _v9(x['base_commit']):
            return False
        if 'worktree_id' in x and not _v11(x['worktree_id']):
            return False
        if 'created_at' in x and not _v12(x['created_at']):
            return False
        for k in x:
            if k not in ('format', 'ticket_id', 'repository_root', 'worktree_root', 'branch', 'base_commit', 'worktree_id', 'created_at'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'worktree-record': _v0,
}
