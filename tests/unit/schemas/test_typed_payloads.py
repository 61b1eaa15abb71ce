"""The generated payload TypedDicts (`oms/schemas/_generated/payloads.py`) agree with the validators
(docs/adr/0044-typed-payloads.md).

Payloads are drawn from each record kind's schema, and mutated, with the drawing helpers of the
validators' own proof (test_generated_validators.py). Every payload the kind's validator accepts has
exactly the keys and values its TypedDict allows; a payload the TypedDict's shape forbids (a
required key missing, a key it does not have, a value outside its enum or of another type) the
validator refuses. The TypedDicts' keys, required keys and enums are the schemas' own."""

from __future__ import annotations

import copy
import importlib.util
import types
import typing
from typing import Any, Literal, NotRequired, get_args, get_origin, is_typeddict

import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from oms.canonical.strict_json import Json
from oms.errors import IntegrityError
from oms.schemas import is_valid, load_schema
from oms.schemas._generated import payloads as generated
from oms.schemas.loader import URN
from oms.schemas.payloads import DispatchState, WorkerHealth, WorkerPayload, WorkerState
from oms.store.payloads import dispatch_payload, text_set, worker_payload
from oms.store.records import Record
from tests.helpers import REPO
from tests.unit.schemas.test_generated_validators import (
    _from_schema,
    _mutate,
    _resolve,
    json_values,
)
from tests.unit.schemas.test_schemas import VALID

