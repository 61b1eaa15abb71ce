"""Predicates of the `event` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs
from oms.schemas._generated import notification as _m_notification

_P0 = '^[0-9a-f-]{36}\\Z'
_P1 = '^[A-Za-z]{1,40}\\Z'
_P2 = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}\\Z'
_P3 = '^[0-9a-f]{64}\\Z'
_P4 = '^[0-9a-f]{40}([0-9a-f]{24})?\\Z'
_C0: object = 'oms-event-v1'
_C1: tuple[object, ...] = ('bridge-acknowledged', 'bridge-listed', 'changes-requested', 'dispatch-delivery-requested', 'hook-observed', 'merge-begun', 'notice', 'result-published', 'session-activated', 'session-parked', 'session-registered', 'session-resumed', 'session-stopped', 'ticket-reopened', 'verification-recorded', 'worker-message')
_C2: object = 'dispatch-delivery-requested'
_C3: object = 'session-parked'
_C4: object = 'session-registered'
_C5: object = 'session-activated'
_C6: object = 'session-resumed'
_C7: object = 'session-stopped'
_C8: object = 'bridge-acknowledged'
_C9: object = 'bridge-listed'
_C10: tuple[object, ...] = ('codex', 'claude', 'command')
_C11: object = 'hook-observed'
_C12: tuple[object, ...] = ('blocked', 'open')
_C13: object = 'ticket-reopened'
_C14: object = 'worker-message'
_C15: object = 'notice'
_C16: object = 'changes-requested'
_C17: object = 'result-published'
_C18: tuple[object, ...] = ('merge-commit', 'fast-forward')
_C19: object = 'merge-begun'
_C20: object = 'verification-recorded'


def _v416(x: object) -> bool:
    # event#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v417(x: object) -> bool:
    # event#/properties/event_id
    if not _m_defs._v7(x):
        return False
    return True


def _v418(x: object) -> bool:
    # event#/properties/event_type
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v419(x: object) -> bool:
    # event#/properties/created_at
    if not _m_defs._v118(x):
        return False
    return True


def _v420(x: object) -> bool:
    # event#/properties/payload
    if not (isinstance(x, dict)):
        return False
    return True


def _v424(x: object) -> bool:
    # event#/allOf/0/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v425(x: object) -> bool:
    # event#/allOf/0/then/properties/payload/properties/dispatch_version
    if not _m_defs._v132(x):
        return False
    return True


def _v426(x: object) -> bool:
    # event#/allOf/0/then/properties/payload/properties/worker_record_id
    if not _m_defs._v7(x):
        return False
    return True


def _v427(x: object) -> bool:
    # event#/allOf/0/then/properties/payload/properties/ticket_id
    if not _m_defs._v7(x):
        return False
    return True


def _v428(x: object) -> bool:
    # event#/allOf/0/then/properties/payload/properties/attempt
    if not _m_defs._v11(x):
        return False
    return True


def _v429(x: object) -> bool:
    # event#/allOf/0/then/properties/payload/properties/lease_token
    if not _m_defs._v341(x):
        return False
    return True


def _v423(x: object) -> bool:
    # event#/allOf/0/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'dispatch_id', 'dispatch_version', 'lease_token', 'ticket_id', 'worker_record_id'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v424(x['dispatch_id']):
            return False
        if 'dispatch_version' in x and not _v425(x['dispatch_version']):
            return False
        if 'worker_record_id' in x and not _v426(x['worker_record_id']):
            return False
        if 'ticket_id' in x and not _v427(x['ticket_id']):
            return False
        if 'attempt' in x and not _v428(x['attempt']):
            return False
        if 'lease_token' in x and not _v429(x['lease_token']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'dispatch_version', 'worker_record_id', 'ticket_id', 'attempt', 'lease_token'):
                return False
    return True


def _v422(x: object) -> bool:
    # event#/allOf/0/then
    if isinstance(x, dict):
        if 'payload' in x and not _v423(x['payload']):
            return False
    return True


def _v431(x: object) -> bool:
    # event#/allOf/0/if/properties/event_type
    if not _eq(x, _C2):
        return False
    return True


def _v430(x: object) -> bool:
    # event#/allOf/0/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v431(x['event_type']):
            return False
    return True


def _v421(x: object) -> bool:
    # event#/allOf/0
    if _v430(x):
        if not _v422(x):
            return False
    else:
        pass
    return True


def _v435(x: object) -> bool:
    # event#/allOf/1/then/properties/payload/properties/session_id
    if not _m_defs._v15(x):
        return False
    return True


def _v436(x: object) -> bool:
    # event#/allOf/1/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v437(x: object) -> bool:
    # event#/allOf/1/then/properties/payload/properties/parked_until
    if not _m_defs._v118(x):
        return False
    return True


def _v438(x: object) -> bool:
    # event#/allOf/1/then/properties/payload/properties/session_version
    if not _m_defs._v132(x):
        return False
    return True


def _v434(x: object) -> bool:
    # event#/allOf/1/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'parked_until', 'session_id', 'session_version'):
            if k not in x:
                return False
        if 'session_id' in x and not _v435(x['session_id']):
            return False
        if 'dispatch_id' in x and not _v436(x['dispatch_id']):
            return False
        if 'parked_until' in x and not _v437(x['parked_until']):
            return False
        if 'session_version' in x and not _v438(x['session_version']):
            return False
        for k in x:
            if k not in ('session_id', 'dispatch_id', 'parked_until', 'session_version'):
                return False
    return True


def _v433(x: object) -> bool:
    # event#/allOf/1/then
    if isinstance(x, dict):
        if 'payload' in x and not _v434(x['payload']):
            return False
    return True


def _v440(x: object) -> bool:
    # event#/allOf/1/if/properties/event_type
    if not _eq(x, _C3):
        return False
    return True


def _v439(x: object) -> bool:
    # event#/allOf/1/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v440(x['event_type']):
            return False
    return True


def _v432(x: object) -> bool:
    # event#/allOf/1
    if _v439(x):
        if not _v433(x):
            return False
    else:
        pass
    return True


def _v444(x: object) -> bool:
    # event#/allOf/2/then/properties/payload/properties/session_id
    if not _m_defs._v15(x):
        return False
    return True


def _v445(x: object) -> bool:
    # event#/allOf/2/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v446(x: object) -> bool:
    # event#/allOf/2/then/properties/payload/properties/session_version
    if not _m_defs._v132(x):
        return False
    return True


def _v443(x: object) -> bool:
    # event#/allOf/2/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'session_id', 'session_version'):
            if k not in x:
                return False
        if 'session_id' in x and not _v444(x['session_id']):
            return False
        if 'dispatch_id' in x and not _v445(x['dispatch_id']):
            return False
        if 'session_version' in x and not _v446(x['session_version']):
            return False
        for k in x:
            if k not in ('session_id', 'dispatch_id', 'session_version'):
                return False
    return True


def _v442(x: object) -> bool:
    # event#/allOf/2/then
    if isinstance(x, dict):
        if 'payload' in x and not _v443(x['payload']):
            return False
    return True


def _v448(x: object) -> bool:
    # event#/allOf/2/if/properties/event_type
    if not _eq(x, _C4):
        return False
    return True


def _v447(x: object) -> bool:
    # event#/allOf/2/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v448(x['event_type']):
            return False
    return True


def _v441(x: object) -> bool:
    # event#/allOf/2
    if _v447(x):
        if not _v442(x):
            return False
    else:
        pass
    return True


def _v452(x: object) -> bool:
    # event#/allOf/3/then/properties/payload/properties/session_id
    if not _m_defs._v15(x):
        return False
    return True


def _v453(x: object) -> bool:
    # event#/allOf/3/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v454(x: object) -> bool:
    # event#/allOf/3/then/properties/payload/properties/session_version
    if not _m_defs._v132(x):
        return False
    return True


def _v451(x: object) -> bool:
    # event#/allOf/3/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'session_id', 'session_version'):
            if k not in x:
                return False
        if 'session_id' in x and not _v452(x['session_id']):
            return False
        if 'dispatch_id' in x and not _v453(x['dispatch_id']):
            return False
        if 'session_version' in x and not _v454(x['session_version']):
            return False
        for k in x:
            if k not in ('session_id', 'dispatch_id', 'session_version'):
                return False
    return True


def _v450(x: object) -> bool:
    # event#/allOf/3/then
    if isinstance(x, dict):
        if 'payload' in x and not _v451(x['payload']):
            return False
    return True


def _v456(x: object) -> bool:
    # event#/allOf/3/if/properties/event_type
    if not _eq(x, _C5):
        return False
    return True


def _v455(x: object) -> bool:
    # event#/allOf/3/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v456(x['event_type']):
            return False
    return True


def _v449(x: object) -> bool:
    # event#/allOf/3
    if _v455(x):
        if not _v450(x):
            return False
    else:
        pass
    return True


def _v460(x: object) -> bool:
    # event#/allOf/4/then/properties/payload/properties/session_id
    if not _m_defs._v15(x):
        return False
    return True


def _v461(x: object) -> bool:
    # event#/allOf/4/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v462(x: object) -> bool:
    # event#/allOf/4/then/properties/payload/properties/session_version
    if not _m_defs._v132(x):
        return False
    return True


def _v459(x: object) -> bool:
    # event#/allOf/4/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'session_id', 'session_version'):
            if k not in x:
                return False
        if 'session_id' in x and not _v460(x['session_id']):
            return False
        if 'dispatch_id' in x and not _v461(x['dispatch_id']):
            return False
        if 'session_version' in x and not _v462(x['session_version']):
            return False
        for k in x:
            if k not in ('session_id', 'dispatch_id', 'session_version'):
                return False
    return True


def _v458(x: object) -> bool:
    # event#/allOf/4/then
    if isinstance(x, dict):
        if 'payload' in x and not _v459(x['payload']):
            return False
    return True


def _v464(x: object) -> bool:
    # event#/allOf/4/if/properties/event_type
    if not _eq(x, _C6):
        return False
    return True


def _v463(x: object) -> bool:
    # event#/allOf/4/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v464(x['event_type']):
            return False
    return True


def _v457(x: object) -> bool:
    # event#/allOf/4
    if _v463(x):
        if not _v458(x):
            return False
    else:
        pass
    return True


def _v468(x: object) -> bool:
    # event#/allOf/5/then/properties/payload/properties/session_id
    if not _m_defs._v15(x):
        return False
    return True


def _v469(x: object) -> bool:
    # event#/allOf/5/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v470(x: object) -> bool:
    # event#/allOf/5/then/properties/payload/properties/reason
    if not _m_defs._v124(x):
        return False
    return True


def _v471(x: object) -> bool:
    # event#/allOf/5/then/properties/payload/properties/session_version
    if not _m_defs._v132(x):
        return False
    return True


def _v467(x: object) -> bool:
    # event#/allOf/5/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'reason', 'session_id', 'session_version'):
            if k not in x:
                return False
        if 'session_id' in x and not _v468(x['session_id']):
            return False
        if 'dispatch_id' in x and not _v469(x['dispatch_id']):
            return False
        if 'reason' in x and not _v470(x['reason']):
            return False
        if 'session_version' in x and not _v471(x['session_version']):
            return False
        for k in x:
            if k not in ('session_id', 'dispatch_id', 'reason', 'session_version'):
                return False
    return True


def _v466(x: object) -> bool:
    # event#/allOf/5/then
    if isinstance(x, dict):
        if 'payload' in x and not _v467(x['payload']):
            return False
    return True


def _v473(x: object) -> bool:
    # event#/allOf/5/if/properties/event_type
    if not _eq(x, _C7):
        return False
    return True


def _v472(x: object) -> bool:
    # event#/allOf/5/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v473(x['event_type']):
            return False
    return True


def _v465(x: object) -> bool:
    # event#/allOf/5
    if _v472(x):
        if not _v466(x):
            return False
    else:
        pass
    return True


def _v477(x: object) -> bool:
    # event#/allOf/6/then/properties/payload/properties/session_id
    if not _m_defs._v15(x):
        return False
    return True


def _v478(x: object) -> bool:
    # event#/allOf/6/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v479(x: object) -> bool:
    # event#/allOf/6/then/properties/payload/properties/nonce
    if not _m_defs._v3(x):
        return False
    return True


def _v476(x: object) -> bool:
    # event#/allOf/6/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'nonce', 'session_id'):
            if k not in x:
                return False
        if 'session_id' in x and not _v477(x['session_id']):
            return False
        if 'dispatch_id' in x and not _v478(x['dispatch_id']):
            return False
        if 'nonce' in x and not _v479(x['nonce']):
            return False
        for k in x:
            if k not in ('session_id', 'dispatch_id', 'nonce'):
                return False
    return True


def _v475(x: object) -> bool:
    # event#/allOf/6/then
    if isinstance(x, dict):
        if 'payload' in x and not _v476(x['payload']):
            return False
    return True


def _v481(x: object) -> bool:
    # event#/allOf/6/if/properties/event_type
    if not _eq(x, _C8):
        return False
    return True


def _v480(x: object) -> bool:
    # event#/allOf/6/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v481(x['event_type']):
            return False
    return True


def _v474(x: object) -> bool:
    # event#/allOf/6
    if _v480(x):
        if not _v475(x):
            return False
    else:
        pass
    return True


def _v485(x: object) -> bool:
    # event#/allOf/7/then/properties/payload/properties/session_id
    if not _m_defs._v15(x):
        return False
    return True


def _v486(x: object) -> bool:
    # event#/allOf/7/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v487(x: object) -> bool:
    # event#/allOf/7/then/properties/payload/properties/nonce
    if not _m_defs._v3(x):
        return False
    return True


def _v489(x: object) -> bool:
    # event#/allOf/7/then/properties/payload/properties/pane_process/properties/boot_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
    return True


def _v490(x: object) -> bool:
    # event#/allOf/7/then/properties/payload/properties/pane_process/properties/pid
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 4194304:
            return False
    return True


def _v491(x: object) -> bool:
    # event#/allOf/7/then/properties/payload/properties/pane_process/properties/start_ticks
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 9007199254740991:
            return False
    return True


def _v488(x: object) -> bool:
    # event#/allOf/7/then/properties/payload/properties/pane_process
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('boot_id', 'pid', 'start_ticks'):
            if k not in x:
                return False
        if 'boot_id' in x and not _v489(x['boot_id']):
            return False
        if 'pid' in x and not _v490(x['pid']):
            return False
        if 'start_ticks' in x and not _v491(x['start_ticks']):
            return False
        for k in x:
            if k not in ('boot_id', 'pid', 'start_ticks'):
                return False
    return True


def _v484(x: object) -> bool:
    # event#/allOf/7/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'nonce', 'session_id'):
            if k not in x:
                return False
        if 'session_id' in x and not _v485(x['session_id']):
            return False
        if 'dispatch_id' in x and not _v486(x['dispatch_id']):
            return False
        if 'nonce' in x and not _v487(x['nonce']):
            return False
        if 'pane_process' in x and not _v488(x['pane_process']):
            return False
        for k in x:
            if k not in ('session_id', 'dispatch_id', 'nonce', 'pane_process'):
                return False
    return True


def _v483(x: object) -> bool:
    # event#/allOf/7/then
    if isinstance(x, dict):
        if 'payload' in x and not _v484(x['payload']):
            return False
    return True


def _v493(x: object) -> bool:
    # event#/allOf/7/if/properties/event_type
    if not _eq(x, _C9):
        return False
    return True


def _v492(x: object) -> bool:
    # event#/allOf/7/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v493(x['event_type']):
            return False
    return True


def _v482(x: object) -> bool:
    # event#/allOf/7
    if _v492(x):
        if not _v483(x):
            return False
    else:
        pass
    return True


def _v497(x: object) -> bool:
    # event#/allOf/8/then/properties/payload/properties/session_id
    if not _m_defs._v15(x):
        return False
    return True


def _v498(x: object) -> bool:
    # event#/allOf/8/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v499(x: object) -> bool:
    # event#/allOf/8/then/properties/payload/properties/nonce
    if not _m_defs._v3(x):
        return False
    return True


def _v500(x: object) -> bool:
    # event#/allOf/8/then/properties/payload/properties/provider
    if not any(_eq(x, c) for c in _C10):
        return False
    return True


def _v501(x: object) -> bool:
    # event#/allOf/8/then/properties/payload/properties/hook_event
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
    return True


def _v502(x: object) -> bool:
    # event#/allOf/8/then/properties/payload/properties/native_session_ref
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
        if len(x) > 128:
            return False
    return True


def _v496(x: object) -> bool:
    # event#/allOf/8/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'hook_event', 'native_session_ref', 'nonce', 'provider', 'session_id'):
            if k not in x:
                return False
        if 'session_id' in x and not _v497(x['session_id']):
            return False
        if 'dispatch_id' in x and not _v498(x['dispatch_id']):
            return False
        if 'nonce' in x and not _v499(x['nonce']):
            return False
        if 'provider' in x and not _v500(x['provider']):
            return False
        if 'hook_event' in x and not _v501(x['hook_event']):
            return False
        if 'native_session_ref' in x and not _v502(x['native_session_ref']):
            return False
        for k in x:
            if k not in ('session_id', 'dispatch_id', 'nonce', 'provider', 'hook_event', 'native_session_ref'):
                return False
    return True


def _v495(x: object) -> bool:
    # event#/allOf/8/then
    if isinstance(x, dict):
        if 'payload' in x and not _v496(x['payload']):
            return False
    return True


def _v504(x: object) -> bool:
    # event#/allOf/8/if/properties/event_type
    if not _eq(x, _C11):
        return False
    return True


def _v503(x: object) -> bool:
    # event#/allOf/8/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v504(x['event_type']):
            return False
    return True


def _v494(x: object) -> bool:
    # event#/allOf/8
    if _v503(x):
        if not _v495(x):
            return False
    else:
        pass
    return True


def _v508(x: object) -> bool:
    # event#/allOf/9/then/properties/payload/properties/ticket_id
    if not _m_defs._v7(x):
        return False
    return True


def _v509(x: object) -> bool:
    # event#/allOf/9/then/properties/payload/properties/ticket_version
    if not _m_defs._v132(x):
        return False
    return True


def _v510(x: object) -> bool:
    # event#/allOf/9/then/properties/payload/properties/from_state
    if not any(_eq(x, c) for c in _C12):
        return False
    return True


def _v511(x: object) -> bool:
    # event#/allOf/9/then/properties/payload/properties/attempt
    if not _m_defs._v11(x):
        return False
    return True


def _v512(x: object) -> bool:
    # event#/allOf/9/then/properties/payload/properties/person
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v513(x: object) -> bool:
    # event#/allOf/9/then/properties/payload/properties/reason
    if not _m_defs._v124(x):
        return False
    return True


def _v507(x: object) -> bool:
    # event#/allOf/9/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'from_state', 'person', 'reason', 'ticket_id', 'ticket_version'):
            if k not in x:
                return False
        if 'ticket_id' in x and not _v508(x['ticket_id']):
            return False
        if 'ticket_version' in x and not _v509(x['ticket_version']):
            return False
        if 'from_state' in x and not _v510(x['from_state']):
            return False
        if 'attempt' in x and not _v511(x['attempt']):
            return False
        if 'person' in x and not _v512(x['person']):
            return False
        if 'reason' in x and not _v513(x['reason']):
            return False
        for k in x:
            if k not in ('ticket_id', 'ticket_version', 'from_state', 'attempt', 'person', 'reason'):
                return False
    return True


def _v506(x: object) -> bool:
    # event#/allOf/9/then
    if isinstance(x, dict):
        if 'payload' in x and not _v507(x['payload']):
            return False
    return True


def _v515(x: object) -> bool:
    # event#/allOf/9/if/properties/event_type
    if not _eq(x, _C13):
        return False
    return True


def _v514(x: object) -> bool:
    # event#/allOf/9/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v515(x['event_type']):
            return False
    return True


def _v505(x: object) -> bool:
    # event#/allOf/9
    if _v514(x):
        if not _v506(x):
            return False
    else:
        pass
    return True


def _v519(x: object) -> bool:
    # event#/allOf/10/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v520(x: object) -> bool:
    # event#/allOf/10/then/properties/payload/properties/session_id
    if not _m_defs._v7(x):
        return False
    return True


def _v521(x: object) -> bool:
    # event#/allOf/10/then/properties/payload/properties/ticket_id
    if not _m_defs._v7(x):
        return False
    return True


def _v522(x: object) -> bool:
    # event#/allOf/10/then/properties/payload/properties/person
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v523(x: object) -> bool:
    # event#/allOf/10/then/properties/payload/properties/text
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) < 1:
            return False
        if len(x) > 16385:
            return False
    return True


def _v524(x: object) -> bool:
    # event#/allOf/10/then/properties/payload/properties/text_sha256
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P3, x) is None:
            return False
    return True


def _v518(x: object) -> bool:
    # event#/allOf/10/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'person', 'session_id', 'text', 'text_sha256', 'ticket_id'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v519(x['dispatch_id']):
            return False
        if 'session_id' in x and not _v520(x['session_id']):
            return False
        if 'ticket_id' in x and not _v521(x['ticket_id']):
            return False
        if 'person' in x and not _v522(x['person']):
            return False
        if 'text' in x and not _v523(x['text']):
            return False
        if 'text_sha256' in x and not _v524(x['text_sha256']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'session_id', 'ticket_id', 'person', 'text', 'text_sha256'):
                return False
    return True


def _v517(x: object) -> bool:
    # event#/allOf/10/then
    if isinstance(x, dict):
        if 'payload' in x and not _v518(x['payload']):
            return False
    return True


def _v526(x: object) -> bool:
    # event#/allOf/10/if/properties/event_type
    if not _eq(x, _C14):
        return False
    return True


def _v525(x: object) -> bool:
    # event#/allOf/10/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v526(x['event_type']):
            return False
    return True


def _v516(x: object) -> bool:
    # event#/allOf/10
    if _v525(x):
        if not _v517(x):
            return False
    else:
        pass
    return True


def _v529(x: object) -> bool:
    # event#/allOf/11/then/properties/payload
    if not _m_notification._v530(x):
        return False
    return True


def _v528(x: object) -> bool:
    # event#/allOf/11/then
    if isinstance(x, dict):
        if 'payload' in x and not _v529(x['payload']):
            return False
    return True


def _v543(x: object) -> bool:
    # event#/allOf/11/if/properties/event_type
    if not _eq(x, _C15):
        return False
    return True


def _v542(x: object) -> bool:
    # event#/allOf/11/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v543(x['event_type']):
            return False
    return True


def _v527(x: object) -> bool:
    # event#/allOf/11
    if _v542(x):
        if not _v528(x):
            return False
    else:
        pass
    return True


def _v547(x: object) -> bool:
    # event#/allOf/12/then/properties/payload/properties/ticket_id
    if not _m_defs._v7(x):
        return False
    return True


def _v548(x: object) -> bool:
    # event#/allOf/12/then/properties/payload/properties/ticket_version
    if not _m_defs._v132(x):
        return False
    return True


def _v549(x: object) -> bool:
    # event#/allOf/12/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v550(x: object) -> bool:
    # event#/allOf/12/then/properties/payload/properties/attempt
    if not _m_defs._v11(x):
        return False
    return True


def _v551(x: object) -> bool:
    # event#/allOf/12/then/properties/payload/properties/person
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v552(x: object) -> bool:
    # event#/allOf/12/then/properties/payload/properties/reason
    if not _m_defs._v124(x):
        return False
    return True


def _v553(x: object) -> bool:
    # event#/allOf/12/then/properties/payload/properties/comments
    if not _m_defs._v11(x):
        return False
    return True


def _v554(x: object) -> bool:
    # event#/allOf/12/then/properties/payload/properties/changes_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v546(x: object) -> bool:
    # event#/allOf/12/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'changes_sha256', 'comments', 'dispatch_id', 'person', 'reason', 'ticket_id', 'ticket_version'):
            if k not in x:
                return False
        if 'ticket_id' in x and not _v547(x['ticket_id']):
            return False
        if 'ticket_version' in x and not _v548(x['ticket_version']):
            return False
        if 'dispatch_id' in x and not _v549(x['dispatch_id']):
            return False
        if 'attempt' in x and not _v550(x['attempt']):
            return False
        if 'person' in x and not _v551(x['person']):
            return False
        if 'reason' in x and not _v552(x['reason']):
            return False
        if 'comments' in x and not _v553(x['comments']):
            return False
        if 'changes_sha256' in x and not _v554(x['changes_sha256']):
            return False
        for k in x:
            if k not in ('ticket_id', 'ticket_version', 'dispatch_id', 'attempt', 'person', 'reason', 'comments', 'changes_sha256'):
                return False
    return True


def _v545(x: object) -> bool:
    # event#/allOf/12/then
    if isinstance(x, dict):
        if 'payload' in x and not _v546(x['payload']):
            return False
    return True


def _v556(x: object) -> bool:
    # event#/allOf/12/if/properties/event_type
    if not _eq(x, _C16):
        return False
    return True


def _v555(x: object) -> bool:
    # event#/allOf/12/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v556(x['event_type']):
            return False
    return True


def _v544(x: object) -> bool:
    # event#/allOf/12
    if _v555(x):
        if not _v545(x):
            return False
    else:
        pass
    return True


def _v560(x: object) -> bool:
    # event#/allOf/13/then/properties/payload/properties/ticket_id
    if not _m_defs._v7(x):
        return False
    return True


def _v561(x: object) -> bool:
    # event#/allOf/13/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v562(x: object) -> bool:
    # event#/allOf/13/then/properties/payload/properties/person
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v563(x: object) -> bool:
    # event#/allOf/13/then/properties/payload/properties/commit
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P4, x) is None:
            return False
    return True


def _v564(x: object) -> bool:
    # event#/allOf/13/then/properties/payload/properties/remote
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v565(x: object) -> bool:
    # event#/allOf/13/then/properties/payload/properties/branch
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) < 1:
            return False
        if len(x) > 255:
            return False
    return True


def _v566(x: object) -> bool:
    # event#/allOf/13/then/properties/payload/properties/base
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) < 1:
            return False
        if len(x) > 255:
            return False
    return True


def _v567(x: object) -> bool:
    # event#/allOf/13/then/properties/payload/properties/github_repo
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) < 3:
            return False
        if len(x) > 201:
            return False
    return True


def _v568(x: object) -> bool:
    # event#/allOf/13/then/properties/payload/properties/pull_request
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
    return True


def _v569(x: object) -> bool:
    # event#/allOf/13/then/properties/payload/properties/url
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 2048:
            return False
    return True


def _v570(x: object) -> bool:
    # event#/allOf/13/then/properties/payload/properties/created
    if not (isinstance(x, bool)):
        return False
    return True


def _v572(x: object) -> bool:
    # event#/allOf/13/then/properties/payload/properties/labels/items
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) < 1:
            return False
        if len(x) > 50:
            return False
    return True


def _v571(x: object) -> bool:
    # event#/allOf/13/then/properties/payload/properties/labels
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 20:
            return False
        for v in x:
            if not _v572(v):
                return False
    return True


def _v573(x: object) -> bool:
    # event#/allOf/13/then/properties/payload/properties/draft
    if not (isinstance(x, bool)):
        return False
    return True


def _v574(x: object) -> bool:
    # event#/allOf/13/then/properties/payload/properties/title
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) < 1:
            return False
        if len(x) > 256:
            return False
    return True


def _v575(x: object) -> bool:
    # event#/allOf/13/then/properties/payload/properties/approved_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v559(x: object) -> bool:
    # event#/allOf/13/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('base', 'branch', 'commit', 'created', 'dispatch_id', 'github_repo', 'person', 'pull_request', 'remote', 'ticket_id', 'url'):
            if k not in x:
                return False
        if 'ticket_id' in x and not _v560(x['ticket_id']):
            return False
        if 'dispatch_id' in x and not _v561(x['dispatch_id']):
            return False
        if 'person' in x and not _v562(x['person']):
            return False
        if 'commit' in x and not _v563(x['commit']):
            return False
        if 'remote' in x and not _v564(x['remote']):
            return False
        if 'branch' in x and not _v565(x['branch']):
            return False
        if 'base' in x and not _v566(x['base']):
            return False
        if 'github_repo' in x and not _v567(x['github_repo']):
            return False
        if 'pull_request' in x and not _v568(x['pull_request']):
            return False
        if 'url' in x and not _v569(x['url']):
            return False
        if 'created' in x and not _v570(x['created']):
            return False
        if 'labels' in x and not _v571(x['labels']):
            return False
        if 'draft' in x and not _v573(x['draft']):
            return False
        if 'title' in x and not _v574(x['title']):
            return False
        if 'approved_sha256' in x and not _v575(x['approved_sha256']):
            return False
        for k in x:
            if k not in ('ticket_id', 'dispatch_id', 'person', 'commit', 'remote', 'branch', 'base', 'github_repo', 'pull_request', 'url', 'created', 'labels', 'draft', 'title', 'approved_sha256'):
                return False
    return True


def _v558(x: object) -> bool:
    # event#/allOf/13/then
    if isinstance(x, dict):
        if 'payload' in x and not _v559(x['payload']):
            return False
    return True


def _v577(x: object) -> bool:
    # event#/allOf/13/if/properties/event_type
    if not _eq(x, _C17):
        return False
    return True


def _v576(x: object) -> bool:
    # event#/allOf/13/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v577(x['event_type']):
            return False
    return True


def _v557(x: object) -> bool:
    # event#/allOf/13
    if _v576(x):
        if not _v558(x):
            return False
    else:
        pass
    return True


def _v581(x: object) -> bool:
    # event#/allOf/14/then/properties/payload/properties/ticket_id
    if not _m_defs._v7(x):
        return False
    return True


def _v582(x: object) -> bool:
    # event#/allOf/14/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v583(x: object) -> bool:
    # event#/allOf/14/then/properties/payload/properties/commit
    if not _m_defs._v39(x):
        return False
    return True


def _v584(x: object) -> bool:
    # event#/allOf/14/then/properties/payload/properties/base
    if not _m_defs._v39(x):
        return False
    return True


def _v585(x: object) -> bool:
    # event#/allOf/14/then/properties/payload/properties/merged
    if not _m_defs._v39(x):
        return False
    return True


def _v586(x: object) -> bool:
    # event#/allOf/14/then/properties/payload/properties/target
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 200:
            return False
    return True


def _v587(x: object) -> bool:
    # event#/allOf/14/then/properties/payload/properties/mode
    if not any(_eq(x, c) for c in _C18):
        return False
    return True


def _v588(x: object) -> bool:
    # event#/allOf/14/then/properties/payload/properties/verification
    if not _m_defs._v3(x):
        return False
    return True


def _v580(x: object) -> bool:
    # event#/allOf/14/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('base', 'commit', 'dispatch_id', 'merged', 'mode', 'target', 'ticket_id', 'verification'):
            if k not in x:
                return False
        if 'ticket_id' in x and not _v581(x['ticket_id']):
            return False
        if 'dispatch_id' in x and not _v582(x['dispatch_id']):
            return False
        if 'commit' in x and not _v583(x['commit']):
            return False
        if 'base' in x and not _v584(x['base']):
            return False
        if 'merged' in x and not _v585(x['merged']):
            return False
        if 'target' in x and not _v586(x['target']):
            return False
        if 'mode' in x and not _v587(x['mode']):
            return False
        if 'verification' in x and not _v588(x['verification']):
            return False
        for k in x:
            if k not in ('ticket_id', 'dispatch_id', 'commit', 'base', 'merged', 'target', 'mode', 'verification'):
                return False
    return True


def _v579(x: object) -> bool:
    # event#/allOf/14/then
    if isinstance(x, dict):
        if 'payload' in x and not _v580(x['payload']):
            return False
    return True


def _v590(x: object) -> bool:
    # event#/allOf/14/if/properties/event_type
    if not _eq(x, _C19):
        return False
    return True


def _v589(x: object) -> bool:
    # event#/allOf/14/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v590(x['event_type']):
            return False
    return True


def _v578(x: object) -> bool:
    # event#/allOf/14
    if _v589(x):
        if not _v579(x):
            return False
    else:
        pass
    return True


def _v594(x: object) -> bool:
    # event#/allOf/15/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v595(x: object) -> bool:
    # event#/allOf/15/then/properties/payload/properties/evidence
    if not _m_defs._v3(x):
        return False
    return True


def _v596(x: object) -> bool:
    # event#/allOf/15/then/properties/payload/properties/host
    if not _m_defs._v339(x):
        return False
    return True


def _v593(x: object) -> bool:
    # event#/allOf/15/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'evidence', 'host'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v594(x['dispatch_id']):
            return False
        if 'evidence' in x and not _v595(x['evidence']):
            return False
        if 'host' in x and not _v596(x['host']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'evidence', 'host'):
                return False
    return True


def _v592(x: object) -> bool:
    # event#/allOf/15/then
    if isinstance(x, dict):
        if 'payload' in x and not _v593(x['payload']):
            return False
    return True


def _v598(x: object) -> bool:
    # event#/allOf/15/if/properties/event_type
    if not _eq(x, _C20):
        return False
    return True


def _v597(x: object) -> bool:
    # event#/allOf/15/if
    if isinstance(x, dict):
        if 'event_type' in x and not _v598(x['event_type']):
            return False
    return True


def _v591(x: object) -> bool:
    # event#/allOf/15
    if _v597(x):
        if not _v592(x):
            return False
    else:
        pass
    return True


def _v415(x: object) -> bool:
    # event#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('created_at', 'event_id', 'event_type', 'format', 'payload'):
            if k not in x:
                return False
        if 'format' in x and not _v416(x['format']):
            return False
        if 'event_id' in x and not _v417(x['event_id']):
            return False
        if 'event_type' in x and not _v418(x['event_type']):
            return False
        if 'created_at' in x and not _v419(x['created_at']):
            return False
        if 'payload' in x and not _v420(x['payload']):
            return False
        for k in x:
            if k not in ('format', 'event_id', 'event_type', 'created_at', 'payload'):
                return False
    if not _v421(x):
        return False
    if not _v432(x):
        return False
    if not _v441(x):
        return False
    if not _v449(x):
        return False
    if not _v457(x):
        return False
    if not _v465(x):
        return False
    if not _v474(x):
        return False
    if not _v482(x):
        return False
    if not _v494(x):
        return False
    if not _v505(x):
        return False
    if not _v516(x):
        return False
    if not _v527(x):
        return False
    if not _v544(x):
        return False
    if not _v557(x):
        return False
    if not _v578(x):
        return False
    if not _v591(x):
        return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'event': _v415,
}
