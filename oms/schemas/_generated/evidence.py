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

_P0 = '^[^\\u0000-\\u001f\\u007f]*\\Z'
_P1 = '^[0-9a-f]{40}([0-9a-f]{24})?\\Z'
_P2 = '^refs/oms/(archive|salvage)/[a-z0-9][a-z0-9/._-]{0,250}\\Z'
_C0: object = 'oms-evidence-v1'
_C1: tuple[object, ...] = ('advisor-output', 'dispatch-result', 'human-approval', 'lease-expiry', 'verification', 'merge', 'discard')
_C2: tuple[object, ...] = ('oms', 'advisor', 'human')
_C3: tuple[object, ...] = ('approve', 'reject')
_C4: object = 'advisor-output'
_C5: tuple[object, ...] = ('completed', 'blocked', 'failed')
_C6: object = 'dispatch-result'
_C7: tuple[object, ...] = ('approve', 'reject')
_C8: object = 'human-approval'
_C9: object = 'lease-expiry'
_C10: tuple[object, ...] = ('merge-commit', 'fast-forward')
_C11: tuple[object, ...] = ('pids', 'memory', 'disk')
_C12: object = 'verification'
_C13: tuple[object, ...] = ('merge-commit', 'fast-forward')
_C14: object = 'merge'
_C15: object = 'discard'


def _v607(x: object) -> bool:
    # evidence#/properties/format
    if not _eq(x, _C0):
        return False
    return True


def _v608(x: object) -> bool:
    # evidence#/properties/evidence_kind
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v609(x: object) -> bool:
    # evidence#/properties/ticket_id
    if not _m_defs._v7(x):
        return False
    return True


def _v610(x: object) -> bool:
    # evidence#/properties/producer
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v612(x: object) -> bool:
    # evidence#/properties/producer_role/anyOf/0
    if not _m_defs._v17(x):
        return False
    return True


def _v613(x: object) -> bool:
    # evidence#/properties/producer_role/anyOf/1
    if not (x is None):
        return False
    return True


def _v611(x: object) -> bool:
    # evidence#/properties/producer_role
    if not (_v612(x) or _v613(x)):
        return False
    return True


def _v614(x: object) -> bool:
    # evidence#/properties/created_at
    if not _m_defs._v118(x):
        return False
    return True


def _v615(x: object) -> bool:
    # evidence#/properties/payload
    if not (isinstance(x, dict)):
        return False
    return True


