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

_P0 = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}\\Z'
_P1 = '^[0-9a-f-]{36}\\Z'
_C0: object = 'session'
_C1: tuple[object, ...] = ('running', 'parked', 'stalled', 'stopped')
_C2: tuple[object, ...] = ('goal', 'pane', 'command', 'exec')


def _v942(x: object) -> bool:
    # session#/properties/kind
    if not _eq(x, _C0):
        return False
    return True


def _v943(x: object) -> bool:
    # session#/properties/state
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v945(x: object) -> bool:
    # session#/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v946(x: object) -> bool:
    # session#/properties/payload/properties/ticket_id
    if not _m_defs._v7(x):
        return False
    return True


def _v947(x: object) -> bool:
    # session#/properties/payload/properties/role_id
    if not _m_defs._v17(x):
        return False
    return True


def _v948(x: object) -> bool:
    # session#/properties/payload/properties/engine
    if not _m_defs._v28(x):
        return False
    return True


def _v949(x: object) -> bool:
    # session#/properties/payload/properties/mode
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v950(x: object) -> bool:
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


def _v952(x: object) -> bool:
    # session#/properties/payload/properties/tmux_pane_id/anyOf/0
    if not _m_defs._v342(x):
        return False
    return True


def _v953(x: object) -> bool:
    # session#/properties/payload/properties/tmux_pane_id/anyOf/1
    if not (x is None):
        return False
    return True


def _v951(x: object) -> bool:
    # session#/properties/payload/properties/tmux_pane_id
    if not (_v952(x) or _v953(x)):
        return False
    return True


def _v955(x: object) -> bool:
    # session#/properties/payload/properties/pane_process/properties/boot_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
    return True


def _v956(x: object) -> bool:
    # session#/properties/payload/properties/pane_process/properties/pid
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 4194304:
            return False
    return True


def _v957(x: object) -> bool:
    # session#/properties/payload/properties/pane_process/properties/start_ticks
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 9007199254740991:
            return False
    return True


def _v954(x: object) -> bool:
    # session#/properties/payload/properties/pane_process
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('boot_id', 'pid', 'start_ticks'):
            if k not in x:
                return False
        if 'boot_id' in x and not _v955(x['boot_id']):
            return False
        if 'pid' in x and not _v956(x['pid']):
            return False
        if 'start_ticks' in x and not _v957(x['start_ticks']):
            return False
        for k in x:
            if k not in ('boot_id', 'pid', 'start_ticks'):
                return False
    return True


def _v958(x: object) -> bool:
    # session#/properties/payload/properties/source_event_id
    if not _m_defs._v7(x):
        return False
    return True


def _v959(x: object) -> bool:
    # session#/properties/payload/properties/last_observed_at
    if not _m_defs._v118(x):
        return False
    return True


def _v960(x: object) -> bool:
    # session#/properties/payload/properties/heartbeat_deadline_at
    if not _m_defs._v118(x):
        return False
    return True


def _v962(x: object) -> bool:
    # session#/properties/payload/properties/parked_until/anyOf/0
    if not _m_defs._v118(x):
        return False
    return True


def _v963(x: object) -> bool:
    # session#/properties/payload/properties/parked_until/anyOf/1
    if not (x is None):
        return False
    return True


def _v961(x: object) -> bool:
    # session#/properties/payload/properties/parked_until
    if not (_v962(x) or _v963(x)):
        return False
    return True


def _v965(x: object) -> bool:
    # session#/properties/payload/properties/stop_reason/anyOf/0
    if not _m_defs._v124(x):
        return False
    return True


def _v966(x: object) -> bool:
    # session#/properties/payload/properties/stop_reason/anyOf/1
    if not (x is None):
        return False
    return True


def _v964(x: object) -> bool:
    # session#/properties/payload/properties/stop_reason
    if not (_v965(x) or _v966(x)):
        return False
    return True


def _v967(x: object) -> bool:
    # session#/properties/payload/properties/stop_blocks
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 1000:
            return False
    return True


def _v969(x: object) -> bool:
    # session#/properties/payload/properties/agent_stopped_at/anyOf/0
    if not _m_defs._v118(x):
        return False
    return True


def _v970(x: object) -> bool:
    # session#/properties/payload/properties/agent_stopped_at/anyOf/1
    if not (x is None):
        return False
    return True


def _v968(x: object) -> bool:
    # session#/properties/payload/properties/agent_stopped_at
    if not (_v969(x) or _v970(x)):
        return False
    return True


