"""One home for each concept (docs/architecture.md "One home for each concept"): a second home
for a concept that has one is refused here, mechanically, so it cannot grow back."""

from __future__ import annotations

import ast
import functools
import re

from oms.limits import LIMITS
from oms.schemas._generated.payloads import PAYLOADS
from tests.helpers import REPO

PACKAGE = REPO / "oms"


@functools.cache
def _modules() -> list[tuple[str, ast.Module]]:
    return [
        (path.relative_to(REPO).as_posix(), ast.parse(path.read_text()))
        for path in sorted(PACKAGE.rglob("*.py"))
    ]


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


JSON_DECODING = {"json.loads", "json.load", "json.JSONDecoder", "json.decoder.JSONDecoder"}
JSON_HOME = "oms/canonical/strict_json.py"


def json_decoders(rel: str, tree: ast.Module) -> list[str]:
    """Where `tree` decodes JSON itself: `json.loads`/`load`/`JSONDecoder`, a name imported from
    `json`, or a decoder's hooks (`object_pairs_hook`, `parse_constant`, ...)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _dotted(node) in JSON_DECODING:
            out.append(f"{rel}:{node.lineno}: {_dotted(node)}")
        elif isinstance(node, ast.ImportFrom) and node.module in {"json", "json.decoder"}:
            out.append(f"{rel}:{node.lineno}: from {node.module} import ...")
        elif isinstance(node, ast.keyword) and node.arg in {
            "object_pairs_hook",
            "object_hook",
            "parse_constant",
            "parse_float",
            "parse_int",
        }:
            out.append(f"{rel}:{node.value.lineno}: {node.arg}=")
    return out


def test_json_is_decoded_only_in_strict_json() -> None:
    """oms/canonical/strict_json.py is the one JSON decoder: records (`loads`), messages from a
    hook or an MCP client (`loads_message`) and foreign documents (`loads_foreign`)."""
    offenders = [
        hit for rel, tree in _modules() if rel != JSON_HOME for hit in json_decoders(rel, tree)
    ]
    assert offenders == []


def test_the_json_scan_sees_a_second_decoder() -> None:
    tree = ast.parse(
        "import json\nfrom json import loads\n"
        "json.loads(b'{}', object_pairs_hook=dict)\nx = json.JSONDecoder()\n"
    )
    assert len(json_decoders("oms/x.py", tree)) == 4


DENIAL_HOME = "oms/domain/relay.py"


def test_a_pre_tool_use_denial_is_spelled_in_one_place() -> None:
    """`domain/relay.denial` (and its line, `DENIAL_LINE`) is the only PreToolUse denial."""
    offenders = [
        f"{rel}:{node.lineno}"
        for rel, tree in _modules()
        if rel != DENIAL_HOME
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str | bytes)
        and ("permissionDecision" in str(node.value))
    ]
    assert offenders == []


# the error classes an attack (`errors.ATTACKS`) derives from: suppressing one hides the attack
ATTACK_ANCESTORS = {"OmsError", "FsioError", "Exception", "BaseException"}


def broad_suppressions(rel: str, tree: ast.Module) -> list[str]:
    """`suppress(...)` calls naming a class an attack derives from (`errors.suppress_faults`
    is the way to tolerate a failed step)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _dotted(node.func).split(".")[-1] == "suppress":
            names = {_dotted(arg).split(".")[-1] for arg in node.args}
            if names & ATTACK_ANCESTORS:
                out.append(f"{rel}:{node.lineno}: suppress({', '.join(sorted(names))})")
    return out


def test_no_suppression_hides_an_attack() -> None:
    offenders = [hit for rel, tree in _modules() for hit in broad_suppressions(rel, tree)]
    assert offenders == []


def test_the_suppression_scan_sees_one() -> None:
    tree = ast.parse(
        "with contextlib.suppress(OmsError): pass\n"
        "with suppress(errors.FsioError, OSError): pass\n"
        "with suppress(NotFoundError): pass\n"
    )
    assert len(broad_suppressions("oms/x.py", tree)) == 2


def module_state(rel: str, tree: ast.Module) -> list[str]:
    """Module-level names bound to an empty dict, list or set (mutable state a process keeps)."""
    out = []
    for node in tree.body:
        target, value = (
            (node.targets[0], node.value)
            if isinstance(node, ast.Assign)
            else (node.target, node.value)
            if isinstance(node, ast.AnnAssign)
            else (None, None)
        )
        empty = (isinstance(value, ast.Dict) and not value.keys) or (
            isinstance(value, ast.List | ast.Set) and not value.elts
        )
        made = isinstance(value, ast.Call) and _dotted(value.func) in {"dict", "list", "set"}
        if target is not None and (empty or made):
            out.append(f"{rel}:{node.lineno}: {ast.unparse(target)}")
    return out


