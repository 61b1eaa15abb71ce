"""Predicates of the `bridge-tools` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique


_P0 = '^[0-9a-f]{40}([0-9a-f]{24})?\\Z'
_P1 = '^[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?\\Z'
_P2 = '^[0-9a-f]{40}(?:[0-9a-f]{24})?\\Z'
_P3 = '^[^\\u0000-\\u001f\\u007f-\\u009f]*\\Z'
_P4 = '^[^\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f]*\\Z'
_P5 = '^[0-9a-f]{64}\\Z'
_C0: tuple[object, ...] = ('acknowledged', 'result-received', 'resolved')
_C1: tuple[object, ...] = ('completed', 'blocked', 'failed')
_C2: tuple[object, ...] = ('result-received', 'resolved')


def _v145(x: object) -> bool:
    # bridge-tools#
    return True


def _v146(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_input
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in x:
            if k not in ():
                return False
    return True


def _v148(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/dispatch_id
    if not (isinstance(x, str)):
        return False
    return True


def _v149(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/state
    if not (isinstance(x, str)):
        return False
    return True


def _v151(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/ticket/properties/id
    if not (isinstance(x, str)):
        return False
    return True


def _v152(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/ticket/properties/title
    if not (isinstance(x, str)):
        return False
    return True


def _v153(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/ticket/properties/body
    if not (isinstance(x, str)):
        return False
    return True


def _v154(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/ticket/properties/body_truncated
    if not (isinstance(x, bool)):
        return False
    return True


def _v155(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/ticket/properties/source
    if not (isinstance(x, str)):
        return False
    return True


def _v157(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/ticket/properties/url/anyOf/0
    if not (isinstance(x, str)):
        return False
    return True


def _v158(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/ticket/properties/url/anyOf/1
    if not (x is None):
        return False
    return True


def _v156(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/ticket/properties/url
    if not (_v157(x) or _v158(x)):
        return False
    return True


def _v150(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/ticket
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('body', 'body_truncated', 'id', 'source', 'title', 'url'):
            if k not in x:
                return False
        if 'id' in x and not _v151(x['id']):
            return False
        if 'title' in x and not _v152(x['title']):
            return False
        if 'body' in x and not _v153(x['body']):
            return False
        if 'body_truncated' in x and not _v154(x['body_truncated']):
            return False
        if 'source' in x and not _v155(x['source']):
            return False
        if 'url' in x and not _v156(x['url']):
            return False
        for k in x:
            if k not in ('id', 'title', 'body', 'body_truncated', 'source', 'url'):
                return False
    return True


def _v159(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/instructions
    if not (isinstance(x, str)):
        return False
    return True


def _v160(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/worktree_path
    if not (isinstance(x, str)):
        return False
    return True


def _v161(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/branch
    if not (isinstance(x, str)):
        return False
    return True


def _v162(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/base_commit
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
    return True


def _v163(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/start_commit
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
    return True


def _v164(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/result_contract
    if not (isinstance(x, str)):
        return False
    return True


def _v166(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/changes_requested/properties/dispatch_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P1, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v167(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/changes_requested/properties/result_commit
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
    return True


def _v168(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/changes_requested/properties/previous_summary
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 8192:
            return False
    return True


def _v169(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/changes_requested/properties/summary_truncated
    if not (isinstance(x, bool)):
        return False
    return True


def _v170(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/changes_requested/properties/person
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v174(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/changes_requested/properties/comments/items/properties/path/anyOf/0
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P3, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 1024:
            return False
    return True


def _v175(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/changes_requested/properties/comments/items/properties/path/anyOf/1
    if not (x is None):
        return False
    return True


def _v173(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/changes_requested/properties/comments/items/properties/path
    if not (_v174(x) or _v175(x)):
        return False
    return True


def _v177(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/changes_requested/properties/comments/items/properties/line/anyOf/0
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
    return True


def _v178(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/changes_requested/properties/comments/items/properties/line/anyOf/1
    if not (x is None):
        return False
    return True


def _v176(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/changes_requested/properties/comments/items/properties/line
    if not (_v177(x) or _v178(x)):
        return False
    return True


def _v179(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/changes_requested/properties/comments/items/properties/text
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P4, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 2000:
            return False
    return True


def _v172(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/changes_requested/properties/comments/items
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('line', 'path', 'text'):
            if k not in x:
                return False
        if 'path' in x and not _v173(x['path']):
            return False
        if 'line' in x and not _v176(x['line']):
            return False
        if 'text' in x and not _v179(x['text']):
            return False
        for k in x:
            if k not in ('path', 'line', 'text'):
                return False
    return True


def _v171(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/changes_requested/properties/comments
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) < 1:
            return False
        if len(x) > 100:
            return False
        for v in x:
            if not _v172(v):
                return False
    return True


def _v165(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output/properties/changes_requested
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('comments', 'dispatch_id', 'person', 'previous_summary', 'result_commit', 'summary_truncated'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v166(x['dispatch_id']):
            return False
        if 'result_commit' in x and not _v167(x['result_commit']):
            return False
        if 'previous_summary' in x and not _v168(x['previous_summary']):
            return False
        if 'summary_truncated' in x and not _v169(x['summary_truncated']):
            return False
        if 'person' in x and not _v170(x['person']):
            return False
        if 'comments' in x and not _v171(x['comments']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'result_commit', 'previous_summary', 'summary_truncated', 'person', 'comments'):
                return False
    return True


def _v147(x: object) -> bool:
    # bridge-tools#/$defs/read_dispatch_output
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('base_commit', 'branch', 'dispatch_id', 'instructions', 'result_contract', 'start_commit', 'state', 'ticket', 'worktree_path'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v148(x['dispatch_id']):
            return False
        if 'state' in x and not _v149(x['state']):
            return False
        if 'ticket' in x and not _v150(x['ticket']):
            return False
        if 'instructions' in x and not _v159(x['instructions']):
            return False
        if 'worktree_path' in x and not _v160(x['worktree_path']):
            return False
        if 'branch' in x and not _v161(x['branch']):
            return False
        if 'base_commit' in x and not _v162(x['base_commit']):
            return False
        if 'start_commit' in x and not _v163(x['start_commit']):
            return False
        if 'result_contract' in x and not _v164(x['result_contract']):
            return False
        if 'changes_requested' in x and not _v165(x['changes_requested']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'state', 'ticket', 'instructions', 'worktree_path', 'branch', 'base_commit', 'start_commit', 'result_contract', 'changes_requested'):
                return False
    return True


def _v180(x: object) -> bool:
    # bridge-tools#/$defs/acknowledge_dispatch_input
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in x:
            if k not in ():
                return False
    return True


def _v182(x: object) -> bool:
    # bridge-tools#/$defs/acknowledge_dispatch_output/properties/dispatch_id
    if not (isinstance(x, str)):
        return False
    return True


def _v183(x: object) -> bool:
    # bridge-tools#/$defs/acknowledge_dispatch_output/properties/state
    if not any(_eq(x, c) for c in _C0):
        return False
    return True


def _v184(x: object) -> bool:
    # bridge-tools#/$defs/acknowledge_dispatch_output/properties/already
    if not (isinstance(x, bool)):
        return False
    return True


def _v181(x: object) -> bool:
    # bridge-tools#/$defs/acknowledge_dispatch_output
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('already', 'dispatch_id', 'state'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v182(x['dispatch_id']):
            return False
        if 'state' in x and not _v183(x['state']):
            return False
        if 'already' in x and not _v184(x['already']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'state', 'already'):
                return False
    return True


def _v186(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_input/properties/status
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v187(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_input/properties/summary
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) < 1:
            return False
        if len(x) > 8192:
            return False
    return True


def _v189(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_input/properties/result_commit/anyOf/0
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
    return True


def _v190(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_input/properties/result_commit/anyOf/1
    if not (x is None):
        return False
    return True


def _v188(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_input/properties/result_commit
    if not (_v189(x) or _v190(x)):
        return False
    return True


def _v185(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_input
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('status', 'summary'):
            if k not in x:
                return False
        if 'status' in x and not _v186(x['status']):
            return False
        if 'summary' in x and not _v187(x['summary']):
            return False
        if 'result_commit' in x and not _v188(x['result_commit']):
            return False
        for k in x:
            if k not in ('status', 'summary', 'result_commit'):
                return False
    return True


def _v192(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_output/properties/dispatch_id
    if not (isinstance(x, str)):
        return False
    return True


def _v193(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_output/properties/state
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v194(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_output/properties/evidence
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P5, x) is None:
            return False
    return True


def _v195(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_output/properties/already
    if not (isinstance(x, bool)):
        return False
    return True


def _v197(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_output/properties/result_commit/anyOf/0
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
    return True


def _v198(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_output/properties/result_commit/anyOf/1
    if not (x is None):
        return False
    return True


def _v196(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_output/properties/result_commit
    if not (_v197(x) or _v198(x)):
        return False
    return True


def _v191(x: object) -> bool:
    # bridge-tools#/$defs/record_dispatch_result_output
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('already', 'dispatch_id', 'evidence', 'result_commit', 'state'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v192(x['dispatch_id']):
            return False
        if 'state' in x and not _v193(x['state']):
            return False
        if 'evidence' in x and not _v194(x['evidence']):
            return False
        if 'already' in x and not _v195(x['already']):
            return False
        if 'result_commit' in x and not _v196(x['result_commit']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'state', 'evidence', 'already', 'result_commit'):
                return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'bridge-tools': _v145,
    'bridge-tools#/$defs/acknowledge_dispatch_input': _v180,
    'bridge-tools#/$defs/acknowledge_dispatch_output': _v181,
    'bridge-tools#/$defs/read_dispatch_input': _v146,
    'bridge-tools#/$defs/read_dispatch_output': _v147,
    'bridge-tools#/$defs/record_dispatch_result_input': _v185,
    'bridge-tools#/$defs/record_dispatch_result_output': _v191,
}