def _v971(x: object) -> bool:
    # session#/properties/payload/properties/turns_without_result
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 1000000:
            return False
    return True


def _v972(x: object) -> bool:
    # session#/properties/payload/properties/progress_since
    if not _m_defs._v118(x):
        return False
    return True


def _v973(x: object) -> bool:
    # session#/properties/payload/properties/max_turns_without_result
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 100000:
            return False
    return True


def _v974(x: object) -> bool:
    # session#/properties/payload/properties/max_minutes_without_result
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 10080:
            return False
    return True


def _v976(x: object) -> bool:
    # session#/properties/payload/properties/agent_prompted_at/anyOf/0
    if not _m_defs._v118(x):
        return False
    return True


def _v977(x: object) -> bool:
    # session#/properties/payload/properties/agent_prompted_at/anyOf/1
    if not (x is None):
        return False
    return True


def _v975(x: object) -> bool:
    # session#/properties/payload/properties/agent_prompted_at
    if not (_v976(x) or _v977(x)):
        return False
    return True


def _v978(x: object) -> bool:
    # session#/properties/payload/properties/last_prompted_at
    if not _m_defs._v118(x):
        return False
    return True


def _v979(x: object) -> bool:
    # session#/properties/payload/properties/prompt_due_at
    if not _m_defs._v118(x):
        return False
    return True


def _v944(x: object) -> bool:
    # session#/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'engine', 'heartbeat_deadline_at', 'last_observed_at', 'mode', 'native_session_ref', 'parked_until', 'role_id', 'source_event_id', 'stop_blocks', 'stop_reason', 'ticket_id', 'tmux_pane_id'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v945(x['dispatch_id']):
            return False
        if 'ticket_id' in x and not _v946(x['ticket_id']):
            return False
        if 'role_id' in x and not _v947(x['role_id']):
            return False
        if 'engine' in x and not _v948(x['engine']):
            return False
        if 'mode' in x and not _v949(x['mode']):
            return False
        if 'native_session_ref' in x and not _v950(x['native_session_ref']):
            return False
        if 'tmux_pane_id' in x and not _v951(x['tmux_pane_id']):
            return False
        if 'pane_process' in x and not _v954(x['pane_process']):
            return False
        if 'source_event_id' in x and not _v958(x['source_event_id']):
            return False
        if 'last_observed_at' in x and not _v959(x['last_observed_at']):
            return False
        if 'heartbeat_deadline_at' in x and not _v960(x['heartbeat_deadline_at']):
            return False
        if 'parked_until' in x and not _v961(x['parked_until']):
            return False
        if 'stop_reason' in x and not _v964(x['stop_reason']):
            return False
        if 'stop_blocks' in x and not _v967(x['stop_blocks']):
            return False
        if 'agent_stopped_at' in x and not _v968(x['agent_stopped_at']):
            return False
        if 'turns_without_result' in x and not _v971(x['turns_without_result']):
            return False
        if 'progress_since' in x and not _v972(x['progress_since']):
            return False
        if 'max_turns_without_result' in x and not _v973(x['max_turns_without_result']):
            return False
        if 'max_minutes_without_result' in x and not _v974(x['max_minutes_without_result']):
            return False
        if 'agent_prompted_at' in x and not _v975(x['agent_prompted_at']):
            return False
        if 'last_prompted_at' in x and not _v978(x['last_prompted_at']):
            return False
        if 'prompt_due_at' in x and not _v979(x['prompt_due_at']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'ticket_id', 'role_id', 'engine', 'mode', 'native_session_ref', 'tmux_pane_id', 'pane_process', 'source_event_id', 'last_observed_at', 'heartbeat_deadline_at', 'parked_until', 'stop_reason', 'stop_blocks', 'agent_stopped_at', 'turns_without_result', 'progress_since', 'max_turns_without_result', 'max_minutes_without_result', 'agent_prompted_at', 'last_prompted_at', 'prompt_due_at'):
                return False
    return True


def _v980(x: object) -> bool:
    # session#/allOf/0
    if not _m_record_envelope._v127(x):
        return False
    return True


def _v941(x: object) -> bool:
    # session#
    if isinstance(x, dict):
        if 'kind' in x and not _v942(x['kind']):
            return False
        if 'state' in x and not _v943(x['state']):
            return False
        if 'payload' in x and not _v944(x['payload']):
            return False
    if not _v980(x):
        return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'session': _v941,
}
