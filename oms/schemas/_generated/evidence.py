"""Predicates of the `evidence` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique

from oms.schemas._generated import defs as _m_defs

_P0 = '^[^\\u0000-\\u001f\\u007f]*$'
_C0: object = 'oms-evidence-v1'
_C1: tuple[object, ...] = ('advisor-output', 'dispatch-result', 'human-approval', 'lease-expiry')
_C2: tuple[object, ...] = ('oms', 'advisor', 'human')
_C3: tuple[object, ...] = ('approve', 'reject')
_C4: object = 'advisor-output'
_C5: tuple[object, ...] = ('completed', 'blocked', 'failed')
_C6: object = 'dispatch-result'
_C7: tuple[object, ...] = ('approve', 'reject')
_C8: object = 'human-approval'
_C9: object = 'lease-expiry'


def _v368(x: object) -> bool:
    # evidence#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v369(x: object) -> bool:
    # evidence#/properties/evidence_kind
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v370(x: object) -> bool:
    # evidence#/properties/ticket_id
    if not _m_defs._v7(x):
        return False
    return True


def _v371(x: object) -> bool:
    # evidence#/properties/producer
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v373(x: object) -> bool:
    # evidence#/properties/producer_role/anyOf/0
    if not _m_defs._v17(x):
        return False
    return True


def _v374(x: object) -> bool:
    # evidence#/properties/producer_role/anyOf/1
    if not (x is None):
        return False
    return True


def _v372(x: object) -> bool:
    # evidence#/properties/producer_role
    if not (_v373(x) or _v374(x)):
        return False
    return True


def _v375(x: object) -> bool:
    # evidence#/properties/created_at
    if not _m_defs._v86(x):
        return False
    return True


def _v376(x: object) -> bool:
    # evidence#/properties/payload
    if not (isinstance(x, dict)):
        return False
    return True


def _v380(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v381(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/dispatch_intent_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v382(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/verdict
    if not any(_eq(x, c) for c in _C3):
        return False
    return True


def _v383(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/rationale
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 8192:
            return False
    return True


def _v385(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance/properties/argv_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v386(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance/properties/exit_code
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < -255:
            return False
        if x > 255:
            return False
    return True


def _v387(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance/properties/output_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v388(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance/properties/started_at
    if not _m_defs._v86(x):
        return False
    return True


def _v389(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance/properties/finished_at
    if not _m_defs._v86(x):
        return False
    return True


def _v384(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('argv_sha256', 'exit_code', 'finished_at', 'output_sha256', 'started_at'):
            if k not in x:
                return False
        if 'argv_sha256' in x and not _v385(x['argv_sha256']):
            return False
        if 'exit_code' in x and not _v386(x['exit_code']):
            return False
        if 'output_sha256' in x and not _v387(x['output_sha256']):
            return False
        if 'started_at' in x and not _v388(x['started_at']):
            return False
        if 'finished_at' in x and not _v389(x['finished_at']):
            return False
        for k in x:
            if k not in ('argv_sha256', 'exit_code', 'output_sha256', 'started_at', 'finished_at'):
                return False
    return True


def _v379(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'dispatch_intent_sha256', 'provenance', 'rationale', 'verdict'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v380(x['dispatch_id']):
            return False
        if 'dispatch_intent_sha256' in x and not _v381(x['dispatch_intent_sha256']):
            return False
        if 'verdict' in x and not _v382(x['verdict']):
            return False
        if 'rationale' in x and not _v383(x['rationale']):
            return False
        if 'provenance' in x and not _v384(x['provenance']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'dispatch_intent_sha256', 'verdict', 'rationale', 'provenance'):
                return False
    return True


def _v378(x: object) -> bool:
    # evidence#/allOf/0/then
    if isinstance(x, dict):
        if 'payload' in x and not _v379(x['payload']):
            return False
    return True


def _v391(x: object) -> bool:
    # evidence#/allOf/0/if/properties/evidence_kind
    if not _eq(x, _C4):
        return False
    return True


def _v390(x: object) -> bool:
    # evidence#/allOf/0/if
    if isinstance(x, dict):
        if 'evidence_kind' in x and not _v391(x['evidence_kind']):
            return False
    return True


def _v377(x: object) -> bool:
    # evidence#/allOf/0
    if _v390(x):
        if not _v378(x):
            return False
    else:
        pass
    return True


def _v395(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v396(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/session_id
    if not _m_defs._v15(x):
        return False
    return True


def _v397(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/status
    if not any(_eq(x, c) for c in _C5):
        return False
    return True


def _v398(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/summary
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 8192:
            return False
    return True


def _v400(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/result_commit/anyOf/0
    if not _m_defs._v39(x):
        return False
    return True


def _v401(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/result_commit/anyOf/1
    if not (x is None):
        return False
    return True


def _v399(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/result_commit
    if not (_v400(x) or _v401(x)):
        return False
    return True


def _v394(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'result_commit', 'session_id', 'status', 'summary'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v395(x['dispatch_id']):
            return False
        if 'session_id' in x and not _v396(x['session_id']):
            return False
        if 'status' in x and not _v397(x['status']):
            return False
        if 'summary' in x and not _v398(x['summary']):
            return False
        if 'result_commit' in x and not _v399(x['result_commit']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'session_id', 'status', 'summary', 'result_commit'):
                return False
    return True


def _v393(x: object) -> bool:
    # evidence#/allOf/1/then
    if isinstance(x, dict):
        if 'payload' in x and not _v394(x['payload']):
            return False
    return True


def _v403(x: object) -> bool:
    # evidence#/allOf/1/if/properties/evidence_kind
    if not _eq(x, _C6):
        return False
    return True


def _v402(x: object) -> bool:
    # evidence#/allOf/1/if
    if isinstance(x, dict):
        if 'evidence_kind' in x and not _v403(x['evidence_kind']):
            return False
    return True


def _v392(x: object) -> bool:
    # evidence#/allOf/1
    if _v402(x):
        if not _v393(x):
            return False
    else:
        pass
    return True


def _v407(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v408(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload/properties/dispatch_intent_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v409(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload/properties/verdict
    if not any(_eq(x, c) for c in _C7):
        return False
    return True


def _v410(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload/properties/person
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


def _v411(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload/properties/rationale
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 8192:
            return False
    return True


def _v406(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'dispatch_intent_sha256', 'person', 'rationale', 'verdict'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v407(x['dispatch_id']):
            return False
        if 'dispatch_intent_sha256' in x and not _v408(x['dispatch_intent_sha256']):
            return False
        if 'verdict' in x and not _v409(x['verdict']):
            return False
        if 'person' in x and not _v410(x['person']):
            return False
        if 'rationale' in x and not _v411(x['rationale']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'dispatch_intent_sha256', 'verdict', 'person', 'rationale'):
                return False
    return True


def _v405(x: object) -> bool:
    # evidence#/allOf/2/then
    if isinstance(x, dict):
        if 'payload' in x and not _v406(x['payload']):
            return False
    return True


def _v413(x: object) -> bool:
    # evidence#/allOf/2/if/properties/evidence_kind
    if not _eq(x, _C8):
        return False
    return True


def _v412(x: object) -> bool:
    # evidence#/allOf/2/if
    if isinstance(x, dict):
        if 'evidence_kind' in x and not _v413(x['evidence_kind']):
            return False
    return True


def _v404(x: object) -> bool:
    # evidence#/allOf/2
    if _v412(x):
        if not _v405(x):
            return False
    else:
        pass
    return True


def _v417(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload/properties/attempt
    if not _m_defs._v11(x):
        return False
    return True


def _v418(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload/properties/lease_expired_at
    if not _m_defs._v86(x):
        return False
    return True


def _v420(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload/properties/worktree_start_commit/anyOf/0
    if not _m_defs._v39(x):
        return False
    return True


def _v421(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload/properties/worktree_start_commit/anyOf/1
    if not (x is None):
        return False
    return True


def _v419(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload/properties/worktree_start_commit
    if not (_v420(x) or _v421(x)):
        return False
    return True


def _v416(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'lease_expired_at', 'worktree_start_commit'):
            if k not in x:
                return False
        if 'attempt' in x and not _v417(x['attempt']):
            return False
        if 'lease_expired_at' in x and not _v418(x['lease_expired_at']):
            return False
        if 'worktree_start_commit' in x and not _v419(x['worktree_start_commit']):
            return False
        for k in x:
            if k not in ('attempt', 'lease_expired_at', 'worktree_start_commit'):
                return False
    return True


def _v415(x: object) -> bool:
    # evidence#/allOf/3/then
    if isinstance(x, dict):
        if 'payload' in x and not _v416(x['payload']):
            return False
    return True


def _v423(x: object) -> bool:
    # evidence#/allOf/3/if/properties/evidence_kind
    if not _eq(x, _C9):
        return False
    return True


def _v422(x: object) -> bool:
    # evidence#/allOf/3/if
    if isinstance(x, dict):
        if 'evidence_kind' in x and not _v423(x['evidence_kind']):
            return False
    return True


def _v414(x: object) -> bool:
    # evidence#/allOf/3
    if _v422(x):
        if not _v415(x):
            return False
    else:
        pass
    return True


def _v367(x: object) -> bool:
    # evidence#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('created_at', 'evidence_kind', 'format', 'payload', 'producer', 'producer_role', 'ticket_id'):
            if k not in x:
                return False
        if 'format' in x and not _v368(x['format']):
            return False
        if 'evidence_kind' in x and not _v369(x['evidence_kind']):
            return False
        if 'ticket_id' in x and not _v370(x['ticket_id']):
            return False
        if 'producer' in x and not _v371(x['producer']):
            return False
        if 'producer_role' in x and not _v372(x['producer_role']):
            return False
        if 'created_at' in x and not _v375(x['created_at']):
            return False
        if 'payload' in x and not _v376(x['payload']):
            return False
        for k in x:
            if k not in ('format', 'evidence_kind', 'ticket_id', 'producer', 'producer_role', 'created_at', 'payload'):
                return False
    if not _v377(x):
        return False
    if not _v392(x):
        return False
    if not _v404(x):
        return False
    if not _v414(x):
        return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'evidence': _v367,
}
