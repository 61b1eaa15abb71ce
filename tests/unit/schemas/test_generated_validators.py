"""The generated predicates (`oms/schemas/_generated/`) decide exactly as jsonschema does.

Three sources of documents, for every schema and every `$defs` entry: documents drawn from the
schema itself (mostly valid, reaching deep branches), the same documents mutated at a random place
(a value replaced by random JSON, a key dropped or added), and random JSON. For each, the generated
predicate and `jsonschema.Draft202012Validator` (with the oms registry, its `pattern` read as
ECMA-262 reads it: `loader.ecma_pattern`) must agree."""

from __future__ import annotations

import copy
import importlib.util
import json
import re
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from oms.schemas import SCHEMA_NAMES, load_schema, validator
from oms.schemas._generated import MODULES, SOURCE_SHA256, _runtime
from oms.schemas.loader import URN, ecma_pattern, predicate
from tests.helpers import REPO
from tests.unit.schemas.test_schemas import VALID

VALIDATORS = {entry: predicate(entry) for entry in MODULES}
ENTRIES = sorted(VALIDATORS)
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.sampled_from([0, 1, -1, 0.0, 1.0, 1.5, 2**63, True, False])
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=12,
)


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location(
        "gen_validators", REPO / "build" / "gen_validators.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generated_module_is_what_the_schemas_give() -> None:
    generator = _generator()
    assert generator.stale(generator.generate()) == []
    _, digest = generator.load()
    assert digest == SOURCE_SHA256


def test_every_schema_and_definition_has_a_predicate() -> None:
    expected = set(SCHEMA_NAMES)
    for name in SCHEMA_NAMES:
        expected |= {f"{name}#/$defs/{key}" for key in load_schema(name).get("$defs", {})}
    assert set(VALIDATORS) == expected


def _oracle(entry: str, instance: object) -> bool:
    name, _, pointer = entry.partition("#")
    checker = validator(name)
    if pointer:
        checker = checker.evolve(schema={"$ref": f"{URN}{name}#{pointer}"})
    return bool(checker.is_valid(instance))


def _resolve(doc: str, pointer: str) -> tuple[str, Any]:
    value: Any = load_schema(doc)
    for part in [p for p in pointer.split("/") if p]:
        value = value[int(part)] if isinstance(value, list) else value[part]
    return doc, value


def _from_schema(doc: str, schema: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    """Documents shaped by `schema` (most valid, some not): a test-side generator, independent of
    the build-side compiler."""
    if depth > 12 or not isinstance(schema, dict):
        return json_values
    if "$ref" in schema:
        where, _, pointer = schema["$ref"].partition("#")
        target = where[len(URN) :] if where else doc
        return _from_schema(*_resolve(target, pointer), depth + 1)
    if "const" in schema:
        return st.just(copy.deepcopy(schema["const"]))
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([_from_schema(doc, s, depth + 1) for s in schema[key]])
    if "allOf" in schema and "type" not in schema and "properties" not in schema:
        return _from_schema(doc, schema["allOf"][0], depth + 1)
    kind = schema.get("type", "object" if "properties" in schema else None)
    if isinstance(kind, list):
        return st.one_of([_from_schema(doc, {**schema, "type": k}, depth + 1) for k in kind])
    if kind == "object":
        props = schema.get("properties", {})
        required = [k for k in schema.get("required", []) if k in props]
        optional = {
            k: _from_schema(doc, v, depth + 1) for k, v in props.items() if k not in required
        }
        return st.fixed_dictionaries(
            {k: _from_schema(doc, props[k], depth + 1) for k in required}, optional=optional
        ).map(lambda d: d)
    if kind == "array":
        items = _from_schema(doc, schema.get("items", {}), depth + 1)
        lists = st.lists(
            items, min_size=schema.get("minItems", 0), max_size=min(schema.get("maxItems", 4), 4)
        )
        if schema.get(
            "uniqueItems"
        ):  # sometimes repeat an item, so uniqueness is exercised both ways
            return lists.flatmap(lambda v: st.sampled_from([v, v + v[:1]]))
        return lists
    if kind == "string":
        if "pattern" in schema:
            # `$` read as ECMA-262 reads it: hypothesis (as Python) would end some with a newline
            return st.from_regex(re.compile(ecma_pattern(schema["pattern"])), fullmatch=False)
        return st.text(
            min_size=schema.get("minLength", 0), max_size=min(schema.get("maxLength", 30), 30)
        )
    if kind == "integer":
        low, high = schema.get("minimum", -(2**31)), schema.get("maximum", 2**31)
        return st.integers(low - 1, high + 1)
    if kind == "number":
        return st.integers() | st.floats(allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    return json_values


def _mutate(data: st.DataObject, value: Any) -> Any:
    """Change one random place of `value`."""
    if isinstance(value, dict) and value and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(value)))
        action = data.draw(st.sampled_from(["recurse", "drop", "replace", "add"]))
        out = dict(value)
        if action == "recurse":
            out[key] = _mutate(data, value[key])
        elif action == "drop":
            del out[key]
        elif action == "replace":
            out[key] = data.draw(json_values)
        else:
            out[data.draw(st.text(max_size=8))] = data.draw(json_values)
        return out
    if isinstance(value, list) and value and data.draw(st.booleans()):
        index = data.draw(st.integers(0, len(value) - 1))
        out_list = list(value)
        out_list[index] = _mutate(data, value[index])
        return out_list
    return data.draw(json_values | st.just(value))


def _strategy(entry: str) -> st.SearchStrategy[Any]:
    name, _, pointer = entry.partition("#")
    return _from_schema(*_resolve(name, pointer))


@settings(max_examples=1500)
@given(data=st.data())
def test_drawn_and_mutated_documents(data: st.DataObject) -> None:
    entry = data.draw(st.sampled_from(ENTRIES))
    document = data.draw(_strategy(entry))
    if data.draw(st.booleans()):
        document = _mutate(data, document)
    verdict = _oracle(entry, document)
    event("valid" if verdict else "invalid")
    assert VALIDATORS[entry](document) == verdict, (entry, document)


@settings(max_examples=600)
@given(data=st.data())
def test_known_valid_documents_and_their_mutations(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(VALID)))
    document = copy.deepcopy(VALID[name])
    assert VALIDATORS[name](document) is True
    for _ in range(data.draw(st.integers(1, 3))):
        document = _mutate(data, document)
    assert VALIDATORS[name](document) == _oracle(name, document), (name, document)