def test_the_conductor_keeps_no_module_state() -> None:
    """A conductor's memory between ticks is its `tick.Memory`, not module globals."""
    offenders = [
        hit
        for rel, tree in _modules()
        if rel.startswith("oms/services/conductor/")
        for hit in module_state(rel, tree)
    ]
    assert offenders == []


# a name that says it bounds something: a size, a count, a time, a number of tries, a rate
BOUND_NAME = re.compile(
    r"^_?MAX_|_MAX$|(^|_)(EVERY|GRACE|PER|BACKOFF|QUARANTINE|COMPACT|RECENT|CHUNK|PIDS)(_|$)"
    r"|(_CAP|_BYTES|_TIMEOUT(_[A-Z]+)?|_S|_MS|_NS|_SECONDS|_MINUTES|_DAYS|_LIMIT|_ROUNDS|_TRIES"
    r"|_RETRIES|_CHARS|_SHOWN|_CELLS|_CONNECTIONS|_ENTRIES|_DEPTH|_KEEP|_SIZE|_AFTER|_AT|_SHARE"
    r"|_ALLOWANCE|_WEIGHT)$"
)
# module-level numbers named like bounds that stay where they are, and why
BOUNDS_ELSEWHERE = {
    # copies the relays in a sandbox keep (they import no `typing`, ADR 0010): proven equal below
    ("oms/cli/relay.py", "STDIN_CAP"): "hook_stdin_bytes",
    ("oms/cli/relay.py", "ANSWER_CAP"): "relay_answer_bytes",
    ("oms/cli/relay.py", "HOOK_TIMEOUT_S"): "relay_hook_s",
    ("oms/domain/relay.py", "HEADER_CAP"): "relay_header_bytes",
    ("oms/domain/relay.py", "WORD_CAP"): "relay_word_bytes",
    ("oms/domain/relay.py", "MAX_WORDS"): "relay_words",
    # ... and `oms worker netrelay`, which loads only the socket module and threads
    ("oms/process/netrelay.py", "CHUNK"): "netrelay_chunk_bytes",
    # sizes a format fixes (an Ed25519 seed and signature), not bounds oms chooses
    ("oms/store/keys.py", "SEED_BYTES"): "",
    ("oms/store/keys.py", "SIGNATURE_BYTES"): "",
    ("oms/store/ledger.py", "_SEED_BYTES"): "",
    ("oms/canonical/strict_json.py", "MAX_SAFE_INT"): "",  # JSON's safe integers (RFC 8785)
    ("oms/canonical/timestamps.py", "MAX_MS"): "",  # the last millisecond of year 9999
    ("oms/canonical/timestamps.py", "MIN_MS"): "",  # the first millisecond of year 1
    ("oms/errors.py", "MESSAGE_LIMIT"): "",  # errors.py imports nothing of oms
    ("oms/errors.py", "_SHOWN_MAX"): "",  # ... likewise
    # units, not bounds: the milliseconds in a day
    ("oms/canonical/timestamps.py", "_DAY_MS"): "",
    ("oms/canonical/when.py", "_DAY_MS"): "",
    ("oms/domain/finishing.py", "DAY_MS"): "",
    ("oms/services/finishing/worktree_gc.py", "DAY_MS"): "",
    # GitHub's own numbers: an owner's and a repository's longest name, its largest page
    ("oms/domain/github.py", "OWNER_MAX"): "",
    ("oms/domain/github.py", "NAME_MAX"): "",
    ("oms/adapters/github.py", "PER_PAGE"): "",
}


def numeric_bounds(rel: str, tree: ast.Module) -> list[tuple[str, int | float]]:
    """Module-level names that say a bound (`MAX_*`, `*_CAP`, `*_BYTES`, `*_TIMEOUT*`, `*_S`,
    `*_MS`, `*_ROUNDS`, `*_EVERY_*`, `*_PER_*`, ...: `BOUND_NAME`) bound to a number (an
    expression of literals and of the module's numbers before it: `64 * 1024`, `4 * GIB`)."""
    out = []
    numbers: dict[str, int | float] = {}  # the module's numbers so far, whatever their names
    for node in tree.body:
        target, value = (
            (node.targets[0], node.value)
            if isinstance(node, ast.Assign)
            else (node.target, node.value)
            if isinstance(node, ast.AnnAssign)
            else (None, None)
        )
        if not isinstance(target, ast.Name) or value is None:
            continue
        literal = (ast.Constant, ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop, ast.Load)
        if not all(
            isinstance(n, literal) or (isinstance(n, ast.Name) and n.id in numbers)
            for n in ast.walk(value)
        ):
            continue
        code = compile(ast.Expression(value), rel, "eval")
        number = eval(code, {"__builtins__": {}}, dict(numbers))  # noqa: S307 - numbers only
        if isinstance(number, int | float) and not isinstance(number, bool):
            numbers[target.id] = number
            if BOUND_NAME.search(target.id):
                out.append((target.id, number))
    return out


