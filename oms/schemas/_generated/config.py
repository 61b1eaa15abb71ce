"""Predicates of the `config` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_P0 = '^[^\\u0000-\\u001f\\u007f]*\\Z'
_P1 = '^[A-Za-z0-9._/-]+\\Z'
_P2 = '^[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?(?:/[A-Za-z0-9][A-Za-z0-9._-]{0,127})?\\Z'
_P3 = '^https?://[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?/?\\Z'
_P4 = '^/([A-Za-z0-9._-]+/)+\\Z'
_P5 = '^[A-Z][A-Z0-9_]{0,55}_API_KEY\\Z'
_P6 = '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\\Z'
_P7 = '^(?!oms/)[A-Za-z0-9][A-Za-z0-9._/-]{0,199}\\Z'
_C0: object = 1
_C1: tuple[object, ...] = ('none', 'host')
_C2: tuple[object, ...] = ('token', 'raw')
_C3: object = 'command'
_C4: tuple[object, ...] = ('files', 'etcd')
_C5: tuple[object, ...] = ('anthropic', 'openai')
_C6: tuple[object, ...] = ('key', 'codex-chatgpt')
_C7: tuple[object, ...] = ('none', 'host')
_C8: tuple[object, ...] = ('merge-commit', 'fast-forward')


def _v238(x: object) -> bool:
    # config#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v241(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/model
    if not _m_defs._v19(x):
        return False
    return True


def _v242(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/endpoint
    if not _m_defs._v23(x):
        return False
    return True


def _v243(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/transport
    if not _m_defs._v26(x):
        return False
    return True


def _v244(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/sandbox
    if not _m_defs._v45(x):
        return False
    return True


def _v246(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/argv/items
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 4096:
            return False
    return True


def _v245(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/argv
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) < 1:
            return False
        if len(x) > 64:
            return False
        for v in x:
            if not _v246(v):
                return False
    return True


def _v247(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/instructions
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
        if len(x) > 256:
            return False
    return True


def _v248(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/max_turns_without_result
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 100000:
            return False
    return True


def _v249(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/max_minutes_without_result
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 10080:
            return False
    return True


def _v250(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/deadline_minutes
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 10080:
            return False
    return True


def _v251(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/token_budget
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 1000000000000:
            return False
    return True


def _v252(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/network
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v253(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/credential
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v255(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/route/properties/provider
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
        if len(x) > 257:
            return False
    return True


def _v256(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/route/properties/max_cost_tier
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 5:
            return False
    return True


def _v258(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/route/properties/require_tags/items
    if not _m_defs._v7(x):
        return False
    return True


def _v257(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/route/properties/require_tags
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 16:
            return False
        for v in x:
            if not _v258(v):
                return False
        if not _unique(x):
            return False
    return True


def _v260(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/route/properties/order/items
    if not _m_defs._v7(x):
        return False
    return True


def _v259(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/route/properties/order
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 32:
            return False
        for v in x:
            if not _v260(v):
                return False
        if not _unique(x):
            return False
    return True


def _v254(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/route
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        if 'provider' in x and not _v255(x['provider']):
            return False
        if 'max_cost_tier' in x and not _v256(x['max_cost_tier']):
            return False
        if 'require_tags' in x and not _v257(x['require_tags']):
            return False
        if 'order' in x and not _v259(x['order']):
            return False
        for k in x:
            if k not in ('provider', 'max_cost_tier', 'require_tags', 'order'):
                return False
    return True


def _v261(x: object) -> bool:
    # config#/properties/roles/additionalProperties/properties/limits
    if not _m_defs._v262(x):
        return False
    return True


def _v269(x: object) -> bool:
    # config#/properties/roles/additionalProperties/then
    if isinstance(x, dict):
        for k in ('argv',):
            if k not in x:
                return False
    return True


def _v271(x: object) -> bool:
    # config#/properties/roles/additionalProperties/else/not
    if isinstance(x, dict):
        for k in ('argv',):
            if k not in x:
                return False
    return True


def _v270(x: object) -> bool:
    # config#/properties/roles/additionalProperties/else
    if _v271(x):
        return False
    return True


def _v273(x: object) -> bool:
    # config#/properties/roles/additionalProperties/if/properties/transport
    if not _eq(x, _C3):
        return False
    return True


def _v272(x: object) -> bool:
    # config#/properties/roles/additionalProperties/if
    if isinstance(x, dict):
        if 'transport' in x and not _v273(x['transport']):
            return False
    return True


def _v240(x: object) -> bool:
    # config#/properties/roles/additionalProperties
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('model', 'transport', 'sandbox'):
            if k not in x:
                return False
        if 'model' in x and not _v241(x['model']):
            return False
        if 'endpoint' in x and not _v242(x['endpoint']):
            return False
        if 'transport' in x and not _v243(x['transport']):
            return False
        if 'sandbox' in x and not _v244(x['sandbox']):
            return False
        if 'argv' in x and not _v245(x['argv']):
            return False
        if 'instructions' in x and not _v247(x['instructions']):
            return False
        if 'max_turns_without_result' in x and not _v248(x['max_turns_without_result']):
            return False
        if 'max_minutes_without_result' in x and not _v249(x['max_minutes_without_result']):
            return False
        if 'deadline_minutes' in x and not _v250(x['deadline_minutes']):
            return False
        if 'token_budget' in x and not _v251(x['token_budget']):
            return False
        if 'network' in x and not _v252(x['network']):
            return False
        if 'credential' in x and not _v253(x['credential']):
            return False
        if 'route' in x and not _v254(x['route']):
            return False
        if 'limits' in x and not _v261(x['limits']):
            return False
        for k in x:
            if k not in ('model', 'endpoint', 'transport', 'sandbox', 'argv', 'instructions', 'max_turns_without_result', 'max_minutes_without_result', 'deadline_minutes', 'token_budget', 'network', 'credential', 'route', 'limits'):
                return False
    if _v272(x):
        if not _v269(x):
            return False
    else:
        if not _v270(x):
            return False
    return True


def _v274(x: object) -> bool:
    # config#/properties/roles/propertyNames
    if not _m_defs._v17(x):
        return False
    return True


def _v239(x: object) -> bool:
    # config#/properties/roles
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        if len(x) < 1:
            return False
        if len(x) > 64:
            return False
        for k, v in x.items():
            if k not in () and not _v240(v):
                return False
        for k in x:
            if not _v274(k):
                return False
    return True


def _v276(x: object) -> bool:
    # config#/properties/advisor/properties/role
    if not _m_defs._v17(x):
        return False
    return True


def _v275(x: object) -> bool:
    # config#/properties/advisor
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('role',):
            if k not in x:
                return False
        if 'role' in x and not _v276(x['role']):
            return False
        for k in x:
            if k not in ('role',):
                return False
    return True


def _v278(x: object) -> bool:
    # config#/properties/worker/properties/role
    if not _m_defs._v17(x):
        return False
    return True


def _v277(x: object) -> bool:
    # config#/properties/worker
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('role',):
            if k not in x:
                return False
        if 'role' in x and not _v278(x['role']):
            return False
        for k in x:
            if k not in ('role',):
                return False
    return True


def _v280(x: object) -> bool:
    # config#/properties/pool/properties/max_workers
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 256:
            return False
    return True


def _v281(x: object) -> bool:
    # config#/properties/pool/properties/tick_seconds
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 3600:
            return False
    return True


def _v282(x: object) -> bool:
    # config#/properties/pool/properties/approval_wait_minutes
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 10080:
            return False
    return True


def _v279(x: object) -> bool:
    # config#/properties/pool
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('max_workers',):
            if k not in x:
                return False
        if 'max_workers' in x and not _v280(x['max_workers']):
            return False
        if 'tick_seconds' in x and not _v281(x['tick_seconds']):
            return False
        if 'approval_wait_minutes' in x and not _v282(x['approval_wait_minutes']):
            return False
        for k in x:
            if k not in ('max_workers', 'tick_seconds', 'approval_wait_minutes'):
                return False
    return True


def _v284(x: object) -> bool:
    # config#/properties/lease/properties/duration_minutes
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 10080:
            return False
    return True


def _v283(x: object) -> bool:
    # config#/properties/lease
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('duration_minutes',):
            if k not in x:
                return False
        if 'duration_minutes' in x and not _v284(x['duration_minutes']):
            return False
        for k in x:
            if k not in ('duration_minutes',):
                return False
    return True


def _v286(x: object) -> bool:
    # config#/properties/worktrees/properties/directory
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 4096:
            return False
    return True


def _v287(x: object) -> bool:
    # config#/properties/worktrees/properties/gc_after_days
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 3650:
            return False
    return True


def _v288(x: object) -> bool:
    # config#/properties/worktrees/properties/archive_bundles
    if not (isinstance(x, bool)):
        return False
    return True


def _v285(x: object) -> bool:
    # config#/properties/worktrees
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        if 'directory' in x and not _v286(x['directory']):
            return False
        if 'gc_after_days' in x and not _v287(x['gc_after_days']):
            return False
        if 'archive_bundles' in x and not _v288(x['archive_bundles']):
            return False
        for k in x:
            if k not in ('directory', 'gc_after_days', 'archive_bundles'):
                return False
    return True


def _v290(x: object) -> bool:
    # config#/properties/store/properties/backend
    if not any(_eq(x, c) for c in _C4):
        return False
    return True


def _v292(x: object) -> bool:
    # config#/properties/store/properties/endpoints/items
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P3, x) is None:
            return False
    return True


def _v291(x: object) -> bool:
    # config#/properties/store/properties/endpoints
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) < 1:
            return False
        if len(x) > 16:
            return False
        for v in x:
            if not _v292(v):
                return False
    return True


def _v293(x: object) -> bool:
    # config#/properties/store/properties/prefix
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P4, x) is None:
            return False
        if len(x) > 256:
            return False
    return True


def _v289(x: object) -> bool:
    # config#/properties/store
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        if 'backend' in x and not _v290(x['backend']):
            return False
        if 'endpoints' in x and not _v291(x['endpoints']):
            return False
        if 'prefix' in x and not _v293(x['prefix']):
            return False
        for k in x:
            if k not in ('backend', 'endpoints', 'prefix'):
                return False
    return True


def _v295(x: object) -> bool:
    # config#/properties/retention/properties/compact_after_days
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 36500:
            return False
    return True


def _v294(x: object) -> bool:
    # config#/properties/retention
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        if 'compact_after_days' in x and not _v295(x['compact_after_days']):
            return False
        for k in x:
            if k not in ('compact_after_days',):
                return False
    return True


def _v298(x: object) -> bool:
    # config#/properties/providers/additionalProperties/properties/family
    if not any(_eq(x, c) for c in _C5):
        return False
    return True


def _v299(x: object) -> bool:
    # config#/properties/providers/additionalProperties/properties/enabled
    if not (isinstance(x, bool)):
        return False
    return True


def _v300(x: object) -> bool:
    # config#/properties/providers/additionalProperties/properties/endpoint
    if not _m_defs._v23(x):
        return False
    return True


def _v301(x: object) -> bool:
    # config#/properties/providers/additionalProperties/properties/auth
    if not any(_eq(x, c) for c in _C6):
        return False
    return True


def _v302(x: object) -> bool:
    # config#/properties/providers/additionalProperties/properties/key_env
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P5, x) is None:
            return False
    return True


def _v303(x: object) -> bool:
    # config#/properties/providers/additionalProperties/properties/cost_tier
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 5:
            return False
    return True


def _v305(x: object) -> bool:
    # config#/properties/providers/additionalProperties/properties/tags/items
    if not _m_defs._v7(x):
        return False
    return True


def _v304(x: object) -> bool:
    # config#/properties/providers/additionalProperties/properties/tags
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 16:
            return False
        for v in x:
            if not _v305(v):
                return False
        if not _unique(x):
            return False
    return True


def _v307(x: object) -> bool:
    # config#/properties/providers/additionalProperties/properties/models/additionalProperties
    if not _m_defs._v19(x):
        return False
    return True


def _v308(x: object) -> bool:
    # config#/properties/providers/additionalProperties/properties/models/propertyNames
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P6, x) is None:
            return False
    return True


def _v306(x: object) -> bool:
    # config#/properties/providers/additionalProperties/properties/models
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        if len(x) > 32:
            return False
        for k, v in x.items():
            if k not in () and not _v307(v):
                return False
        for k in x:
            if not _v308(k):
                return False
    return True


def _v310(x: object) -> bool:
    # config#/properties/providers/additionalProperties/properties/quota_probe/items
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 4096:
            return False
    return True


def _v309(x: object) -> bool:
    # config#/properties/providers/additionalProperties/properties/quota_probe
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) < 1:
            return False
        if len(x) > 64:
            return False
        for v in x:
            if not _v310(v):
                return False
    return True


def _v311(x: object) -> bool:
    # config#/properties/providers/additionalProperties/properties/quota_skip_at
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 100:
            return False
    return True


def _v312(x: object) -> bool:
    # config#/properties/providers/additionalProperties/properties/quota_probe_network
    if not any(_eq(x, c) for c in _C7):
        return False
    return True


def _v297(x: object) -> bool:
    # config#/properties/providers/additionalProperties
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('family',):
            if k not in x:
                return False
        if 'family' in x and not _v298(x['family']):
            return False
        if 'enabled' in x and not _v299(x['enabled']):
            return False
        if 'endpoint' in x and not _v300(x['endpoint']):
            return False
        if 'auth' in x and not _v301(x['auth']):
            return False
        if 'key_env' in x and not _v302(x['key_env']):
            return False
        if 'cost_tier' in x and not _v303(x['cost_tier']):
            return False
        if 'tags' in x and not _v304(x['tags']):
            return False
        if 'models' in x and not _v306(x['models']):
            return False
        if 'quota_probe' in x and not _v309(x['quota_probe']):
            return False
        if 'quota_skip_at' in x and not _v311(x['quota_skip_at']):
            return False
        if 'quota_probe_network' in x and not _v312(x['quota_probe_network']):
            return False
        for k in x:
            if k not in ('family', 'enabled', 'endpoint', 'auth', 'key_env', 'cost_tier', 'tags', 'models', 'quota_probe', 'quota_skip_at', 'quota_probe_network'):
                return False
    return True


def _v313(x: object) -> bool:
    # config#/properties/providers/propertyNames
    if not _m_defs._v7(x):
        return False
    return True


def _v296(x: object) -> bool:
    # config#/properties/providers
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        if len(x) > 32:
            return False
        for k, v in x.items():
            if k not in () and not _v297(v):
                return False
        for k in x:
            if not _v313(k):
                return False
    return True


def _v316(x: object) -> bool:
    # config#/properties/routing/properties/order/items
    if not _m_defs._v7(x):
        return False
    return True


def _v315(x: object) -> bool:
    # config#/properties/routing/properties/order
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 32:
            return False
        for v in x:
            if not _v316(v):
                return False
        if not _unique(x):
            return False
    return True


def _v317(x: object) -> bool:
    # config#/properties/routing/properties/active
    if not _m_defs._v7(x):
        return False
    return True


def _v318(x: object) -> bool:
    # config#/properties/routing/properties/cooldown_minutes
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 10080:
            return False
    return True


def _v319(x: object) -> bool:
    # config#/properties/routing/properties/transient_cooldown_seconds
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 3600:
            return False
    return True


def _v314(x: object) -> bool:
    # config#/properties/routing
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        if 'order' in x and not _v315(x['order']):
            return False
        if 'active' in x and not _v317(x['active']):
            return False
        if 'cooldown_minutes' in x and not _v318(x['cooldown_minutes']):
            return False
        if 'transient_cooldown_seconds' in x and not _v319(x['transient_cooldown_seconds']):
            return False
        for k in x:
            if k not in ('order', 'active', 'cooldown_minutes', 'transient_cooldown_seconds'):
                return False
    return True


def _v323(x: object) -> bool:
    # config#/properties/verify/properties/commands/items/items
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 4096:
            return False
    return True


def _v322(x: object) -> bool:
    # config#/properties/verify/properties/commands/items
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) < 1:
            return False
        if len(x) > 64:
            return False
        for v in x:
            if not _v323(v):
                return False
    return True


def _v321(x: object) -> bool:
    # config#/properties/verify/properties/commands
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) < 1:
            return False
        if len(x) > 20:
            return False
        for v in x:
            if not _v322(v):
                return False
    return True


def _v324(x: object) -> bool:
    # config#/properties/verify/properties/timeout_seconds
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 7200:
            return False
    return True


def _v325(x: object) -> bool:
    # config#/properties/verify/properties/max_output_bytes
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1024:
            return False
        if x > 67108864:
            return False
    return True


def _v327(x: object) -> bool:
    # config#/properties/verify/properties/show/items
    if not _m_defs._v35(x):
        return False
    return True


def _v326(x: object) -> bool:
    # config#/properties/verify/properties/show
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 16:
            return False
        for v in x:
            if not _v327(v):
                return False
    return True


def _v320(x: object) -> bool:
    # config#/properties/verify
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('commands',):
            if k not in x:
                return False
        if 'commands' in x and not _v321(x['commands']):
            return False
        if 'timeout_seconds' in x and not _v324(x['timeout_seconds']):
            return False
        if 'max_output_bytes' in x and not _v325(x['max_output_bytes']):
            return False
        if 'show' in x and not _v326(x['show']):
            return False
        for k in x:
            if k not in ('commands', 'timeout_seconds', 'max_output_bytes', 'show'):
                return False
    return True


def _v329(x: object) -> bool:
    # config#/properties/merge/properties/into
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P7, x) is None:
            return False
        if len(x) > 200:
            return False
    return True


def _v330(x: object) -> bool:
    # config#/properties/merge/properties/mode
    if not any(_eq(x, c) for c in _C8):
        return False
    return True


def _v328(x: object) -> bool:
    # config#/properties/merge
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        if 'into' in x and not _v329(x['into']):
            return False
        if 'mode' in x and not _v330(x['mode']):
            return False
        for k in x:
            if k not in ('into', 'mode'):
                return False
    return True


def _v332(x: object) -> bool:
    # config#/properties/proxy/properties/port
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 65535:
            return False
    return True


def _v333(x: object) -> bool:
    # config#/properties/proxy/properties/max_request_bytes
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1024:
            return False
        if x > 1073741824:
            return False
    return True


def _v334(x: object) -> bool:
    # config#/properties/proxy/properties/request_deadline_s
    if not (_is_number(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 10:
            return False
    return True


def _v335(x: object) -> bool:
    # config#/properties/proxy/properties/workers
    if not (isinstance(x, bool)):
        return False
    return True


def _v331(x: object) -> bool:
    # config#/properties/proxy
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        if 'port' in x and not _v332(x['port']):
            return False
        if 'max_request_bytes' in x and not _v333(x['max_request_bytes']):
            return False
        if 'request_deadline_s' in x and not _v334(x['request_deadline_s']):
            return False
        if 'workers' in x and not _v335(x['workers']):
            return False
        for k in x:
            if k not in ('port', 'max_request_bytes', 'request_deadline_s', 'workers'):
                return False
    return True


def _v336(x: object) -> bool:
    # config#/properties/limits
    if not _m_defs._v262(x):
        return False
    return True


def _v337(x: object) -> bool:
    # config#/properties/notify
    if not (isinstance(x, dict)):
        return False
    return True


def _v237(x: object) -> bool:
    # config#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('advisor', 'format', 'lease', 'pool', 'roles', 'worker'):
            if k not in x:
                return False
        if 'format' in x and not _v238(x['format']):
            return False
        if 'roles' in x and not _v239(x['roles']):
            return False
        if 'advisor' in x and not _v275(x['advisor']):
            return False
        if 'worker' in x and not _v277(x['worker']):
            return False
        if 'pool' in x and not _v279(x['pool']):
            return False
        if 'lease' in x and not _v283(x['lease']):
            return False
        if 'worktrees' in x and not _v285(x['worktrees']):
            return False
        if 'store' in x and not _v289(x['store']):
            return False
        if 'retention' in x and not _v294(x['retention']):
            return False
        if 'providers' in x and not _v296(x['providers']):
            return False
        if 'routing' in x and not _v314(x['routing']):
            return False
        if 'verify' in x and not _v320(x['verify']):
            return False
        if 'merge' in x and not _v328(x['merge']):
            return False
        if 'proxy' in x and not _v331(x['proxy']):
            return False
        if 'limits' in x and not _v336(x['limits']):
            return False
        if 'notify' in x and not _v337(x['notify']):
            return False
        for k in x:
            if k not in ('format', 'roles', 'advisor', 'worker', 'pool', 'lease', 'worktrees', 'store', 'retention', 'providers', 'routing', 'verify', 'merge', 'proxy', 'limits', 'notify'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'config': _v237,
}
