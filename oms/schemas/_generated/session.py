"""Predicates of the `session` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs
from oms.schemas._generated import record_envelope as _m_record_envelope

_P0 = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$'
_C0: object = 'session'
_C1: tuple[object, ...] = ('running', 'parked', 'stalled', 'stopped')
_C2: tuple[object, ...] = ('goal', 'pane', 'command')


def _v521(x: object) -> bool:
    # session#/properties/kind
    if not _eq(x, _C0):
        return False
    return True


def _v522(x: object) -> bool:
    # session#/properties/state
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v524(x: object) -> bool:
    # session#/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v525(x: object) -> bool:
    # session#/properties/payload/properties/ticket_id
    if not _m_defs._v7(x):
        return False
    return True


def _v526(x: object) -> bool:
    # session#/properties/payload/properties/role_id
    if not _m_defs._v17(x):
        return False
    return True


def _v527(x: object) -> bool:
    # session#/properties/payload/properties/engine
    if not _m_defs._v28(x):
        return False
    return True


def _v528(x: object) -> bool:
    # session#/properties/payload/properties/mode
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v529(x: object) -> bool:
    # session#/properties/payload/properties/native_session_ref
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


def _v531(x: object) -> bool:
    # session#/properties/payload/properties/tmux_pane_id/anyOf/0
    if not _m_defs._v185(x):
        return False
    return True


def _v532(x: object) -> bool:
    # session#/properties/payload/properties/tmux_pane_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v530(x: object) -> bool:
    # session#/properties/payload/properties/tmux_pane_id
    if not (_v531(x) or _v532(x)):
        return False
    return True


def _v533(x: object) -> bool:
    # session#/properties/payload/properties/source_event_id
    if not _m_defs._v7(x):
        return False
    return True


def _v534(x: object) -> bool:
    # session#/properties/payload/properties/last_observed_at
    if not _m_defs._v85(x):
        return False
    return True


def _v535(x: object) -> bool:
    # session#/properties/payload/properties/heartbeat_deadline_at
    if not _m_defs._v85(x):
        return False
    return True


def _v537(x: object) -> bool:
    # session#/properties/payload/properties/parked_until/anyOf/0
    if not _m_defs._v85(x):
        return False
    return True


def _v538(x: object) -> bool:
    # session#/properties/payload/properties/parked_until/anyOf/1
    if not (x is None):
        return False
    return True


def _v536(x: object) -> bool:
    # session#/properties/payload/properties/parked_until
    if not (_v537(x) or _v538(x)):
        return False
    return True


def _v540(x: object) -> bool:
    # session#/properties/payload/properties/stop_reason/anyOf/0
    if not _m_defs._v91(x):
        return False
    return True


def _v541(x: object) -> bool:
    # session#/properties/payload/properties/stop_reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v539(x: object) -> bool:
    # session#/properties/payload/properties/stop_reason
    if not (_v540(x) or _v541(x)):
        return False
    return True


def _v542(x: object) -> bool:
    # session#/properties/payload/properties/stop_blocks
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 1000:
            return False
    return True


def _v544(x: object) -> bool:
    # session#/properties/payload/properties/agent_stopped_at/anyOf/0
    if not _m_defs._v85(x):
        return False
    return True


def _v545(x: object) -> bool:
    # session#/properties/payload/properties/agent_stopped_at/anyOf/1
    if not (x is None):
        return False
    return True


def _v543(x: object) -> bool:
    # session#/properties/payload/properties/agent_stopped_at
    if not (_v544(x) or _v545(x)):
        return False
    return True


def _v546(x: object) -> bool:
    # session#/properties/payload/properties/turns_without_result
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 1000000:
            return False
    return True


def _v547(x: object) -> bool:
    # session#/properties/payload/properties/progress_since
    if not _m_defs._v85(x):
        return False
    return True


def _v548(x: object) -> bool:
    # session#/properties/payload/properties/max_turns_without_result
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 100000:
            return False
    return True


def _v549(x: object) -> bool:
    # session#/properties/payload/properties/max_minutes_without_result
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 10080:
            return False
    return True


def _v551(x: object) -> bool:
    # session#/properties/payload/properties/agent_prompted_at/anyOf/0
    if not _m_defs._v85(x):
        return False
    return True


def _v552(x: object) -> bool:
    # session#/properties/payload/properties/agent_prompted_at/anyOf/1
    if not (x is None):
        return False
    return True


def _v550(x: object) -> bool:
    # session#/properties/payload/properties/agent_prompted_at
    if not (_v551(x) or _v552(x)):
        return False
    return True


def _v523(x: object) -> bool:
    # session#/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'engine', 'heartbeat_deadline_at', 'last_observed_at', 'mode', 'native_session_ref', 'parked_until', 'role_id', 'source_event_id', 'stop_blocks', 'stop_reason', 'ticket_id', 'tmux_pane_id'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v524(x['dispatch_id']):
            return False
        if 'ticket_id' in x and not _v525(x['ticket_id']):
            return False
        if 'role_id' in x and not _v526(x['role_id']):
            return False
        if 'engine' in x and not _v527(x['engine']):
            return False
        if 'mode' in x and not _v528(x['mode']):
            return False
        if 'native_session_ref' in x and not _v529(x['native_session_ref']):
            return False
        if 'tmux_pane_id' in x and not _v530(x['tmux_pane_id']):
            return False
        if 'source_event_id' in x and not _v533(x['source_event_id']):
            return False
        if 'last_observed_at' in x and not _v534(x['last_observed_at']):
            return False
        if 'heartbeat_deadline_at' in x and not _v535(x['heartbeat_deadline_at']):
            return False
        if 'parked_until' in x and not _v536(x['parked_until']):
            return False
        if 'stop_reason' in x and not _v539(x['stop_reason']):
            return False
        if 'stop_blocks' in x and not _v542(x['stop_blocks']):
            return False
        if 'agent_stopped_at' in x and not _v543(x['agent_stopped_at']):
            return False
        if 'turns_without_result' in x and not _v546(x['turns_without_result']):
            return False
        if 'progress_since' in x and not _v547(x['progress_since']):
            return False
        if 'max_turns_without_result' in x and not _v548(x['max_turns_without_result']):
            return False
        if 'max_minutes_without_result' in x and not _v549(x['max_minutes_without_result']):
            return False
        if 'agent_prompted_at' in x and not _v550(x['agent_prompted_at']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'ticket_id', 'role_id', 'engine', 'mode', 'native_session_ref', 'tmux_pane_id', 'source_event_id', 'last_observed_at', 'heartbeat_deadline_at', 'parked_until', 'stop_reason', 'stop_blocks', 'agent_stopped_at', 'turns_without_result', 'progress_since', 'max_turns_without_result', 'max_minutes_without_result', 'agent_prompted_at'):
                return False
    return True


def _v553(x: object) -> bool:
    # session#/allOf/0
    if not _m_record_envelope._v94(x):
        return False
    return True


def _v520(x: object) -> bool:
    # session#
    if isinstance(x, dict):
        if 'kind' in x and not _v521(x['kind']):
            return False
        if 'state' in x and not _v522(x['state']):
            return False
        if 'payload' in x and not _v523(x['payload']):
            return False
    if not _v553(x):
        return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'session': _v520,
}