KINDS = sorted(generated.PAYLOADS)


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location(
        "gen_payloads", REPO / "build" / "gen_payloads.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generated_module_is_what_the_schemas_give() -> None:
    assert (REPO / "oms/schemas/_generated/payloads.py").read_text() == _generator().generate()


def _hints(cls: type) -> tuple[dict[str, Any], set[str]]:
    """A TypedDict's value types and its required keys (read from the annotations themselves)."""
    hints = typing.get_type_hints(cls, include_extras=True)
    required = {k for k, t in hints.items() if get_origin(t) is not NotRequired}
    return {k: get_args(t)[0] if k not in required else t for k, t in hints.items()}, required


def conforms(value: object, tp: Any) -> bool:
    """Whether the JSON value `value` is of the type `tp` (as mypy reads it); a TypedDict's object
    has its required keys and no key it does not name."""
    if tp is Json:
        return True
    if tp is type(None):
        return value is None
    if tp is bool:
        return isinstance(value, bool)
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if tp is str:
        return isinstance(value, str)
    origin, args = get_origin(tp), get_args(tp)
    if origin is Literal:
        return any(type(value) is type(a) and value == a for a in args)
    if origin in (typing.Union, types.UnionType):
        return any(conforms(value, a) for a in args)
    if origin is list:
        return isinstance(value, list) and all(conforms(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict) and all(
            isinstance(k, str) and conforms(v, args[1]) for k, v in value.items()
        )
    if is_typeddict(tp):
        if not isinstance(value, dict):
            return False
        fields, required = _hints(tp)
        return required <= value.keys() <= fields.keys() and all(
            conforms(v, fields[k]) for k, v in value.items()
        )
    raise AssertionError(f"no rule for {tp!r}")


def _has_float(value: object) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, list):
        return any(_has_float(v) for v in value)
    if isinstance(value, dict):
        return any(_has_float(v) for v in value.values())
    return False


def _record(kind: str, payload: object) -> dict[str, Any]:
    """A record envelope of `kind` around `payload` (the envelope itself valid)."""
    state = load_schema(kind)["properties"]["state"]["enum"][0]
    return {**copy.deepcopy(VALID["worker"]), "kind": kind, "state": state, "payload": payload}


def _payload_schema(kind: str) -> Any:
    return load_schema(kind)["properties"]["payload"]


@settings(max_examples=300)
@given(data=st.data())
def test_a_payload_the_validator_accepts_is_what_its_typeddict_allows(
    data: st.DataObject,
) -> None:
    kind = data.draw(st.sampled_from(KINDS))
    payload = data.draw(_from_schema(kind, _payload_schema(kind)))
    for _ in range(data.draw(st.integers(0, 2))):
        payload = _mutate(data, payload)
    assume(not _has_float(payload))  # the record profile has no floats (strict_json refuses them)
    valid = is_valid(kind, _record(kind, payload))
    typed = conforms(payload, generated.PAYLOADS[kind])
    event(f"valid={valid} typed={typed}")
    if valid:
        assert typed, (kind, payload)
    if not typed:  # the same implication, read the other way: what the type forbids is refused
        assert not valid, (kind, payload)


def _valid_payload(data: st.DataObject, kind: str) -> dict[str, Any]:
    for _ in range(200):
        payload = data.draw(_from_schema(kind, _payload_schema(kind)))
        if is_valid(kind, _record(kind, payload)):
            assert isinstance(payload, dict)
            return payload
    pytest.fail(f"no valid {kind} payload drawn")


def _enum_keys(cls: type) -> dict[str, tuple[object, ...]]:
    fields, _ = _hints(cls)
    out = {}
    for key, tp in fields.items():
        union = get_origin(tp) in (typing.Union, types.UnionType)
        literals = [a for a in (get_args(tp) if union else (tp,)) if get_origin(a) is Literal]
        if literals:
            out[key] = get_args(literals[0])
    return out


@settings(max_examples=150)
@given(data=st.data())
def test_a_payload_its_typeddict_forbids_the_validator_refuses(data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(KINDS))
    cls = generated.PAYLOADS[kind]
    payload = _valid_payload(data, kind)
    fields, required = _hints(cls)
    enums = _enum_keys(cls)
    broken = dict(payload)
    how = data.draw(st.sampled_from(["missing", "unknown", "outside-enum", "other-type"]))
    if how == "missing":
        del broken[data.draw(st.sampled_from(sorted(required)))]
    elif how == "unknown":
        name = data.draw(st.from_regex(r"[a-z_]{1,12}", fullmatch=True))
        assume(name not in fields)
        broken[name] = data.draw(json_values)
    elif how == "outside-enum":
        assume(bool(enums))
        key = data.draw(st.sampled_from(sorted(enums)))
        text = data.draw(st.text(max_size=16))
        assume(text not in enums[key])
        broken[key] = text
    else:
        key = data.draw(st.sampled_from(sorted(fields)))
        value = data.draw(json_values)
        assume(not _has_float(value) and not conforms(value, fields[key]))
        broken[key] = value
    assert not conforms(broken, cls)
    assert not is_valid(kind, _record(kind, broken)), (kind, how, broken)


def _enum_of(doc: str, schema: Any) -> list[object] | None:
    if "$ref" in schema:
        where, _, pointer = schema["$ref"].partition("#")
        return _enum_of(*_resolve(where.removeprefix(URN) or doc, pointer))
    if "enum" in schema:
        return list(schema["enum"])
    for branch in schema.get("anyOf", []):
        if "enum" in branch or "$ref" in branch:
            return _enum_of(doc, branch)
    return None


@pytest.mark.parametrize("kind", KINDS)
def test_each_typeddict_has_its_schemas_keys_and_enums(kind: str) -> None:
    schema = _payload_schema(kind)
    fields, required = _hints(generated.PAYLOADS[kind])
    assert list(fields) == list(schema["properties"])
    assert required == set(schema["required"])
    for key, values in _enum_keys(generated.PAYLOADS[kind]).items():
        assert [
            v for v in _enum_of(kind, schema["properties"][key]) or [] if v is not None
        ] == list(values), key


def test_the_state_enums_are_the_schemas() -> None:
    for kind in KINDS:
        enum = getattr(generated, f"{kind.capitalize()}State")
        assert [m.value for m in enum] == load_schema(kind)["properties"]["state"]["enum"]
    health = _payload_schema("worker")["properties"]["health"]["enum"]
    assert [m.value for m in WorkerHealth] == health
    assert WorkerState("done") is WorkerState.DONE
    assert DispatchState("result-received") is DispatchState.RESULT_RECEIVED


def _store_record(kind: str, payload: dict[str, Json]) -> Record:
    return Record(kind, "w-1", 0, "idle", None, "op-1", "oms", "t", None, payload, "0" * 64)


def test_an_accessor_types_its_kinds_payload_and_refuses_another_kind() -> None:
    record = _store_record("worker", copy.deepcopy(VALID["worker"]["payload"]))
    typed: WorkerPayload = worker_payload(record)
    assert typed is record.payload  # no copy: the dict the store parsed
    assert WorkerHealth(typed["health"]) is WorkerHealth.HEALTHY
    with pytest.raises(IntegrityError, match="is not a dispatch record"):
        dispatch_payload(record)


def test_a_nullable_key_read_where_it_must_be_set_is_refused_unset() -> None:
    """`text_set` is `access.text`'s check on a typed read: a leased ticket's `session_id`, an
    accepted dispatch's `accepted_at` (null before then) — the same IntegrityError for null."""
    assert text_set("sess-1", "session_id") == "sess-1"
    with pytest.raises(IntegrityError, match="field 'session_id' is not text"):
        text_set(None, "session_id")