def test_every_bound_lives_in_limits() -> None:
    """docs/architecture.md: every bound is a field of `oms/limits.py` `Limits`, with one line
    saying what it bounds; a module's own number named like a bound (`BOUND_NAME`) is refused
    unless `BOUNDS_ELSEWHERE` says why it is not one."""
    offenders = [
        f"{rel}: {name} = {number}"
        for rel, tree in _modules()
        if rel != "oms/limits.py"
        for name, number in numeric_bounds(rel, tree)
        if (rel, name) not in BOUNDS_ELSEWHERE
    ]
    assert offenders == []


def test_the_relays_copies_of_limits_are_equal() -> None:
    copies = {
        (rel, name): number
        for rel, tree in _modules()
        for name, number in numeric_bounds(rel, tree)
        if BOUNDS_ELSEWHERE.get((rel, name))
    }
    assert len(copies) == 7
    assert {key: getattr(LIMITS, BOUNDS_ELSEWHERE[key]) for key in copies} == copies


def test_the_bound_scan_sees_one() -> None:
    tree = ast.parse("A_CAP = 64 * 1024\nB_BYTES: int = 1_000\nC_TIMEOUT_S = 2.5\nD_CAP = f(1)\n")
    assert [name for name, _ in numeric_bounds("oms/x.py", tree)] == [
        "A_CAP",
        "B_BYTES",
        "C_TIMEOUT_S",
    ]


def test_the_bound_scan_sees_every_kind_of_name() -> None:
    names = [
        "POLL_S",
        "GRACE_MS",
        "RACY_NS",
        "TICK_SECONDS",
        "DEADLINE_MINUTES",
        "GC_AFTER_DAYS",
        "QUEUE_LIMIT",
        "_ROUNDS",
        "OPEN_TRIES",
        "OPEN_RETRIES",
        "COMPACT_EVERY",
        "KEEP_EVERY_TICK",
        "GRACE",
        "COMPACT_PER_TICK",
        "BACKOFF_BASE",
        "QUARANTINE_FAILURES",
        "TITLE_CHARS",
        "NEAR_SHOWN",
        "LOOKED_MAX",
        "TITLE_CELLS",
        "DOOR_CONNECTIONS",
        "TMP_ENTRIES",
        "RUNTIME_DEPTH",
        "LOG_KEEP",
        "READ_SIZE",
        "PERSIST_AFTER",
        "LOOKED_AT",
        "PERSIST_SHARE",
        "ENTRY_ALLOWANCE",
        "CPU_WEIGHT",
        "RECENT",
        "CHUNK",
        "PIDS",
    ]
    tree = ast.parse("".join(f"{name} = 1\n" for name in [*names, "RUNS", "STATUS", "X_SS"]))
    assert [name for name, _ in numeric_bounds("oms/x.py", tree)] == names


def test_the_bound_scan_sees_through_a_unit() -> None:
    tree = ast.parse("GIB = 1 << 30\nA_BYTES = 4 * GIB\nB_BYTES = 2 * f(GIB)\nC_S = -GIB\n")
    assert numeric_bounds("oms/x.py", tree) == [("A_BYTES", 4 << 30), ("C_S", -(1 << 30))]


# a parameter whose name says a bound
BOUND_PARAMETER = re.compile(
    r"^(timeout|cap|limit|wait|most|max_\w+|\w+_(s|ms|ns|bytes|cap|limit|timeout|rounds|tries"
    r"|retries|chars|max))$"
)
# parameters named like bounds whose number stays in the signature, and why
DEFAULTS_ELSEWHERE = {
    ("oms/errors.py", "reason_line", "cap"),  # errors.py imports nothing of oms
    ("oms/demo/scratch.py", "_config", "max_workers"),  # the demo's pool, not a bound
    ("oms/demo/scratch.py", "_prepare", "max_workers"),  # ... likewise
    ("oms/store/outbox.py", "lock", "wait_s"),  # 0: not waiting at all
}


