"""Tree jobs: what the host asks of a job on an agent's worktree, and what it accepts back
(docs/adr/0024).

Pure: jobs built and answers checked here; `adapters/tree_job.py` runs a job in its sandbox,
`adapters/tree_work.py` is the job itself.

A job is one JSON object on the job's stdin, an answer one JSON object on its stdout, each bounded
(`Limits.tree_job_bytes`, `Limits.tree_answer_bytes`), strict JSON (no duplicate keys, no floats, no
lone surrogates) and closed (a field that is not in its kind's table is refused, a missing one too):

    {"format": "oms-tree-job-v1", "kind": K, "worktree": W, "gitdir": G, "common": C, ...K's fields}
    {"format": "oms-tree-answer-v1", "ok": true, "result": {...K's result}}
    {"format": "oms-tree-answer-v1", "ok": false, "error": {"code": CODE, "message": M, "hint": H}}

The kinds, and what each may answer:
- `commit`: the result commit of what the agent left, built on `head` without moving anything
  (`made`: whether a new commit was written; `paths`: how many it holds), or `head` itself when
  nothing is left;
- `salvage`: a salvage commit on `head` (`commit` null: nothing to keep) and its path count;
- `restore`: salvage (kept at the first free `ref_base`, `-2`, ...) and reset to `start`, removing
  exactly what was salvaged; `reset` false when the worktree was at `start` with nothing to keep;
- `inspect`, `remove`: what in the worktree nothing else keeps (`unkept`, null when nothing) and its
  bytes; `remove` then empties it (`left`: what could not be removed);
- `check`: delivery's checkout verification (clean, no ignored or nested leftovers, submodules at
  their gitlinks; `own_work` skips cleanliness); its result is empty.

Every commit id in an answer is a full hex id (the host then checks the object exists); every text
is printable and bounded. An error's code is mapped back to the same `OmsError` class through one
fixed table (`ERRORS`), with its message and hint; any other code is a `TreeJobError`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from oms.canonical import JsonObject, dumps, loads_object
from oms.canonical.ids import COMMIT
from oms.canonical.strict_json import MAX_SAFE_INT
from oms.errors import (
    CheckoutChangedError,
    ConflictError,
    FileTooLargeError,
    InvalidInputError,
    LeftoversError,
    OmsError,
    ProcessFailedError,
    ProcessTimeoutError,
    ToolNotFoundError,
    TreeJobError,
    UnsafeFileError,
    UnsafeRepositoryError,
    WorktreeNeedsPersonError,
    one_line,
    shown,
)
from oms.limits import LIMITS

JOB_FORMAT = "oms-tree-job-v1"
ANSWER_FORMAT = "oms-tree-answer-v1"
TEXT_CHARS = LIMITS.tree_text_chars  # a path, a ref, a name or a one-line reason
MESSAGE_CHARS = LIMITS.tree_message_chars  # a commit message
REF_BASE = "refs/oms/salvage/"

_COMMON = {"format", "kind", "worktree", "gitdir", "common"}
_PRINTABLE = re.compile(rf"[\x20-\x7e]{{1,{TEXT_CHARS}}}")
# Each kind's own fields in a job: name -> the check its value must pass.
_Check = Callable[[object], bool]


def _text(value: object) -> bool:
    return isinstance(value, str) and 0 < len(value) <= TEXT_CHARS and "\x00" not in value


def _line(value: object) -> bool:
    return isinstance(value, str) and _PRINTABLE.fullmatch(value) is not None


def _hint(value: object) -> bool:
    return value == "" or _line(value)


def _commit(value: object) -> bool:
    return isinstance(value, str) and COMMIT.fullmatch(value) is not None


def _commit_or_none(value: object) -> bool:
    return value is None or _commit(value)


def _message(value: object) -> bool:
    return isinstance(value, str) and 0 < len(value) <= MESSAGE_CHARS and "\x00" not in value


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_SAFE_INT


def _object(value: object) -> bool:
    return isinstance(value, dict)


def _flag(value: object) -> bool:
    return isinstance(value, bool)


def _line_or_none(value: object) -> bool:
    return value is None or _line(value)


def _ref_base(value: object) -> bool:
    text = str(value)
    return _line(value) and text.startswith(REF_BASE) and ".." not in text and " " not in text


def _lines(value: object) -> bool:
    return isinstance(value, list) and len(value) <= 100 and all(_line(v) for v in value)


JOBS: dict[str, dict[str, _Check]] = {
    "commit": {
        "branch": _line,
        "head": _commit,
        "start": _commit,
        "commit": _commit_or_none,
        "message": _message,
        "author_name": _line,
        "author_email": _line,
    },
    "salvage": {"head": _commit, "message": _message},
    "restore": {"head": _commit, "start": _commit, "message": _message, "ref_base": _ref_base},
    "inspect": {},
    "remove": {},
    "check": {"branch": _line, "head": _commit, "own_work": _flag},
}
RESULTS: dict[str, dict[str, _Check]] = {
    "commit": {"commit": _commit, "made": _flag, "paths": _count},
    "salvage": {"commit": _commit_or_none, "paths": _count},
    "restore": {
        "salvage_ref": _line_or_none,
        "salvage_commit": _commit_or_none,
        "paths": _count,
        "reset": _flag,
    },
    "inspect": {"unkept": _line_or_none, "bytes": _count},
    "remove": {"unkept": _line_or_none, "bytes": _count, "left": _lines},
    "check": {},
}


def _plain(cls: type[OmsError]) -> Callable[[str, str], OmsError]:
    return lambda message, hint: cls(message, hint=hint or None)


def _failed(message: str, _hint: str) -> OmsError:
    return ProcessFailedError.said(message)


# The errors a job may answer with, by their code: each comes back as the same class, with its
# message and hint.
ERRORS: dict[str, Callable[[str, str], OmsError]] = {
    CheckoutChangedError.code: _plain(CheckoutChangedError),
    LeftoversError.code: _plain(LeftoversError),
    WorktreeNeedsPersonError.code: _plain(WorktreeNeedsPersonError),
    UnsafeRepositoryError.code: _plain(UnsafeRepositoryError),
    InvalidInputError.code: _plain(InvalidInputError),
    ConflictError.code: _plain(ConflictError),
    UnsafeFileError.code: _plain(UnsafeFileError),
    FileTooLargeError.code: _plain(FileTooLargeError),
    ProcessTimeoutError.code: _plain(ProcessTimeoutError),
    ToolNotFoundError.code: _plain(ToolNotFoundError),
    ProcessFailedError.code: _failed,
}


def _path(value: object) -> bool:
    text = str(value)
    return _text(value) and text.startswith("/") and posixpath.normpath(text) == text != "/"


def _closed(doc: JsonObject, table: dict[str, _Check], common: set[str], where: str) -> None:
    """Every field of `doc` is one `table` or `common` names, each is there, each passes its
    check."""
    unknown = sorted(set(doc) - set(table) - common)
    missing = sorted((set(table) | common) - set(doc))
    if unknown or missing:
        what = "unknown" if unknown else "missing"
        raise TreeJobError(f"{where}: fields {unknown or missing} are {what}")
    bad = sorted(name for name, check in table.items() if not check(doc[name]))
    if bad:
        raise TreeJobError(f"{where}: {bad[0]} is not what it must be")


def job(kind: str, worktree: str, gitdir: str, common: str, **fields: object) -> bytes:
    """The bytes of a `kind` job on the worktree at `worktree` (its admin dir `gitdir`, its
    repository's `common` dir), checked as the job will check them."""
    doc: JsonObject = {
        "format": JOB_FORMAT,
        "kind": kind,
        "worktree": worktree,
        "gitdir": gitdir,
        "common": common,
    }
    doc.update(fields)  # type: ignore[arg-type]
    data = dumps(doc)
    read_job(data)
    return data


def read_job(data: bytes) -> JsonObject:
    """A job, checked (in the job: what the host sent; `TreeJobError` when it is not one)."""
    if len(data) > LIMITS.tree_job_bytes:
        raise TreeJobError(f"a tree job of {len(data)} bytes (at most {LIMITS.tree_job_bytes})")
    try:
        doc = loads_object(data)
    except InvalidInputError as exc:
        raise TreeJobError(f"a tree job is not one JSON object: {exc.message}") from exc
    kind = doc.get("kind")
    if doc.get("format") != JOB_FORMAT or not isinstance(kind, str) or kind not in JOBS:
        raise TreeJobError("not a tree job of a known kind")
    _closed(doc, JOBS[kind], _COMMON, f"tree job {kind}")
    for name in ("worktree", "gitdir", "common"):
        if not _path(doc[name]):
            raise TreeJobError(f"tree job {kind}: {name} is not a normalised absolute path")
    if posixpath.dirname(str(doc["gitdir"])) != posixpath.join(str(doc["common"]), "worktrees"):
        raise TreeJobError(f"tree job {kind}: the gitdir is not in the common dir's worktrees/")
    return doc


def answer_ok(kind: str, result: JsonObject) -> bytes:
    """The bytes of a successful answer (checked as the host will check it)."""
    data = dumps({"format": ANSWER_FORMAT, "ok": True, "result": result})
    read_answer(kind, data)
    return data


def answer_error(exc: OmsError) -> bytes:
    """The bytes of an answer that carries `exc` (its code, its one-line message)."""
    error = {
        "code": exc.code,
        "message": one_line(exc.message, TEXT_CHARS) or exc.code,
        "hint": one_line(exc.remedy, TEXT_CHARS),
    }
    return dumps({"format": ANSWER_FORMAT, "ok": False, "error": error})


def read_answer(kind: str, data: bytes) -> JsonObject:
    """The result of a `kind` job from the bytes it wrote: bounded, strict, closed; an error answer
    is raised as its class (`ERRORS`), anything else that is not an answer as `TreeJobError`."""
    if len(data) > LIMITS.tree_answer_bytes:
        cap = LIMITS.tree_answer_bytes
        raise TreeJobError(f"a tree job answered {len(data)} bytes (at most {cap})")
    try:
        doc = loads_object(data)
    except InvalidInputError as exc:
        raise TreeJobError(f"a tree job's answer is not one JSON object: {exc.message}") from exc
    if doc.get("format") != ANSWER_FORMAT or not isinstance(doc.get("ok"), bool):
        raise TreeJobError("a tree job's answer has no format or outcome")
    if doc["ok"] is False:
        _closed(doc, {"error": _object}, {"format", "ok"}, "a tree job's error")
        error = doc["error"]
        assert isinstance(error, dict)  # noqa: S101 - checked just above
        fields: dict[str, _Check] = {"code": _line, "message": _line, "hint": _hint}
        _closed(error, fields, set(), "a tree job's error")
        make = ERRORS.get(str(error["code"]))
        message, hint = str(error["message"]), str(error["hint"])
        if make is None:
            raise TreeJobError(f"tree job {kind} failed: {message}")
        raise make(message, hint)
    _closed(doc, {"result": _object}, {"format", "ok"}, "a tree job's answer")
    result = doc["result"]
    assert isinstance(result, dict)  # noqa: S101 - checked just above
    _closed(result, RESULTS[kind], set(), f"a tree job's {kind} result")
    return result


# What a checkout's verification says, on the host (`services/checkout/planned.py`) and in a
# job alike.
NO_GITDIR = "its .git leads to no git dir of its repository"
UNCOMMITTED = "the worktree has uncommitted or untracked changes; commit them first"


def nested_repository(path: str) -> str:
    """Why a result with a repository nested in its worktree is refused."""
    where = shown(path, 200)
    remove = "remove it (oms commits files, not repositories)"
    return f"the worktree holds a git repository at {where}; {remove}"


def smuggled(name: str) -> str:
    """Why a worktree carrying agent configuration is refused."""
    return f"worktree carries {name}, which an agent CLI could load; refusing"


def on_branch(on: str | None, branch: str) -> str:
    """Why a worktree checked out on another branch (or none) is refused."""
    return f"worktree is on {on or 'a detached HEAD'} (expected {branch})"


def not_clean(count: int) -> str:
    """Why a worktree with changed or untracked files is refused at delivery."""
    return f"worktree is not clean ({count} changed or untracked paths)"


def carries_ignored(count: int, first: str) -> str:
    """Why a worktree with ignored files is refused at delivery (an agent CLI loads them)."""
    paths = "path" if count == 1 else "paths"
    loads = "that an agent CLI or the approved program could load; refusing"
    return f"worktree carries {count} ignored {paths} (first: {shown(first)}) {loads}"


def clean_hint(worktree: str) -> str:
    """What a person does about ignored files oms will not delete."""
    clean = f"`git -C {shown(worktree)} clean -fdX`"
    return f"look, keep what you need elsewhere, then {clean} (oms deletes nothing)"
