"""The tree-job protocol (docs/adr/0024, `domain/tree_jobs.py`): a job and its answer are bounded,
strict, closed JSON; an error answer comes back as the same `OmsError` class through one fixed
table, anything else as `TreeJobError`; the answer decoder never raises anything but an `OmsError`
(hypothesis)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oms.canonical import dumps
from oms.canonical.strict_json import MAX_SAFE_INT
from oms.domain import tree_jobs
from oms.errors import (
    CheckoutChangedError,
    ConflictError,
    FileTooLargeError,
    InvalidInputError,
    OmsError,
    ProcessFailedError,
    ProcessTimeoutError,
    ToolNotFoundError,
    TreeJobError,
    UnsafeFileError,
    UnsafeRepositoryError,
)
from oms.limits import LIMITS
from tests.strategies import ascii_keys, profile_values

WT, COMMON = "/w/tkt-1", "/r/.git"
GITDIR = f"{COMMON}/worktrees/tkt-1"
C1, C2 = "1" * 40, "a" * 64
VALID_FIELDS: dict[str, dict[str, Any]] = {
    "commit": {
        "branch": "oms/tkt-1",
        "head": C1,
        "start": C1,
        "commit": None,
        "message": "m\n\nbody",
        "author_name": "oms worker",
        "author_email": "worker@oms.invalid",
    },
    "salvage": {"head": C1, "message": "m"},
    "restore": {"head": C1, "start": C1, "message": "m", "ref_base": "refs/oms/salvage/tkt-1/1"},
    "inspect": {},
    "remove": {},
    "check": {"branch": "oms/tkt-1", "head": C2, "own_work": False},
}
VALID_RESULTS: dict[str, dict[str, Any]] = {
    "commit": {"commit": C1, "made": True, "paths": 3},
    "salvage": {"commit": None, "paths": 0},
    "restore": {
        "salvage_ref": "refs/oms/salvage/t/1-2",
        "salvage_commit": C2,
        "paths": 1,
        "reset": True,
    },
    "inspect": {"unkept": "2 uncommitted or untracked path(s) (first: a)", "bytes": 4096},
    "remove": {"unkept": None, "bytes": 0, "left": ["x/y"]},
    "check": {},
}


ERROR = {"code": "x", "message": "m", "hint": ""}
PRINTABLE = st.characters(min_codepoint=0x20, max_codepoint=0x7E)


def _job(of: str, **changes: Any) -> dict[str, Any]:
    doc = {"format": tree_jobs.JOB_FORMAT, "kind": of, "worktree": WT, "gitdir": GITDIR}
    doc["common"] = COMMON
    doc.update(VALID_FIELDS[of])
    doc.update(changes)
    return doc


@pytest.mark.parametrize("kind", sorted(tree_jobs.JOBS))
def test_a_job_of_every_kind_round_trips(kind: str) -> None:
    data = tree_jobs.job(kind, WT, GITDIR, COMMON, **VALID_FIELDS[kind])
    assert tree_jobs.read_job(data) == _job(kind)


BAD_JOBS = {
    "unknown field": _job("salvage", admin=True),
    "missing field": {k: v for k, v in _job("salvage").items() if k != "message"},
    "unknown kind": _job("salvage", kind="chmod"),
    "another format": _job("salvage", format="oms-tree-job-v2"),
    "relative worktree": _job("inspect", worktree="w/tkt-1"),
    "worktree with ..": _job("inspect", worktree="/w/../etc"),
    "gitdir outside worktrees/": _job("inspect", gitdir="/r/.git/modules/x"),
    "short commit id": _job("salvage", head="1" * 39),
    "upper-case commit id": _job("salvage", head="A" * 40),
    "a ref outside salvage": _job("restore", ref_base="refs/heads/main"),
    "a ref with ..": _job("restore", ref_base="refs/oms/salvage/../../heads/main"),
    "own_work not a bool": _job("check", own_work=1),
    "empty message": _job("salvage", message=""),
    "a branch with a control character": _job("check", branch="oms/\x1b[2J"),
}


@pytest.mark.parametrize("name", sorted(BAD_JOBS))
def test_a_bad_job_is_refused(name: str) -> None:
    with pytest.raises(TreeJobError):
        tree_jobs.read_job(dumps(BAD_JOBS[name]))


@pytest.mark.parametrize(
    "data",
    [
        b'{"format": "oms-tree-job-v1", "format": "oms-tree-job-v1"}',  # a duplicate key
        b'{"format": "oms-tree-job-v1", "kind": 1.5}',  # a float
        b"[]",
        b"\xff",
        b" " * (LIMITS.tree_job_bytes + 1),
    ],
    ids=["duplicate key", "float", "not an object", "not UTF-8", "over its bound"],
)
def test_a_job_that_is_not_strict_bounded_json_is_refused(data: bytes) -> None:
    with pytest.raises(TreeJobError):
        tree_jobs.read_job(data)


@pytest.mark.parametrize("kind", sorted(tree_jobs.RESULTS))
def test_an_answer_of_every_kind_round_trips(kind: str) -> None:
    sent = VALID_RESULTS[kind]
    assert tree_jobs.read_answer(kind, tree_jobs.answer_ok(kind, sent)) == sent


def _answer(kind: str, **changes: Any) -> bytes:
    result = {**VALID_RESULTS[kind], **changes}
    return dumps({"format": tree_jobs.ANSWER_FORMAT, "ok": True, "result": result})


BAD_ANSWERS = {
    "an extra field": ("salvage", _answer("salvage", path="/etc/shadow")),
    "a missing field": (
        "salvage",
        dumps({"format": tree_jobs.ANSWER_FORMAT, "ok": True, "result": {"commit": None}}),
    ),
    "a short commit id": ("commit", _answer("commit", commit="abc")),
    "a commit id with a newline": ("commit", _answer("commit", commit=C1 + "\n")),
    "a bool for a count": ("commit", _answer("commit", paths=True)),
    "a negative count": ("inspect", _answer("inspect", bytes=-1)),
    "a reason with a terminal escape": ("inspect", _answer("inspect", unkept="\x1b]52;c;x\x07")),
    "too many left paths": ("remove", _answer("remove", left=["x"] * 101)),
    "another kind's result": ("check", _answer("salvage")),
    "no outcome": ("check", dumps({"format": tree_jobs.ANSWER_FORMAT, "result": {}})),
    "another format": ("check", dumps({"format": "x", "ok": True, "result": {}})),
    "over its bound": ("check", b" " * (LIMITS.tree_answer_bytes + 1)),
    "two answers": ("check", tree_jobs.answer_ok("check", {}) * 2),
    "an error with a field more": (
        "check",
        dumps({"format": tree_jobs.ANSWER_FORMAT, "ok": False, "error": {**ERROR, "y": 1}}),
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_ANSWERS))
def test_an_answer_that_is_not_its_kinds_is_a_tree_job_error(name: str) -> None:
    kind, data = BAD_ANSWERS[name]
    with pytest.raises(TreeJobError):
        tree_jobs.read_answer(kind, data)


MAPPED = [
    CheckoutChangedError,
    UnsafeRepositoryError,
    InvalidInputError,
    ConflictError,
    UnsafeFileError,
    FileTooLargeError,
    ProcessTimeoutError,
    ToolNotFoundError,
]


@pytest.mark.parametrize("cls", MAPPED, ids=lambda c: c.__name__)
def test_an_error_comes_back_as_its_own_class_with_its_message_and_hint(
    cls: type[OmsError],
) -> None:
    sent = cls("bait/d3 is a symlink (on the way to bait/d3/x); nothing read", hint="look at it")
    with pytest.raises(cls) as raised:
        tree_jobs.read_answer("commit", tree_jobs.answer_error(sent))
    assert type(raised.value) is cls
    assert (raised.value.message, raised.value.remedy) == (sent.message, "look at it")


def test_a_failed_git_comes_back_as_a_failed_process() -> None:
    sent = ProcessFailedError(("git", "fast-import"), 1, b"fatal: out of space")
    with pytest.raises(ProcessFailedError) as raised:
        tree_jobs.read_answer("salvage", tree_jobs.answer_error(sent))
    assert raised.value.message == sent.message


UNMAPPED = ["agent-tree", "signature", "authority-changed", "record-not-found", "nope"]


@pytest.mark.parametrize("code", UNMAPPED)
def test_an_error_the_table_does_not_name_is_a_tree_job_error(code: str) -> None:
    data = dumps({"format": tree_jobs.ANSWER_FORMAT, "ok": False, "error": {**ERROR, "code": code}})
    with pytest.raises(TreeJobError, match="tree job remove failed: m"):
        tree_jobs.read_answer("remove", data)


@settings(max_examples=400)
@given(st.binary(max_size=2048) | profile_values.map(lambda v: json.dumps(v).encode()))
def test_the_answer_decoder_never_fails_but_as_an_oms_error(data: bytes) -> None:
    for kind in tree_jobs.RESULTS:
        try:
            result = tree_jobs.read_answer(kind, data)
        except OmsError:
            continue
        assert set(result) == set(tree_jobs.RESULTS[kind])
        assert all(check(result[name]) for name, check in tree_jobs.RESULTS[kind].items())


_results = st.fixed_dictionaries(
    {
        "unkept": st.none() | st.text(alphabet=PRINTABLE, min_size=1),
        "bytes": st.integers(min_value=0, max_value=MAX_SAFE_INT),
    }
)


@settings(max_examples=200)
@given(_results, st.dictionaries(ascii_keys, profile_values, max_size=3))
def test_a_result_round_trips_and_anything_added_to_it_is_refused(
    result: dict[str, Any], extra: dict[str, Any]
) -> None:
    assert tree_jobs.read_answer("inspect", tree_jobs.answer_ok("inspect", result)) == result
    added = {k: v for k, v in extra.items() if k not in result}
    if added:
        data = dumps({"format": tree_jobs.ANSWER_FORMAT, "ok": True, "result": {**result, **added}})
        with pytest.raises(TreeJobError):
            tree_jobs.read_answer("inspect", data)
