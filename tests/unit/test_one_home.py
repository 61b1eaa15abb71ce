"""One home for each concept (docs/architecture.md "One home for each concept"): a second home
for a concept that has one is refused here, mechanically, so it cannot grow back."""

from __future__ import annotations

import ast
import functools

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