def default_bounds(rel: str, tree: ast.Module) -> list[tuple[str, str, int | float]]:
    """Parameters whose name says a bound (`BOUND_PARAMETER`: `timeout`, `cap`, `*_s`,
    `*_bytes`, ...) defaulting to a number (an expression of literals): (function, parameter,
    number)."""
    out = []
    literal = (ast.Constant, ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop)
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        pairs = [
            *zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True),
            *((a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d),
        ]
        for arg, default in pairs:
            if not BOUND_PARAMETER.search(arg.arg):
                continue
            if not all(isinstance(n, literal) for n in ast.walk(default)):
                continue
            number = eval(compile(ast.Expression(default), rel, "eval"), {})  # noqa: S307
            if isinstance(number, int | float) and not isinstance(number, bool):
                out.append((node.name, arg.arg, number))
    return out


def test_every_bound_a_parameter_defaults_to_lives_in_limits() -> None:
    """A bound given as a parameter's default is `LIMITS.<field>` too, never a number in the
    signature (`timeout: float = LIMITS.git_timeout_s`)."""
    offenders = [
        f"{rel}: {function}({parameter}={number})"
        for rel, tree in _modules()
        if rel != "oms/limits.py"
        for function, parameter, number in default_bounds(rel, tree)
        if (rel, function, parameter) not in DEFAULTS_ELSEWHERE
    ]
    assert offenders == []


def test_the_default_scan_sees_one() -> None:
    tree = ast.parse(
        "def f(a, timeout=30.0, *, cap: int = 64 * 1024, wait_s=LIMITS.x, count=3): pass\n"
        "class C:\n    def g(self, read_bytes=4096, /): pass\n"
        "async def h(*, max_output=1 << 20, keep=True, limit=None): pass\n"
    )
    assert sorted(default_bounds("oms/x.py", tree)) == [
        ("f", "cap", 65536),
        ("f", "timeout", 30.0),
        ("g", "read_bytes", 4096),
        ("h", "max_output", 1 << 20),
    ]


def test_an_observed_pane_becomes_an_end_in_one_place() -> None:
    """`delivery/reconcile.pane_end` is the one caller of `domain/delivery.end_of`: the
    reconcile, a resume and a native relaunch all ask it."""
    callers = [
        f"{rel}:{node.lineno}"
        for rel, tree in _modules()
        if not rel.startswith("oms/domain/")
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and _dotted(node.func).split(".")[-1] == "end_of"
    ]
    assert len(callers) == 1
    assert callers[0].startswith("oms/services/delivery/reconcile.py:")


PAYLOAD_HOME = "oms/store/payloads.py"
# the domain's one home (it may not import the store): a transition's next payload, the last
# version (validated by the store) with keys changed that mypy checked (`Next[WorkerPayload]`)
NEXT_HOME = "oms/domain/machine.py"
NEXT_KINDS = ("authorization", "dispatch", "session", "ticket", "worker")


def payload_casts(rel: str, tree: ast.Module) -> list[str]:
    """Where `tree` casts to a record kind's payload TypedDict (`cast(WorkerPayload, ...)`, or the
    type spelled as a string)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _dotted(node.func).split(".")[-1] == "cast" and node.args:
            target = node.args[0]
            name = target.value if isinstance(target, ast.Constant) else _dotted(target)
            if isinstance(name, str) and name.split(".")[-1].endswith("Payload"):
                out.append(f"{rel}:{node.lineno}: cast({name}, ...)")
    return out


def test_a_payload_is_typed_only_by_its_accessor() -> None:
    """oms/store/payloads.py is the one place a record's payload becomes its TypedDict (a cast,
    after the store validated the record; docs/adr/0044-typed-payloads.md), and
    oms/domain/machine.py the one place a transition's next payload does (one `*_with` a kind the
    machines write; docs/adr/0042-decisions-in-machines-a-simulator.md, "Amendment")."""
    homes = (PAYLOAD_HOME, NEXT_HOME)
    offenders = [
        hit for rel, tree in _modules() if rel not in homes for hit in payload_casts(rel, tree)
    ]
    assert offenders == []
    home = ast.parse((REPO / PAYLOAD_HOME).read_text())
    assert len(payload_casts(PAYLOAD_HOME, home)) == len(PAYLOADS)  # one accessor a kind
    nexts = payload_casts(NEXT_HOME, ast.parse((REPO / NEXT_HOME).read_text()))
    assert len(nexts) == len(NEXT_KINDS)


def test_the_payload_cast_scan_sees_one() -> None:
    tree = ast.parse(
        "from typing import cast\nimport typing\n"
        "a = cast('DispatchPayload', p)\nb = typing.cast(WorkerPayload, p)\nc = cast(str, p)\n"
    )
    assert len(payload_casts("oms/x.py", tree)) == 2