def _v619(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v620(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/dispatch_intent_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v621(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/verdict
    if not any(_eq(x, c) for c in _C3):
        return False
    return True


def _v622(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/rationale
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 8192:
            return False
    return True


def _v624(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance/properties/argv_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v625(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance/properties/exit_code
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < -255:
            return False
        if x > 255:
            return False
    return True


def _v626(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance/properties/output_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v627(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance/properties/started_at
    if not _m_defs._v118(x):
        return False
    return True


def _v628(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance/properties/finished_at
    if not _m_defs._v118(x):
        return False
    return True


def _v623(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload/properties/provenance
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('argv_sha256', 'exit_code', 'finished_at', 'output_sha256', 'started_at'):
            if k not in x:
                return False
        if 'argv_sha256' in x and not _v624(x['argv_sha256']):
            return False
        if 'exit_code' in x and not _v625(x['exit_code']):
            return False
        if 'output_sha256' in x and not _v626(x['output_sha256']):
            return False
        if 'started_at' in x and not _v627(x['started_at']):
            return False
        if 'finished_at' in x and not _v628(x['finished_at']):
            return False
        for k in x:
            if k not in ('argv_sha256', 'exit_code', 'output_sha256', 'started_at', 'finished_at'):
                return False
    return True


def _v618(x: object) -> bool:
    # evidence#/allOf/0/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'dispatch_intent_sha256', 'provenance', 'rationale', 'verdict'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v619(x['dispatch_id']):
            return False
        if 'dispatch_intent_sha256' in x and not _v620(x['dispatch_intent_sha256']):
            return False
        if 'verdict' in x and not _v621(x['verdict']):
            return False
        if 'rationale' in x and not _v622(x['rationale']):
            return False
        if 'provenance' in x and not _v623(x['provenance']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'dispatch_intent_sha256', 'verdict', 'rationale', 'provenance'):
                return False
    return True


def _v617(x: object) -> bool:
    # evidence#/allOf/0/then
    if isinstance(x, dict):
        if 'payload' in x and not _v618(x['payload']):
            return False
    return True


def _v630(x: object) -> bool:
    # evidence#/allOf/0/if/properties/evidence_kind
    if not _eq(x, _C4):
        return False
    return True


def _v629(x: object) -> bool:
    # evidence#/allOf/0/if
    if isinstance(x, dict):
        if 'evidence_kind' in x and not _v630(x['evidence_kind']):
            return False
    return True


def _v616(x: object) -> bool:
    # evidence#/allOf/0
    if _v629(x):
        if not _v617(x):
            return False
    else:
        pass
    return True


def _v634(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v635(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/session_id
    if not _m_defs._v15(x):
        return False
    return True


def _v636(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/status
    if not any(_eq(x, c) for c in _C5):
        return False
    return True


def _v637(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/summary
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 8192:
            return False
    return True


def _v639(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/result_commit/anyOf/0
    if not _m_defs._v39(x):
        return False
    return True


def _v640(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/result_commit/anyOf/1
    if not (x is None):
        return False
    return True


def _v638(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload/properties/result_commit
    if not (_v639(x) or _v640(x)):
        return False
    return True


def _v633(x: object) -> bool:
    # evidence#/allOf/1/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'result_commit', 'session_id', 'status', 'summary'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v634(x['dispatch_id']):
            return False
        if 'session_id' in x and not _v635(x['session_id']):
            return False
        if 'status' in x and not _v636(x['status']):
            return False
        if 'summary' in x and not _v637(x['summary']):
            return False
        if 'result_commit' in x and not _v638(x['result_commit']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'session_id', 'status', 'summary', 'result_commit'):
                return False
    return True


def _v632(x: object) -> bool:
    # evidence#/allOf/1/then
    if isinstance(x, dict):
        if 'payload' in x and not _v633(x['payload']):
            return False
    return True


def _v642(x: object) -> bool:
    # evidence#/allOf/1/if/properties/evidence_kind
    if not _eq(x, _C6):
        return False
    return True


def _v641(x: object) -> bool:
    # evidence#/allOf/1/if
    if isinstance(x, dict):
        if 'evidence_kind' in x and not _v642(x['evidence_kind']):
            return False
    return True


def _v631(x: object) -> bool:
    # evidence#/allOf/1
    if _v641(x):
        if not _v632(x):
            return False
    else:
        pass
    return True


def _v646(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v647(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload/properties/dispatch_intent_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v648(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload/properties/verdict
    if not any(_eq(x, c) for c in _C7):
        return False
    return True


def _v649(x: object) -> bool:
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


def _v650(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload/properties/rationale
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 8192:
            return False
    return True


def _v645(x: object) -> bool:
    # evidence#/allOf/2/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'dispatch_intent_sha256', 'person', 'rationale', 'verdict'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v646(x['dispatch_id']):
            return False
        if 'dispatch_intent_sha256' in x and not _v647(x['dispatch_intent_sha256']):
            return False
        if 'verdict' in x and not _v648(x['verdict']):
            return False
        if 'person' in x and not _v649(x['person']):
            return False
        if 'rationale' in x and not _v650(x['rationale']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'dispatch_intent_sha256', 'verdict', 'person', 'rationale'):
                return False
    return True


def _v644(x: object) -> bool:
    # evidence#/allOf/2/then
    if isinstance(x, dict):
        if 'payload' in x and not _v645(x['payload']):
            return False
    return True


def _v652(x: object) -> bool:
    # evidence#/allOf/2/if/properties/evidence_kind
    if not _eq(x, _C8):
        return False
    return True


def _v651(x: object) -> bool:
    # evidence#/allOf/2/if
    if isinstance(x, dict):
        if 'evidence_kind' in x and not _v652(x['evidence_kind']):
            return False
    return True


def _v643(x: object) -> bool:
    # evidence#/allOf/2
    if _v651(x):
        if not _v644(x):
            return False
    else:
        pass
    return True


def _v656(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload/properties/attempt
    if not _m_defs._v11(x):
        return False
    return True


def _v657(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload/properties/lease_expired_at
    if not _m_defs._v118(x):
        return False
    return True


def _v659(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload/properties/worktree_start_commit/anyOf/0
    if not _m_defs._v39(x):
        return False
    return True


def _v660(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload/properties/worktree_start_commit/anyOf/1
    if not (x is None):
        return False
    return True


def _v658(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload/properties/worktree_start_commit
    if not (_v659(x) or _v660(x)):
        return False
    return True


def _v655(x: object) -> bool:
    # evidence#/allOf/3/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('attempt', 'lease_expired_at', 'worktree_start_commit'):
            if k not in x:
                return False
        if 'attempt' in x and not _v656(x['attempt']):
            return False
        if 'lease_expired_at' in x and not _v657(x['lease_expired_at']):
            return False
        if 'worktree_start_commit' in x and not _v658(x['worktree_start_commit']):
            return False
        for k in x:
            if k not in ('attempt', 'lease_expired_at', 'worktree_start_commit'):
                return False
    return True


def _v654(x: object) -> bool:
    # evidence#/allOf/3/then
    if isinstance(x, dict):
        if 'payload' in x and not _v655(x['payload']):
            return False
    return True


def _v662(x: object) -> bool:
    # evidence#/allOf/3/if/properties/evidence_kind
    if not _eq(x, _C9):
        return False
    return True


def _v661(x: object) -> bool:
    # evidence#/allOf/3/if
    if isinstance(x, dict):
        if 'evidence_kind' in x and not _v662(x['evidence_kind']):
            return False
    return True


def _v653(x: object) -> bool:
    # evidence#/allOf/3
    if _v661(x):
        if not _v654(x):
            return False
    else:
        pass
    return True


def _v666(x: object) -> bool:
    # evidence#/allOf/4/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v667(x: object) -> bool:
    # evidence#/allOf/4/then/properties/payload/properties/commit
    if not _m_defs._v39(x):
        return False
    return True


def _v668(x: object) -> bool:
    # evidence#/allOf/4/then/properties/payload/properties/base
    if not _m_defs._v39(x):
        return False
    return True


def _v669(x: object) -> bool:
    # evidence#/allOf/4/then/properties/payload/properties/target
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 200:
            return False
    return True


def _v670(x: object) -> bool:
    # evidence#/allOf/4/then/properties/payload/properties/mode
    if not any(_eq(x, c) for c in _C10):
        return False
    return True


def _v671(x: object) -> bool:
    # evidence#/allOf/4/then/properties/payload/properties/tree
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
    return True


def _v675(x: object) -> bool:
    # evidence#/allOf/4/then/properties/payload/properties/checks/items/properties/argv/items
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) < 1:
            return False
        if len(x) > 4096:
            return False
    return True


def _v674(x: object) -> bool:
    # evidence#/allOf/4/then/properties/payload/properties/checks/items/properties/argv
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) < 1:
            return False
        if len(x) > 64:
            return False
        for v in x:
            if not _v675(v):
                return False
    return True


def _v677(x: object) -> bool:
    # evidence#/allOf/4/then/properties/payload/properties/checks/items/properties/exit_code/anyOf/0
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < -255:
            return False
        if x > 255:
            return False
    return True


def _v678(x: object) -> bool:
    # evidence#/allOf/4/then/properties/payload/properties/checks/items/properties/exit_code/anyOf/1
    if not (x is None):
        return False
    return True


def _v676(x: object) -> bool:
    # evidence#/allOf/4/then/properties/payload/properties/checks/items/properties/exit_code
    if not (_v677(x) or _v678(x)):
        return False
    return True


def _v679(x: object) -> bool:
    # evidence#/allOf/4/then/properties/payload/properties/checks/items/properties/timed_out
    if not (isinstance(x, bool)):
        return False
    return True


def _v680(x: object) -> bool:
    # evidence#/allOf/4/then/properties/payload/properties/checks/items/properties/duration_ms
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 86400000:
            return False
    return True


def _v681(x: object) -> bool:
    # evidence#/allOf/4/then/properties/payload/properties/checks/items/properties/output_sha256
    if not _m_defs._v3(x):
        return False
    return True


def _v682(x: object) -> bool:
    # evidence#/allOf/4/then/properties/payload/properties/checks/items/properties/output_bytes
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 1073741824:
            return False
    return True


def _v683(x: object) -> bool:
    # evidence#/allOf/4/then/properties/payload/properties/checks/items/properties/output_truncated
    if not (isinstance(x, bool)):
        return False
    return True


def _v684(x: object) -> bool:
    # evidence#/allOf/4/then/properties/payload/properties/checks/items/properties/limit
    if not any(_eq(x, c) for c in _C11):
        return False
    return True


def _v673(x: object) -> bool:
    # evidence#/allOf/4/then/properties/payload/properties/checks/items
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('argv', 'exit_code', 'timed_out', 'duration_ms', 'output_sha256', 'output_bytes', 'output_truncated'):
            if k not in x:
                return False
        if 'argv' in x and not _v674(x['argv']):
            return False
        if 'exit_code' in x and not _v676(x['exit_code']):
            return False
        if 'timed_out' in x and not _v679(x['timed_out']):
            return False
        if 'duration_ms' in x and not _v680(x['duration_ms']):
            return False
        if 'output_sha256' in x and not _v681(x['output_sha256']):
            return False
        if 'output_bytes' in x and not _v682(x['output_bytes']):
            return False
        if 'output_truncated' in x and not _v683(x['output_truncated']):
            return False
        if 'limit' in x and not _v684(x['limit']):
            return False
        for k in x:
            if k not in ('argv', 'exit_code', 'timed_out', 'duration_ms', 'output_sha256', 'output_bytes', 'output_truncated', 'limit'):
                return False
    return True


def _v672(x: object) -> bool:
    # evidence#/allOf/4/then/properties/payload/properties/checks
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) < 1:
            return False
        if len(x) > 20:
            return False
        for v in x:
            if not _v673(v):
                return False
    return True


def _v685(x: object) -> bool:
    # evidence#/allOf/4/then/properties/payload/properties/passed
    if not (isinstance(x, bool)):
        return False
    return True


def _v686(x: object) -> bool:
    # evidence#/allOf/4/then/properties/payload/properties/duration_ms
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 864000000:
            return False
    return True


def _v665(x: object) -> bool:
    # evidence#/allOf/4/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'commit', 'base', 'target', 'mode', 'tree', 'checks', 'passed', 'duration_ms'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v666(x['dispatch_id']):
            return False
        if 'commit' in x and not _v667(x['commit']):
            return False
        if 'base' in x and not _v668(x['base']):
            return False
        if 'target' in x and not _v669(x['target']):
            return False
        if 'mode' in x and not _v670(x['mode']):
            return False
        if 'tree' in x and not _v671(x['tree']):
            return False
        if 'checks' in x and not _v672(x['checks']):
            return False
        if 'passed' in x and not _v685(x['passed']):
            return False
        if 'duration_ms' in x and not _v686(x['duration_ms']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'commit', 'base', 'target', 'mode', 'tree', 'checks', 'passed', 'duration_ms'):
                return False
    return True


def _v664(x: object) -> bool:
    # evidence#/allOf/4/then
    if isinstance(x, dict):
        if 'payload' in x and not _v665(x['payload']):
            return False
    return True


def _v688(x: object) -> bool:
    # evidence#/allOf/4/if/properties/evidence_kind
    if not _eq(x, _C12):
        return False
    return True


def _v687(x: object) -> bool:
    # evidence#/allOf/4/if
    if isinstance(x, dict):
        if 'evidence_kind' in x and not _v688(x['evidence_kind']):
            return False
    return True


def _v663(x: object) -> bool:
    # evidence#/allOf/4
    if _v687(x):
        if not _v664(x):
            return False
    else:
        pass
    return True


def _v692(x: object) -> bool:
    # evidence#/allOf/5/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v693(x: object) -> bool:
    # evidence#/allOf/5/then/properties/payload/properties/commit
    if not _m_defs._v39(x):
        return False
    return True


def _v694(x: object) -> bool:
    # evidence#/allOf/5/then/properties/payload/properties/base
    if not _m_defs._v39(x):
        return False
    return True


def _v695(x: object) -> bool:
    # evidence#/allOf/5/then/properties/payload/properties/target
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 200:
            return False
    return True


def _v696(x: object) -> bool:
    # evidence#/allOf/5/then/properties/payload/properties/mode
    if not any(_eq(x, c) for c in _C13):
        return False
    return True


def _v697(x: object) -> bool:
    # evidence#/allOf/5/then/properties/payload/properties/merged
    if not _m_defs._v39(x):
        return False
    return True


def _v698(x: object) -> bool:
    # evidence#/allOf/5/then/properties/payload/properties/verification
    if not _m_defs._v3(x):
        return False
    return True


def _v691(x: object) -> bool:
    # evidence#/allOf/5/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'commit', 'base', 'target', 'mode', 'merged', 'verification'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v692(x['dispatch_id']):
            return False
        if 'commit' in x and not _v693(x['commit']):
            return False
        if 'base' in x and not _v694(x['base']):
            return False
        if 'target' in x and not _v695(x['target']):
            return False
        if 'mode' in x and not _v696(x['mode']):
            return False
        if 'merged' in x and not _v697(x['merged']):
            return False
        if 'verification' in x and not _v698(x['verification']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'commit', 'base', 'target', 'mode', 'merged', 'verification'):
                return False
    return True


def _v690(x: object) -> bool:
    # evidence#/allOf/5/then
    if isinstance(x, dict):
        if 'payload' in x and not _v691(x['payload']):
            return False
    return True


def _v700(x: object) -> bool:
    # evidence#/allOf/5/if/properties/evidence_kind
    if not _eq(x, _C14):
        return False
    return True


def _v699(x: object) -> bool:
    # evidence#/allOf/5/if
    if isinstance(x, dict):
        if 'evidence_kind' in x and not _v700(x['evidence_kind']):
            return False
    return True


def _v689(x: object) -> bool:
    # evidence#/allOf/5
    if _v699(x):
        if not _v690(x):
            return False
    else:
        pass
    return True


def _v704(x: object) -> bool:
    # evidence#/allOf/6/then/properties/payload/properties/dispatch_id
    if not _m_defs._v7(x):
        return False
    return True


def _v705(x: object) -> bool:
    # evidence#/allOf/6/then/properties/payload/properties/branch
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 200:
            return False
    return True


def _v706(x: object) -> bool:
    # evidence#/allOf/6/then/properties/payload/properties/commit
    if not _m_defs._v39(x):
        return False
    return True


def _v707(x: object) -> bool:
    # evidence#/allOf/6/then/properties/payload/properties/archive_ref
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
        if len(x) > 300:
            return False
    return True


def _v709(x: object) -> bool:
    # evidence#/allOf/6/then/properties/payload/properties/bundle/anyOf/0
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 300:
            return False
    return True


def _v710(x: object) -> bool:
    # evidence#/allOf/6/then/properties/payload/properties/bundle/anyOf/1
    if not (x is None):
        return False
    return True


def _v708(x: object) -> bool:
    # evidence#/allOf/6/then/properties/payload/properties/bundle
    if not (_v709(x) or _v710(x)):
        return False
    return True


def _v711(x: object) -> bool:
    # evidence#/allOf/6/then/properties/payload/properties/reason
    if not _m_defs._v124(x):
        return False
    return True


def _v703(x: object) -> bool:
    # evidence#/allOf/6/then/properties/payload
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('dispatch_id', 'branch', 'commit', 'archive_ref', 'bundle', 'reason'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v704(x['dispatch_id']):
            return False
        if 'branch' in x and not _v705(x['branch']):
            return False
        if 'commit' in x and not _v706(x['commit']):
            return False
        if 'archive_ref' in x and not _v707(x['archive_ref']):
            return False
        if 'bundle' in x and not _v708(x['bundle']):
            return False
        if 'reason' in x and not _v711(x['reason']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'branch', 'commit', 'archive_ref', 'bundle', 'reason'):
                return False
    return True


def _v702(x: object) -> bool:
    # evidence#/allOf/6/then
    if isinstance(x, dict):
        if 'payload' in x and not _v703(x['payload']):
            return False
    return True


def _v713(x: object) -> bool:
    # evidence#/allOf/6/if/properties/evidence_kind
    if not _eq(x, _C15):
        return False
    return True


def _v712(x: object) -> bool:
    # evidence#/allOf/6/if
    if isinstance(x, dict):
        if 'evidence_kind' in x and not _v713(x['evidence_kind']):
            return False
    return True


def _v701(x: object) -> bool:
    # evidence#/allOf/6
    if _v712(x):
        if not _v702(x):
            return False
    else:
        pass
    return True


def _v606(x: object) -> bool:
    # evidence#
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('created_at', 'evidence_kind', 'format', 'payload', 'producer', 'producer_role', 'ticket_id'):
            if k not in x:
                return False
        if 'format' in x and not _v607(x['format']):
            return False
        if 'evidence_kind' in x and not _v608(x['evidence_kind']):
            return False
        if 'ticket_id' in x and not _v609(x['ticket_id']):
            return False
        if 'producer' in x and not _v610(x['producer']):
            return False
        if 'producer_role' in x and not _v611(x['producer_role']):
            return False
        if 'created_at' in x and not _v614(x['created_at']):
            return False
        if 'payload' in x and not _v615(x['payload']):
            return False
        for k in x:
            if k not in ('format', 'evidence_kind', 'ticket_id', 'producer', 'producer_role', 'created_at', 'payload'):
                return False
    if not _v616(x):
        return False
    if not _v631(x):
        return False
    if not _v643(x):
        return False
    if not _v653(x):
        return False
    if not _v663(x):
        return False
    if not _v689(x):
        return False
    if not _v701(x):
        return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'evidence': _v606,
}
