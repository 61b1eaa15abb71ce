"""Predicates of the `config` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

_P0 = '^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$'
_P1 = '^(https://[A-Za-z0-9.-]+(:[0-9]{1,5})?|http://(127\\.0\\.0\\.1|localhost|\\[::1\\])(:[0-9]{1,5})?)(/[A-Za-z0-9._~%/-]*)?$'
_P2 = '^[^\\u0000-\\u001f\\u007f]*$'
_P3 = '^[A-Za-z0-9._/-]+$'
_P4 = '^[a-z][a-z0-9-]{0,30}(?:\\.[a-z][a-z0-9-]{0,30}){0,3}$'
_C0: object = 1
_C1: tuple[object, ...] = ('claude_interactive', 'claude_print', 'codex_exec', 'codex_goal', 'command')
_C2: tuple[object, ...] = ('read-only', 'ticket-worktree-write')
_C3: object = 'command'


def _v1(x: object) -> bool:
    # config#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v5(x: object) -> bool:
    # defs#/$defs/model_id
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


def _v4(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/model
    if not _v5(x):
        return False
    return True


def _v7(x: object) -> bool:
    # defs#/$defs/model_endpoint
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
        if len(x) < 8:
            return False
        if len(x) > 512:
            return False
    return True


def _v6(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/endpoint
    if not _v7(x):
        return False
    return True


def _v9(x: object) -> bool:
    # defs#/$defs/transport
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v8(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/transport
    if not _v9(x):
        return False
    return True


def _v11(x: object) -> bool:
    # defs#/$defs/sandbox
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v10(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/sandbox
    if not _v11(x):
        return False
    return True


def _v13(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/argv/items
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 4096:
            return False
    return True


def _v12(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/argv
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) < 1:
            return False
        if len(x) > 64:
            return False
        for v in x:
            if not _v13(v):
                return False
    return True


def _v14(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/instructions
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P3, x) is None:
            return False
        if len(x) > 256:
            return False
    return True


def _v15(x: object) -> bool:
    # config#/properties/roles/additionalProperties/then
    if isinstance(x, dict):
        for k in ('argv',):
            if k not in x:
                return False
    return True


def _v17(x: object) -> bool:
    # config#/properties/roles/additionalProperties/else/not
    if isinstance(x, dict):
        for k in ('argv',):
            if k not in x:
                return False
    return True


def _v16(x: object) -> bool:
    # config#/properties/roles/additionalProperties/else
    if _v17(x):
        return False
    return True


def _v19(x: object) -> bool:
    # config#/properties/roles/additionalProperties/if/properties/transport
    if not _eq(x, _C3):
        return False
    return True


def _v18(x: object) -> bool:
    # config#/properties/roles/additionalProperties/if
    if isinstance(x, dict):
        if 'transport' in x and not _v19(x['transport']):
            return False
    return True


def _v3(x: object) -> bool:
    # config#/properties/roles/additionalProperties
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('model', 'transport', 'sandbox'):
            if k not in x:
                return False
        if 'model' in x and not _v4(x['model']):
            return False
        if 'endpoint' in x and not _v6(x['endpoint']):
            return False
        if 'transport' in x and not _v8(x['transport']):
            return False
        if 'sandbox' in x and not _v10(x['sandbox']):
            return False
        if 'argv' in x and not _v12(x['argv']):
            return False
        if 'instructions' in x and not _v14(x['instructions']):
            return False
        for k in x:
            if k not in ('model', 'endpoint', 'transport', 'sandbox', 'argv', 'instructions'):
                return False
    if _v18(x):
        if not _v15(x):
            return False
    else:
        if not _v16(x):
            return False
    return True


def _v21(x: object) -> bool:
    # defs#/$defs/role_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P4, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 127:
            return False
    return True


def _v20(x: object) -> bool:
    # config#/properties/roles/propertyNames
    if not _v21(x):
        return False
    return True


def _v2(x: object) -> bool:
    # config#/properties/roles
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        if len(x) < 1:
            return False
        if len(x) > 64:
            return False
        for k, v in x.items():
            if k not in () and not _v3(v):
                return False
        for k in x:
            if not _v20(k):
                return False
    return True


def _v23(x: object) -> bool:
    # config#/properties/advisor/properties/role
    if not _v21(x):
        return False
    return True


def _v22(x: object) -> bool:
    # config#/properties/advisor
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('role',):
            if k not in x:
                return False
        if 'role' in x and not _v23(x['role']):
            return False
        for k in x:
            if k not in ('role',):
                return False
    return True


def _v25(x: object) -> bool:
    # config#/properties/worker/properties/role
    if not _v21(x):
        return False
    return True


def _v24(x: object) -> bool:
    # config#/properties/worker
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('role',):
            if k not in x:
                return False
        if 'role' in x and not _v25(x['role']):
            return False
        for k in x:
            if k not in ('role',):
                return False
    return True


def _v27(x: object) -> bool:
    # config#/properties/pool/properties/max_workers
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 256:
            return False
    return True


def _v26(x: object) -> bool:
    # config#/properties/pool
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('max_workers',):
            if k not in x:
                return False
        if 'max_workers' in x and not _v27(x['max_workers']):
            return False
        for k in x:
            if k not in ('max_workers',):
                return False
    return True


def _v29(x: object) -> bool:
    # config#/properties/lease/properties/duration_minutes
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 10080:
            return False
    return True


def _v28(x: object) -> bool:
    # config#/properties/lease
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('duration_minutes',):
            if k not in x:
                return False
        if 'duration_minutes' in x and not _v29(x['duration_minutes']):
            return False
        for k in x:
            if k not in ('duration_minutes',):
                return False
    return True


def _v31(x: object) -> bool:
    # config#/properties/worktrees/properties/directory
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 4096:
            return False
    return True


def _v30(x: object) -> bool:
    # config#/properties/worktrees
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('directory',):
            if k not in x:
                return False
        if 'directory' in x and not _v31(x['directory']):
            return False
        for k in x:
            if k not in ('directory',):
                return False
    return True


def _v0(x: object) -> bool:
    # config#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('advisor', 'format', 'lease', 'pool', 'roles', 'worker', 'worktrees'):
            if k not in x:
                return False
        if 'format' in x and not _v1(x['format']):
            return False
        if 'roles' in x and not _v2(x['roles']):
            return False
        if 'advisor' in x and not _v22(x['advisor']):
            return False
        if 'worker' in x and not _v24(x['worker']):
            return False
        if 'pool' in x and not _v26(x['pool']):
            return False
        if 'lease' in x and not _v28(x['lease']):
            return False
        if 'worktrees' in x and not _v30(x['worktrees']):
            return False
        for k in x:
            if k not in ('format', 'roles', 'advisor', 'worker', 'pool', 'lease', 'worktrees'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'config': _v0,
}
