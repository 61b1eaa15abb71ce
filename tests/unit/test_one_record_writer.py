"""One way to write a record's next version (docs/architecture.md): every writer goes through
`RecordStore.update` (or `upsert`, `write_next`: the same read-decide-write-retry loop). A call to
the store's low-level version write — `.transition(..., expected_version=...)`, or a record
published through the ledger — anywhere else is refused here, so a second writer cannot grow back.
"""

from __future__ import annotations

import ast
import functools

from tests.helpers import REPO

PACKAGE = REPO / "oms"
# the primitive: the one place that calls the low-level write
HOME = ("oms/store/records.py", "RecordStore._decide_loop")
HOME_WRITE = ("oms/store/records.py", "RecordStore._write")
# the medium a version lands on (ADR 0043): only `_write` hands a version to its backend
HOME_FILES = ("oms/store/backend.py", "Files.publish_version")
# other writers allowed, each with its reason (keep it empty)
ALLOWED: dict[tuple[str, str], str] = {}


@functools.cache
def _modules() -> list[tuple[str, ast.Module]]:
    return [
        (path.relative_to(REPO).as_posix(), ast.parse(path.read_text()))
        for path in sorted(PACKAGE.rglob("*.py"))
    ]


def _is_version_write(call: ast.Call) -> bool:
    """`x.transition(..., expected_version=...)`, `x.publish_noted(root, "record", ...)` or a
    backend's `x.publish_version(...)`."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name == "transition":
        return any(k.arg == "expected_version" for k in call.keywords)
    if name == "publish_version":
        return True
    if name == "publish_noted":
        kind = call.args[1] if len(call.args) > 1 else None
        return isinstance(kind, ast.Constant) and kind.value == "record"
    return False


def version_writers(rel: str, tree: ast.Module) -> list[tuple[str, str]]:
    """(module, enclosing Class.function) of every low-level version write in `tree`."""
    out: list[tuple[str, str]] = []

    def visit(node: ast.AST, scope: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                inner = [*scope, child.name]
            if isinstance(child, ast.Call) and _is_version_write(child):
                out.append((rel, ".".join(scope) or "<module>"))
            visit(child, inner)

    visit(tree, [])
    return out


def test_no_record_writer_outside_the_primitive() -> None:
    found = [w for rel, tree in _modules() for w in version_writers(rel, tree)]
    assert HOME in found, "the primitive no longer writes through `transition`: update this test"
    others = sorted(
        {w for w in found if w not in (HOME, HOME_WRITE, HOME_FILES, *ALLOWED)},
    )
    assert not others, (
        "write a record's next version through `RecordStore.update`/`upsert`/`write_next` "
        f"(a pure decide, one retry loop), not the low-level write: {others}"
    )


def test_the_allow_list_gives_a_reason_and_is_still_needed() -> None:
    found = {w for rel, tree in _modules() for w in version_writers(rel, tree)}
    for entry, reason in ALLOWED.items():
        assert reason.strip(), f"{entry}: say why it may write around the primitive"
        assert entry in found, f"{entry}: no longer writes; remove it from ALLOWED"


def test_the_scan_finds_a_writer() -> None:
    source = """
class Thing:
    def step(self, ws, rec):
        return ws.store.records("dispatch").transition(
            rec.record_id, expected_version=rec.version, state="x", payload={},
            operation_id="op", actor="a", observed_at="t",
        )

def sneaky(root, rel, data):
    ledger.publish_noted(root, "record", rel, data)

def around(store, item):
    store.backend.publish_version(item, None)

def fine(machine):
    return machine.transition("dispatch", "accepted")
"""
    found = version_writers("oms/x.py", ast.parse(source))
    assert found == [("oms/x.py", "Thing.step"), ("oms/x.py", "sneaky"), ("oms/x.py", "around")]
