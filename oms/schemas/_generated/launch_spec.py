"""Predicates of the `launch-spec` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_P0 = '^[a-z]+-[0-9][0-9.]*\\Z'
_P1 = '^[A-Za-z0-9_.:-]{1,128}\\Z'
_P2 = '^[0-9a-f]{64}\\Z'
_P3 = '^/[\\u0020-\\u007e]*\\Z'
_P4 = '^[^\\u0000]*\\Z'
_P5 = '^[A-Za-z_][A-Za-z0-9_]{0,127}\\Z'
_P6 = '^/[^\\u0000-\\u001f\\u007f]*\\Z'
_P7 = '^https?://[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?/?\\Z'
_P8 = '^/([A-Za-z0-9._-]+/)+\\Z'
_C0: object = 'oms-launch-v1'
_C1: tuple[object, ...] = ('codex', 'claude', 'command')
_C2: tuple[object, ...] = ('files', 'etcd')


def _v773(x: object) -> bool:
    # launch-spec#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v774(x: object) -> bool:
    # launch-spec#/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v775(x: object) -> bool:
    # launch-spec#/properties/session_id
    if not _m_defs._v15(x):
        return False
    return True


def _v776(x: object) -> bool:
    # launch-spec#/properties/provider
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v777(x: object) -> bool:
    # launch-spec#/properties/provider_version
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
        if len(x) > 40:
            return False
    return True


def _v779(x: object) -> bool:
    # launch-spec#/properties/allowed_tools/items
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
    return True


def _v778(x: object) -> bool:
    # launch-spec#/properties/allowed_tools
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 64:
            return False
        for v in x:
            if not _v779(v):
                return False
    return True


def _v780(x: object) -> bool:
    # launch-spec#/properties/nonce
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
    return True


def _v781(x: object) -> bool:
    # launch-spec#/properties/config_root
    if not _m_defs._v35(x):
        return False
    return True


def _v782(x: object) -> bool:
    # launch-spec#/properties/worktree
    if not _m_defs._v35(x):
        return False
    return True


def _v783(x: object) -> bool:
    # launch-spec#/properties/sandbox_dir
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P3, x) is None:
            return False
        if len(x) < 2:
            return False
        if len(x) > 4000:
            return False
    return True


def _v784(x: object) -> bool:
    # launch-spec#/properties/bwrap
    if not _m_defs._v35(x):
        return False
    return True


def _v787(x: object) -> bool:
    # launch-spec#/$defs/word
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P4, x) is None:
            return False
        if len(x) > 65536:
            return False
    return True


def _v786(x: object) -> bool:
    # launch-spec#/properties/sandbox/items
    if not _v787(x):
        return False
    return True


def _v785(x: object) -> bool:
    # launch-spec#/properties/sandbox
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) < 1:
            return False
        if len(x) > 1024:
            return False
        for v in x:
            if not _v786(v):
                return False
    return True


def _v789(x: object) -> bool:
    # launch-spec#/properties/command/items
    if not _v787(x):
        return False
    return True


def _v788(x: object) -> bool:
    # launch-spec#/properties/command
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) < 1:
            return False
        if len(x) > 256:
            return False
        for v in x:
            if not _v789(v):
                return False
    return True


def _v791(x: object) -> bool:
    # launch-spec#/properties/placeholders/items
    if not _m_defs._v35(x):
        return False
    return True


def _v790(x: object) -> bool:
    # launch-spec#/properties/placeholders
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 8:
            return False
        for v in x:
            if not _v791(v):
                return False
    return True


def _v793(x: object) -> bool:
    # launch-spec#/properties/env/additionalProperties
    if not _v787(x):
        return False
    return True


def _v794(x: object) -> bool:
    # launch-spec#/properties/env/propertyNames
    if isinstance(x, str):
        if _search(_P5, x) is None:
            return False
    return True


def _v792(x: object) -> bool:
    # launch-spec#/properties/env
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        if len(x) > 64:
            return False
        for k, v in x.items():
            if k not in () and not _v793(v):
                return False
        for k in x:
            if not _v794(k):
                return False
    return True


def _v795(x: object) -> bool:
    # launch-spec#/properties/created_at
    if not _m_defs._v118(x):
        return False
    return True


def _v796(x: object) -> bool:
    # launch-spec#/properties/git_config_path
    if not _m_defs._v35(x):
        return False
    return True


def _v797(x: object) -> bool:
    # launch-spec#/properties/git_config
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P4, x) is None:
            return False
        if len(x) > 4096:
            return False
    return True


def _v799(x: object) -> bool:
    # launch-spec#/properties/model_relay/properties/socket
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P6, x) is None:
            return False
        if len(x) < 2:
            return False
        if len(x) > 4096:
            return False
    return True


def _v800(x: object) -> bool:
    # launch-spec#/properties/model_relay/properties/port
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 65535:
            return False
    return True


def _v798(x: object) -> bool:
    # launch-spec#/properties/model_relay
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('port', 'socket'):
            if k not in x:
                return False
        if 'socket' in x and not _v799(x['socket']):
            return False
        if 'port' in x and not _v800(x['port']):
            return False
        for k in x:
            if k not in ('socket', 'port'):
                return False
    return True


def _v801(x: object) -> bool:
    # launch-spec#/properties/limits
    if not _m_defs._v62(x):
        return False
    return True


def _v803(x: object) -> bool:
    # launch-spec#/properties/disk_trees/items
    if not _m_defs._v35(x):
        return False
    return True


def _v802(x: object) -> bool:
    # launch-spec#/properties/disk_trees
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) < 1:
            return False
        if len(x) > 4:
            return False
        for v in x:
            if not _v803(v):
                return False
    return True


def _v804(x: object) -> bool:
    # launch-spec#/properties/relaunch
    if not (isinstance(x, bool)):
        return False
    return True


def _v806(x: object) -> bool:
    # launch-spec#/properties/store/properties/backend
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v808(x: object) -> bool:
    # launch-spec#/properties/store/properties/endpoints/items
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P7, x) is None:
            return False
    return True


def _v807(x: object) -> bool:
    # launch-spec#/properties/store/properties/endpoints
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) < 1:
            return False
        if len(x) > 16:
            return False
        for v in x:
            if not _v808(v):
                return False
    return True


def _v809(x: object) -> bool:
    # launch-spec#/properties/store/properties/prefix
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P8, x) is None:
            return False
        if len(x) > 256:
            return False
    return True


def _v811(x: object) -> bool:
    # launch-spec#/properties/store/properties/name/properties/host
    if not _m_defs._v339(x):
        return False
    return True


def _v812(x: object) -> bool:
    # launch-spec#/properties/store/properties/name/properties/generation
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
    return True


def _v810(x: object) -> bool:
    # launch-spec#/properties/store/properties/name
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('host', 'generation'):
            if k not in x:
                return False
        if 'host' in x and not _v811(x['host']):
            return False
        if 'generation' in x and not _v812(x['generation']):
            return False
        for k in x:
            if k not in ('host', 'generation'):
                return False
    return True


def _v805(x: object) -> bool:
    # launch-spec#/properties/store
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('backend',):
            if k not in x:
                return False
        if 'backend' in x and not _v806(x['backend']):
            return False
        if 'endpoints' in x and not _v807(x['endpoints']):
            return False
        if 'prefix' in x and not _v809(x['prefix']):
            return False
        if 'name' in x and not _v810(x['name']):
            return False
        for k in x:
            if k not in ('backend', 'endpoints', 'prefix', 'name'):
                return False
    return True


def _v772(x: object) -> bool:
    # launch-spec#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('allowed_tools', 'bwrap', 'command', 'config_root', 'created_at', 'disk_trees', 'dispatch_id', 'env', 'format', 'git_config', 'git_config_path', 'limits', 'nonce', 'placeholders', 'provider', 'provider_version', 'sandbox', 'sandbox_dir', 'session_id', 'worktree'):
            if k not in x:
                return False
        if 'format' in x and not _v773(x['format']):
            return False
        if 'dispatch_id' in x and not _v774(x['dispatch_id']):
            return False
        if 'session_id' in x and not _v775(x['session_id']):
            return False
        if 'provider' in x and not _v776(x['provider']):
            return False
        if 'provider_version' in x and not _v777(x['provider_version']):
            return False
        if 'allowed_tools' in x and not _v778(x['allowed_tools']):
            return False
        if 'nonce' in x and not _v780(x['nonce']):
            return False
        if 'config_root' in x and not _v781(x['config_root']):
            return False
        if 'worktree' in x and not _v782(x['worktree']):
            return False
        if 'sandbox_dir' in x and not _v783(x['sandbox_dir']):
            return False
        if 'bwrap' in x and not _v784(x['bwrap']):
            return False
        if 'sandbox' in x and not _v785(x['sandbox']):
            return False
        if 'command' in x and not _v788(x['command']):
            return False
        if 'placeholders' in x and not _v790(x['placeholders']):
            return False
        if 'env' in x and not _v792(x['env']):
            return False
        if 'created_at' in x and not _v795(x['created_at']):
            return False
        if 'git_config_path' in x and not _v796(x['git_config_path']):
            return False
        if 'git_config' in x and not _v797(x['git_config']):
            return False
        if 'model_relay' in x and not _v798(x['model_relay']):
            return False
        if 'limits' in x and not _v801(x['limits']):
            return False
        if 'disk_trees' in x and not _v802(x['disk_trees']):
            return False
        if 'relaunch' in x and not _v804(x['relaunch']):
            return False
        if 'store' in x and not _v805(x['store']):
            return False
        for k in x:
            if k not in ('format', 'dispatch_id', 'session_id', 'provider', 'provider_version', 'allowed_tools', 'nonce', 'config_root', 'worktree', 'sandbox_dir', 'bwrap', 'sandbox', 'command', 'placeholders', 'env', 'created_at', 'git_config_path', 'git_config', 'model_relay', 'limits', 'disk_trees', 'relaunch', 'store'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'launch-spec': _v772,
    'launch-spec#/$defs/word': _v787,
}