@settings(max_examples=600)
@given(entry=st.sampled_from(ENTRIES), document=json_values)
def test_random_json(entry: str, document: Any) -> None:
    assert VALIDATORS[entry](document) == _oracle(entry, document)


@pytest.mark.parametrize(
    ("value", "other"),
    [(1, 1.0), (True, 1), (False, 0), ([1, True], [1.0, True]), ({"a": 1}, {"a": 1.0}), ("1", 1)],
)
def test_equality_semantics_match_jsonschema(value: object, other: object) -> None:
    schema = {"const": value}
    from jsonschema import Draft202012Validator

    assert _runtime.eq(other, value) == Draft202012Validator(schema).is_valid(other)
    assert _runtime.unique([value, other]) == Draft202012Validator({"uniqueItems": True}).is_valid(
        [value, other]
    )


@pytest.mark.parametrize("field", ["capabilities", "tools"])
def test_duplicates_in_unique_lists_are_refused_by_both(field: str) -> None:
    document = copy.deepcopy(VALID["role-policy"])
    role = document["roles"]["oms.command-executor"]
    role[field] = [*role[field], role[field][0]]
    assert VALIDATORS["role-policy"](document) is False
    assert _oracle("role-policy", document) is False


def test_a_stale_or_extra_generated_file_is_reported(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    generator = _generator()
    files = generator.generate()
    monkeypatch.setattr(generator, "TARGET", tmp_path)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert generator.stale(files) == []
    (tmp_path / "session.py").write_text(
        files["session.py"].replace("return False", "return True", 1)
    )
    (tmp_path / "leftover.py").write_text("")
    assert generator.stale(files) == ["leftover.py", "session.py"]


def test_validating_one_schema_loads_only_its_own_module_and_what_it_references() -> None:
    import subprocess
    import sys

    probe = (
        "import json, sys; from oms.schemas import is_valid; is_valid('op-index', {}); "
        "print(json.dumps(sorted(m for m in sys.modules if "
        "m.startswith('oms.schemas._generated.'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO
    )
    loaded = [name.rsplit(".", 1)[1] for name in json.loads(out.stdout)]
    assert loaded == ["_runtime", "defs", "op_index"]  # op-index refers to defs#/$defs/opaque_id
