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


def _v569(x: object) -> bool:
    # session#/properties/kind
    if not _eq(x, _C0):
        return False
    return True


def _v570(x: object) -> bool:
    # session#/properties/state
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v572(x: object) -> bool:
    # session#/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v573(x: object) -> bool:
    # session#/properties/payload/properties/ticket_id
    if not _m_defs._v7(x):
        return False
    return True


def _v574(x: object) -> bool:
    # session#/properties/payload/properties/role_id
    if not _m_defs._v17(x):
        return False
    return True


def _v575(x: object) -> bool:
    # session#/properties/payload/properties/engine
    if not _m_defs._v28(x):
        return False
    return True


def _v576(x: object) -> bool:
    # session#/properties/payload/properties/mode
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v577(x: object) -> bool:
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


def _v579(x: object) -> bool:
    # session#/properties/payload/properties/tmux_pane_id/anyOf/0
    if not _m_defs._v214(x):
        return False
    return True


def _v580(x: object) -> bool:
    # session#/properties/payload/properties/tmux_pane_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v578(x: object) -> bool:
    # session#/properties/payload/properties/tmux_pane_id
    if not (_v579(x) or _v580(x)):
        return False
    return True


def _v581(x: object) -> bool:
    # session#/properties/payload/properties/source_event_id
    if not _m_defs._v7(x):
        return False
    return True


def _v582(x: object) -> bool:
    # session#/properties/payload/properties/last_observed_at
    if not _m_defs._v86(x):
        return False
    return True


def _v583(x: object) -> bool:
    # session#/properties/payload/properties/heartbeat_deadline_at
    if not _m_defs._v86(x):
        return False
    return True


def _v585(x: object) -> bool:
    # session#/properties/payload/properties/parked_until/anyOf/0
    if not _m_defs._v86(x):
        return False
    return True


def _v586(x: object) -> bool:
    # session#/properties/payload/properties/parked_until/anyOf/1
    if not (x is None):
        return False
    return True


def _v584(x: object) -> bool:
    # session#/properties/payload/properties/parked_until
    if not (_v585(x) or _v586(x)):
        return False
    return True


def _v588(x: object) -> bool:
    # session#/properties/payload/properties/stop_reason/anyOf/0
    if not _m_defs._v92(x):
        return False
    return True


def _v589(x: object) -> bool:
    # session#/properties/payload/properties/stop_reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v587(x: object) -> bool:
    # session#/properties/payload/properties/stop_reason
    if not (_v588(x) or _v589(x)):
        return False
    return True


def _v590(x: object) -> bool:
    # session#/properties/payload/properties/stop_blocks
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 1000:
            return False
    return True


def _v592(x: object) -> bool:
    # session#/properties/payload/properties/agent_stopped_at/anyOf/0
    if not _m_defs._v86(x):
        return False
    return True


def _v593(x: object) -> bool:
    # session#/properties/payload/properties/agent_stopped_at/anyOf/1
    if not (x is None):
        return False
    return True


def _v591(x: object) -> bool:
    # session#/properties/payload/properties/agent_stopped_at
    if not (_v592(x) or _v593(x)):
        return False
    return True


def _v594(x: object) -> bool:
    # session#/properties/payload/properties/turns_without_result
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 1000000:
            return False
    return True


def _v595(x: object) -> bool:
    # session#/properties/payload/properties/progress_since
    if not _m_defs._v86(x):
        return False
    return True


def _v596(x: object) -> bool:
    # session#/properties/payload/properties/max_turns_without_result
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 100000:
            return False
    return True


def _v597(x: object) -> bool:
    # session#/properties/payload/properties/max_minutes_without_result
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 10080:
            return False
    return True


def _v599(x: object) -> bool:
    # session#/properties/payload/properties/agent_prompted_at/anyOf/0
    if not _m_defs._v86(x):
        return False
    return True


def _v600(x: object) -> bool:
    # session#/properties/payload/properties/agent_prompted_at/anyOf/1
    if not (x is None):
        return False
    return True


def _v598(x: object) -> bool:
    # session#/properties/payload/properties/agent_prompted_at
    if not (_v599(x) or _v600(x)):
        return False
    return True


def _v571(x: object) -> bool:
    # session#/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'engine', 'heartbeat_deadline_at', 'last_observed_at', 'mode', 'native_session_ref', 'parked_until', 'role_id', 'source_event_id', 'stop_blocks', 'stop_reason', 'ticket_id', 'tmux_pane_id'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v572(x['dispatch_id']):
            return False
        if 'ticket_id' in x and not _v573(x['ticket_id']):
            return False
        if 'role_id' in x and not _v574(x['role_id']):
            return False
        if 'engine' in x and not _v575(x['engine']):
            return False
        if 'mode' in x and not _v576(x['mode']):
            return False
        if 'native_session_ref' in x and not _v577(x['native_session_ref']):
            return False
        if 'tmux_pane_id' in x and not _v578(x['tmux_pane_id']):
            return False
        if 'source_event_id' in x and not _v581(x['source_event_id']):
            return False
        if 'last_observed_at' in x and not _v582(x['last_observed_at']):
            return False
        if 'heartbeat_deadline_at' in x and not _v583(x['heartbeat_deadline_at']):
            return False
        if 'parked_until' in x and not _v584(x['parked_until']):
            return False
        if 'stop_reason' in x and not _v587(x['stop_reason']):
            return False
        if 'stop_blocks' in x and not _v590(x['stop_blocks']):
            return False
        if 'agent_stopped_at' in x and not _v591(x['agent_stopped_at']):
            return False
        if 'turns_without_result' in x and not _v594(x['turns_without_result']):
            return False
        if 'progress_since' in x and not _v595(x['progress_since']):
            return False
        if 'max_turns_without_result' in x and not _v596(x['max_turns_without_result']):
            return False
        if 'max_minutes_without_result' in x and not _v597(x['max_minutes_without_result']):
            return False
        if 'agent_prompted_at' in x and not _v598(x['agent_prompted_at']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'ticket_id', 'role_id', 'engine', 'mode', 'native_session_ref', 'tmux_pane_id', 'source_event_id', 'last_observed_at', 'heartbeat_deadline_at', 'parked_until', 'stop_reason', 'stop_blocks', 'agent_stopped_at', 'turns_without_result', 'progress_since', 'max_turns_without_result', 'max_minutes_without_result', 'agent_prompted_at'):
                return False
    return True


def _v601(x: object) -> bool:
    # session#/allOf/0
    if not _m_record_envelope._v95(x):
        return False
    return True


def _v568(x: object) -> bool:
    # session#
    if isinstance(x, dict):
        if 'kind' in x and not _v569(x['kind']):
            return False
        if 'state' in x and not _v570(x['state']):
            return False
        if 'payload' in x and not _v571(x['payload']):
            return False
    if not _v601(x):
        return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'session': _v568,
}
