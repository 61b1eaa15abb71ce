"""Predicates of the `defs` schema. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as _is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique


_P0 = '^[0-9a-f]{64}\\Z'
_P1 = '^[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?\\Z'
_P2 = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\Z'
_P3 = '^[a-z][a-z0-9-]{0,30}(?:\\.[a-z][a-z0-9-]{0,30}){0,3}\\Z'
_P4 = '^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}\\Z'
_P5 = '^(https://[A-Za-z0-9.-]+(:[0-9]{1,5})?|http://(127\\.0\\.0\\.1|localhost|\\[::1\\])(:[0-9]{1,5})?)(/[A-Za-z0-9._~%/-]*)?\\Z'
_P6 = '^/[^\\u0000-\\u001f\\u007f]*\\Z'
_P7 = '^oms/[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?\\Z'
_P8 = '^[0-9a-f]{40}(?:[0-9a-f]{24})?\\Z'
_P9 = '^[^\\u0000-\\u001f\\u007f]*\\Z'
_P10 = '^[A-Za-z][A-Za-z0-9_]{0,63}\\Z'
_P11 = '^[^\\u0000-\\u001f\\u007f-\\u009f]*\\Z'
_P12 = '^[^\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f]*\\Z'
_P13 = '^(?=[A-Za-z0-9-]{1,39}/)[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*/(?!\\.\\.?\\Z)(?!.*\\.[Gg][Ii][Tt]\\Z)(?!.*\\.[Ww][Ii][Kk][Ii]\\Z)[A-Za-z0-9._-]{1,100}\\Z'
_P14 = '^https://[^\\u0000-\\u0020\\u007f]+\\Z'
_P15 = '^[^\\u0000-\\u001f\\u007f]+\\Z'
_P16 = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z\\Z'
_P17 = '^[a-z][a-z0-9-]{0,62}(?:[.:][a-z0-9][a-z0-9-]{0,62}){0,3}\\Z'
_P18 = '^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,61}[A-Za-z0-9])?\\Z'
_P19 = '^[0-9a-f]{32,64}\\Z'
_P20 = '^%[0-9]{1,9}\\Z'
_P21 = '^[A-Za-z0-9+/]{43}=\\Z'
_P22 = '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?\\Z'
_C0: tuple[object, ...] = ('claude_interactive', 'claude_print', 'codex_exec', 'codex_goal', 'command')
_C1: tuple[object, ...] = ('codex', 'claude', 'command')
_C2: tuple[object, ...] = ('repository-read', 'ticket-worktree-write')
_C3: tuple[object, ...] = ('read-only', 'ticket-worktree-write')
_C4: tuple[object, ...] = ('required', 'unsafe-none')


def _v3(x: object) -> bool:
    # defs#/$defs/sha256
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P0, x) is None:
            return False
    return True


def _v7(x: object) -> bool:
    # defs#/$defs/opaque_id
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


def _v11(x: object) -> bool:
    # defs#/$defs/count
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 1000000:
            return False
    return True


def _v15(x: object) -> bool:
    # defs#/$defs/uuid
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P2, x) is None:
            return False
    return True


def _v17(x: object) -> bool:
    # defs#/$defs/role_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P3, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 127:
            return False
    return True


def _v19(x: object) -> bool:
    # defs#/$defs/model_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P4, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v23(x: object) -> bool:
    # defs#/$defs/model_endpoint
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P5, x) is None:
            return False
        if len(x) < 8:
            return False
        if len(x) > 512:
            return False
    return True


def _v22(x: object) -> bool:
    # defs#/$defs/model_endpoint_or_null/anyOf/0
    if not _v23(x):
        return False
    return True


def _v24(x: object) -> bool:
    # defs#/$defs/model_endpoint_or_null/anyOf/1
    if not (x is None):
        return False
    return True


def _v21(x: object) -> bool:
    # defs#/$defs/model_endpoint_or_null
    if not (_v22(x) or _v24(x)):
        return False
    return True


def _v26(x: object) -> bool:
    # defs#/$defs/transport
    if not any(_eq(x, c) for c in _C0):
        return False
    return True


def _v28(x: object) -> bool:
    # defs#/$defs/engine
    if not any(_eq(x, c) for c in _C1):
        return False
    return True


def _v31(x: object) -> bool:
    # defs#/$defs/capability
    if not any(_eq(x, c) for c in _C2):
        return False
    return True


def _v35(x: object) -> bool:
    # defs#/$defs/abs_path
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


def _v37(x: object) -> bool:
    # defs#/$defs/branch
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P7, x) is None:
            return False
        if len(x) > 160:
            return False
    return True


def _v39(x: object) -> bool:
    # defs#/$defs/commit
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P8, x) is None:
            return False
    return True


def _v45(x: object) -> bool:
    # defs#/$defs/sandbox
    if not any(_eq(x, c) for c in _C3):
        return False
    return True


def _v51(x: object) -> bool:
    # defs#/$defs/argv_or_null/anyOf/0/items
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P9, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 4096:
            return False
    return True


def _v50(x: object) -> bool:
    # defs#/$defs/argv_or_null/anyOf/0
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) < 1:
            return False
        if len(x) > 64:
            return False
        for v in x:
            if not _v51(v):
                return False
    return True


def _v52(x: object) -> bool:
    # defs#/$defs/argv_or_null/anyOf/1
    if not (x is None):
        return False
    return True


def _v49(x: object) -> bool:
    # defs#/$defs/argv_or_null
    if not (_v50(x) or _v52(x)):
        return False
    return True


def _v55(x: object) -> bool:
    # defs#/$defs/tool_list/items
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P10, x) is None:
            return False
    return True


def _v54(x: object) -> bool:
    # defs#/$defs/tool_list
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 64:
            return False
        for v in x:
            if not _v55(v):
                return False
        if not _unique(x):
            return False
    return True


def _v58(x: object) -> bool:
    # defs#/$defs/program_list/items
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P9, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 4400:
            return False
    return True


def _v57(x: object) -> bool:
    # defs#/$defs/program_list
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) > 16:
            return False
        for v in x:
            if not _v58(v):
                return False
    return True


def _v64(x: object) -> bool:
    # defs#/$defs/limit_pids
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 8:
            return False
        if x > 4194304:
            return False
    return True


def _v63(x: object) -> bool:
    # defs#/$defs/sandbox_limits/properties/pids
    if not _v64(x):
        return False
    return True


def _v66(x: object) -> bool:
    # defs#/$defs/limit_memory_bytes
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 16777216:
            return False
        if x > 1125899906842624:
            return False
    return True


def _v65(x: object) -> bool:
    # defs#/$defs/sandbox_limits/properties/memory_bytes
    if not _v66(x):
        return False
    return True


def _v68(x: object) -> bool:
    # defs#/$defs/limit_cpu_weight
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
        if x > 10000:
            return False
    return True


def _v67(x: object) -> bool:
    # defs#/$defs/sandbox_limits/properties/cpu_weight
    if not _v68(x):
        return False
    return True


def _v70(x: object) -> bool:
    # defs#/$defs/limit_disk_bytes
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1048576:
            return False
        if x > 1125899906842624:
            return False
    return True


def _v69(x: object) -> bool:
    # defs#/$defs/sandbox_limits/properties/disk_bytes
    if not _v70(x):
        return False
    return True


def _v72(x: object) -> bool:
    # defs#/$defs/limit_file_bytes
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1048576:
            return False
        if x > 1125899906842624:
            return False
    return True


def _v71(x: object) -> bool:
    # defs#/$defs/sandbox_limits/properties/file_bytes
    if not _v72(x):
        return False
    return True


def _v74(x: object) -> bool:
    # defs#/$defs/limit_cgroup
    if not any(_eq(x, c) for c in _C4):
        return False
    return True


def _v73(x: object) -> bool:
    # defs#/$defs/sandbox_limits/properties/cgroup
    if not _v74(x):
        return False
    return True


def _v62(x: object) -> bool:
    # defs#/$defs/sandbox_limits
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('cgroup', 'cpu_weight', 'disk_bytes', 'file_bytes', 'memory_bytes', 'pids'):
            if k not in x:
                return False
        if 'pids' in x and not _v63(x['pids']):
            return False
        if 'memory_bytes' in x and not _v65(x['memory_bytes']):
            return False
        if 'cpu_weight' in x and not _v67(x['cpu_weight']):
            return False
        if 'disk_bytes' in x and not _v69(x['disk_bytes']):
            return False
        if 'file_bytes' in x and not _v71(x['file_bytes']):
            return False
        if 'cgroup' in x and not _v73(x['cgroup']):
            return False
        for k in x:
            if k not in ('pids', 'memory_bytes', 'cpu_weight', 'disk_bytes', 'file_bytes', 'cgroup'):
                return False
    return True


def _v77(x: object) -> bool:
    # defs#/$defs/changes_requested/properties/dispatch_id
    if not _v7(x):
        return False
    return True


def _v78(x: object) -> bool:
    # defs#/$defs/changes_requested/properties/result_commit
    if not _v39(x):
        return False
    return True


def _v79(x: object) -> bool:
    # defs#/$defs/changes_requested/properties/previous_summary
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 8192:
            return False
    return True


def _v80(x: object) -> bool:
    # defs#/$defs/changes_requested/properties/summary_truncated
    if not (isinstance(x, bool)):
        return False
    return True


def _v81(x: object) -> bool:
    # defs#/$defs/changes_requested/properties/person
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v85(x: object) -> bool:
    # defs#/$defs/changes_requested/properties/comments/items/properties/path/anyOf/0
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P11, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 1024:
            return False
    return True


def _v86(x: object) -> bool:
    # defs#/$defs/changes_requested/properties/comments/items/properties/path/anyOf/1
    if not (x is None):
        return False
    return True


def _v84(x: object) -> bool:
    # defs#/$defs/changes_requested/properties/comments/items/properties/path
    if not (_v85(x) or _v86(x)):
        return False
    return True


def _v88(x: object) -> bool:
    # defs#/$defs/changes_requested/properties/comments/items/properties/line/anyOf/0
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 1:
            return False
    return True


def _v89(x: object) -> bool:
    # defs#/$defs/changes_requested/properties/comments/items/properties/line/anyOf/1
    if not (x is None):
        return False
    return True


def _v87(x: object) -> bool:
    # defs#/$defs/changes_requested/properties/comments/items/properties/line
    if not (_v88(x) or _v89(x)):
        return False
    return True


def _v90(x: object) -> bool:
    # defs#/$defs/changes_requested/properties/comments/items/properties/text
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P12, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 2000:
            return False
    return True


def _v83(x: object) -> bool:
    # defs#/$defs/changes_requested/properties/comments/items
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('line', 'path', 'text'):
            if k not in x:
                return False
        if 'path' in x and not _v84(x['path']):
            return False
        if 'line' in x and not _v87(x['line']):
            return False
        if 'text' in x and not _v90(x['text']):
            return False
        for k in x:
            if k not in ('path', 'line', 'text'):
                return False
    return True


def _v82(x: object) -> bool:
    # defs#/$defs/changes_requested/properties/comments
    if not (isinstance(x, list)):
        return False
    if isinstance(x, list):
        if len(x) < 1:
            return False
        if len(x) > 100:
            return False
        for v in x:
            if not _v83(v):
                return False
    return True


def _v76(x: object) -> bool:
    # defs#/$defs/changes_requested
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        for k in ('comments', 'dispatch_id', 'person', 'previous_summary', 'result_commit', 'summary_truncated'):
            if k not in x:
                return False
        if 'dispatch_id' in x and not _v77(x['dispatch_id']):
            return False
        if 'result_commit' in x and not _v78(x['result_commit']):
            return False
        if 'previous_summary' in x and not _v79(x['previous_summary']):
            return False
        if 'summary_truncated' in x and not _v80(x['summary_truncated']):
            return False
        if 'person' in x and not _v81(x['person']):
            return False
        if 'comments' in x and not _v82(x['comments']):
            return False
        for k in x:
            if k not in ('dispatch_id', 'result_commit', 'previous_summary', 'summary_truncated', 'person', 'comments'):
                return False
    return True


def _v93(x: object) -> bool:
    # defs#/$defs/title
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P9, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 256:
            return False
    return True


def _v98(x: object) -> bool:
    # defs#/$defs/repository
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P13, x) is None:
            return False
        if len(x) > 140:
            return False
    return True


def _v102(x: object) -> bool:
    # defs#/$defs/url
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P14, x) is None:
            return False
        if len(x) > 2048:
            return False
    return True


def _v115(x: object) -> bool:
    # defs#/$defs/person
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P15, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v118(x: object) -> bool:
    # defs#/$defs/timestamp
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P16, x) is None:
            return False
    return True


def _v124(x: object) -> bool:
    # defs#/$defs/reason
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P9, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 512:
            return False
    return True


def _v132(x: object) -> bool:
    # defs#/$defs/version
    if not (_is_integer(x)):
        return False
    if isinstance(x, int | float) and not isinstance(x, bool):
        if x < 0:
            return False
        if x > 9007199254740991:
            return False
    return True


def _v139(x: object) -> bool:
    # defs#/$defs/actor
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P17, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 128:
            return False
    return True


def _v263(x: object) -> bool:
    # defs#/$defs/limits_table/properties/pids
    if not _v64(x):
        return False
    return True


def _v264(x: object) -> bool:
    # defs#/$defs/limits_table/properties/memory_bytes
    if not _v66(x):
        return False
    return True


def _v265(x: object) -> bool:
    # defs#/$defs/limits_table/properties/cpu_weight
    if not _v68(x):
        return False
    return True


def _v266(x: object) -> bool:
    # defs#/$defs/limits_table/properties/disk_bytes
    if not _v70(x):
        return False
    return True


def _v267(x: object) -> bool:
    # defs#/$defs/limits_table/properties/file_bytes
    if not _v72(x):
        return False
    return True


def _v268(x: object) -> bool:
    # defs#/$defs/limits_table/properties/cgroup
    if not _v74(x):
        return False
    return True


def _v262(x: object) -> bool:
    # defs#/$defs/limits_table
    if not (isinstance(x, dict)):
        return False
    if isinstance(x, dict):
        if 'pids' in x and not _v263(x['pids']):
            return False
        if 'memory_bytes' in x and not _v264(x['memory_bytes']):
            return False
        if 'cpu_weight' in x and not _v265(x['cpu_weight']):
            return False
        if 'disk_bytes' in x and not _v266(x['disk_bytes']):
            return False
        if 'file_bytes' in x and not _v267(x['file_bytes']):
            return False
        if 'cgroup' in x and not _v268(x['cgroup']):
            return False
        for k in x:
            if k not in ('pids', 'memory_bytes', 'cpu_weight', 'disk_bytes', 'file_bytes', 'cgroup'):
                return False
    return True


def _v338(x: object) -> bool:
    # defs#
    return True


def _v339(x: object) -> bool:
    # defs#/$defs/host_name
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P18, x) is None:
            return False
        if len(x) < 1:
            return False
        if len(x) > 63:
            return False
    return True


def _v340(x: object) -> bool:
    # defs#/$defs/text
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if len(x) > 65536:
            return False
    return True


def _v341(x: object) -> bool:
    # defs#/$defs/token
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P19, x) is None:
            return False
    return True


def _v342(x: object) -> bool:
    # defs#/$defs/pane_id
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P20, x) is None:
            return False
    return True


def _v343(x: object) -> bool:
    # defs#/$defs/public_key
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P21, x) is None:
            return False
    return True


def _v344(x: object) -> bool:
    # defs#/$defs/base64
    if not (isinstance(x, str)):
        return False
    if isinstance(x, str):
        if _search(_P22, x) is None:
            return False
        if len(x) > 2000000:
            return False
    return True


VALIDATORS: dict[str, Callable[[object], bool]] = {
    'defs': _v338,
    'defs#/$defs/abs_path': _v35,
    'defs#/$defs/actor': _v139,
    'defs#/$defs/argv_or_null': _v49,
    'defs#/$defs/base64': _v344,
    'defs#/$defs/branch': _v37,
    'defs#/$defs/capability': _v31,
    'defs#/$defs/changes_requested': _v76,
    'defs#/$defs/commit': _v39,
    'defs#/$defs/count': _v11,
    'defs#/$defs/engine': _v28,
    'defs#/$defs/host_name': _v339,
    'defs#/$defs/limit_cgroup': _v74,
    'defs#/$defs/limit_cpu_weight': _v68,
    'defs#/$defs/limit_disk_bytes': _v70,
    'defs#/$defs/limit_file_bytes': _v72,
    'defs#/$defs/limit_memory_bytes': _v66,
    'defs#/$defs/limit_pids': _v64,
    'defs#/$defs/limits_table': _v262,
    'defs#/$defs/model_endpoint': _v23,
    'defs#/$defs/model_endpoint_or_null': _v21,
    'defs#/$defs/model_id': _v19,
    'defs#/$defs/opaque_id': _v7,
    'defs#/$defs/pane_id': _v342,
    'defs#/$defs/person': _v115,
    'defs#/$defs/program_list': _v57,
    'defs#/$defs/public_key': _v343,
    'defs#/$defs/reason': _v124,
    'defs#/$defs/repository': _v98,
    'defs#/$defs/role_id': _v17,
    'defs#/$defs/sandbox': _v45,
    'defs#/$defs/sandbox_limits': _v62,
    'defs#/$defs/sha256': _v3,
    'defs#/$defs/text': _v340,
    'defs#/$defs/timestamp': _v118,
    'defs#/$defs/title': _v93,
    'defs#/$defs/token': _v341,
    'defs#/$defs/tool_list': _v54,
    'defs#/$defs/transport': _v26,
    'defs#/$defs/url': _v102,
    'defs#/$defs/uuid': _v15,
    'defs#/$defs/version': _v132,
}
