"""Generate the typed payloads of the record kinds from `schemas/*.schema.json`.

    python build/gen_payloads.py           # write oms/schemas/_generated/payloads.py
    python build/gen_payloads.py --check   # exit 1 if it is not what the schemas give

Per record kind (a schema whose `properties.kind` is a `const`): a `TypedDict` of its payload
(`WorkerPayload`: required keys from the schema's `required`, the others `NotRequired`; value
types from `type`/`enum`/`const`/`$ref`/`anyOf`/`oneOf`, `Literal[...]` for an enum), the
TypedDicts of the objects it holds (a `$defs` entry by its own name), and a `StrEnum` of its states
(`WorkerState`) and of each `state`/`health` enum of its payload (`WorkerHealth`), and a
`TypedDict` of any of its keys (`WorkerFields`, total=False: what a transition of the domain's
machines changes, `domain/machine.py`). Why TypedDicts
(no runtime cost; the validator stays the proof; mypy checks every key and value read):
docs/adr/0044-typed-payloads.md.
`tests/unit/schemas/test_typed_payloads.py` proves a TypedDict and its schema's validator agree.
"""

from __future__ import annotations

import argparse
import importlib.util
import keyword
import re
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
TARGET = REPO / "oms" / "schemas" / "_generated" / "payloads.py"
NOTES = {"description", "$comment", "title"}
SCALARS = {"string": "str", "integer": "int", "number": "int | float", "boolean": "bool"}
ENUM_KEYS = ("state", "health")

HEADER = '''\
"""The record kinds' payloads, typed. Generated from schemas/*.schema.json by \
build/gen_payloads.py. Do not edit.

A TypedDict describes a payload its kind's validator accepted (oms/store/payloads.py casts to it
after the store has validated the record); tests/unit/schemas/test_typed_payloads.py proves each
TypedDict and its validator agree.
"""

# ruff: noqa
# (no `from __future__ import annotations`: a TypedDict's `__required_keys__` are right at run time
# only when its annotations are evaluated)
from enum import StrEnum
from typing import Literal, NotRequired, TypedDict

from oms.canonical.strict_json import Json
'''


def _gen_validators() -> Any:
    spec = importlib.util.spec_from_file_location(
        "gen_validators", REPO / "build" / "gen_validators.py"
    )
    if spec is None or spec.loader is None:
        raise SystemExit("build/gen_validators.py cannot be loaded")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def camel(name: str) -> str:
    """`sandbox_limits` -> `SandboxLimits`, `record-envelope` -> `RecordEnvelope`."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", name) if part)


def member(value: str) -> str:
    """The enum member name of `value`: `result-received` -> `RESULT_RECEIVED`."""
    name = re.sub(r"[^A-Za-z0-9]+", "_", value).strip("_").upper()
    if not name or name[0].isdigit():
        name = f"V_{name}"
    return name


class Typer:
    """Python types of schema nodes; object schemas become TypedDicts, emitted once each."""

    def __init__(self, docs: dict[str, dict[str, Any]]) -> None:
        self.docs = docs
        self.classes: dict[tuple[str, str], str] = {}  # (doc, pointer) -> class name
        self.kinds: dict[str, list[str]] = {}  # class name -> "key: type" of each of its keys
        self.bodies: list[str] = []
        self.enums: list[str] = []

    def node(self, doc: str, pointer: str) -> Any:
        value: Any = self.docs[doc]
        for part in [p for p in pointer.split("/") if p]:
            key = part.replace("~1", "/").replace("~0", "~")
            value = value[int(key)] if isinstance(value, list) else value[key]
        return value

    def type_of(self, doc: str, pointer: str, hint: str) -> str:
        """The Python type of the schema at `doc#pointer` (a new TypedDict is named `hint`)."""
        schema = self.node(doc, pointer)
        if schema is True or schema == {}:
            return "Json"
        if not isinstance(schema, dict):
            raise SystemExit(f"{doc}#{pointer}: a payload schema must be an object")
        if "$ref" in schema:
            if set(schema) - NOTES - {"$ref"}:
                raise SystemExit(f"{doc}#{pointer}: a $ref beside other assertions")
            where, _, target = schema["$ref"].partition("#")
            ref_doc = where.removeprefix("urn:oms:schema:") if where else doc
            last = target.rsplit("/", 1)[-1]
            name = camel(last) if target.startswith("/$defs/") else camel(ref_doc)
            return self.type_of(ref_doc, target, name)
        if "const" in schema:
            return self.literal(doc, pointer, [schema["const"]])
        if "enum" in schema:
            return self.literal(doc, pointer, schema["enum"])
        for key in ("anyOf", "oneOf"):
            if key in schema:
                members = [
                    self.type_of(doc, f"{pointer}/{key}/{i}", hint) for i in range(len(schema[key]))
                ]
                return " | ".join(dict.fromkeys(members))
        types = schema.get("type")
        if types is None:
            return "Json"
        out = []
        for kind in types if isinstance(types, list) else [types]:
            if kind in SCALARS:
                out.append(SCALARS[kind])
            elif kind == "null":
                out.append("None")
            elif kind == "array":
                item = (
                    self.type_of(doc, f"{pointer}/items", f"{hint}Item")
                    if "items" in schema
                    else "Json"
                )
                out.append(f"list[{item}]")
            elif kind == "object":
                out.append(self.obj(doc, pointer, hint))
            else:
                raise SystemExit(f"{doc}#{pointer}: type {kind!r}")
        return " | ".join(out)

    def literal(self, doc: str, pointer: str, values: list[Any]) -> str:
        if not all(v is None or isinstance(v, str | int) for v in values):
            raise SystemExit(f"{doc}#{pointer}: an enum of other than strings and integers")
        named = [repr(v) for v in values if v is not None]
        out = [f"Literal[{', '.join(named)}]"] if named else []
        return " | ".join([*out, "None"] if None in values else out)

    def obj(self, doc: str, pointer: str, name: str) -> str:
        """A TypedDict for a closed object schema (additionalProperties false); otherwise a
        dict."""
        schema = self.node(doc, pointer)
        extra = schema.get("additionalProperties", True)
        if "properties" not in schema or extra is not False:
            if extra in (True, {}):
                return "dict[str, Json]"
            return f"dict[str, {self.type_of(doc, f'{pointer}/additionalProperties', name)}]"
        if (doc, pointer) in self.classes:
            return self.classes[(doc, pointer)]
        if name in self.classes.values():
            raise SystemExit(f"{doc}#{pointer}: the class name {name} is taken")
        self.classes[(doc, pointer)] = name
        required = set(schema.get("required", []))
        fields = []
        self.kinds[name] = []
        for key in schema["properties"]:
            if not key.isidentifier() or keyword.iskeyword(key):
                raise SystemExit(f"{doc}#{pointer}: key {key!r} is not an identifier")
            escaped = key.replace("~", "~0").replace("/", "~1")
            hint = name.removesuffix("Payload") + camel(key)
            kind = self.type_of(doc, f"{pointer}/properties/{escaped}", hint)
            fields.append(f"    {key}: {kind if key in required else f'NotRequired[{kind}]'}")
            self.kinds[name].append(f"    {key}: {kind}")
        title = schema.get("description") or schema.get("title")
        where = f"{doc}#{pointer}" + (f": {title}" if title else "")
        self.bodies.append(f"class {name}(TypedDict):\n    # {where}\n\n" + "\n".join(fields))
        return name

    def enum(self, name: str, where: str, values: list[Any]) -> None:
        members = [f"    {member(v)} = {v!r}" for v in values if v is not None]
        self.enums.append(f"class {name}(StrEnum):\n    # {where}\n\n" + "\n".join(members))


def record_kinds(docs: dict[str, dict[str, Any]]) -> list[str]:
    """The schemas of record versions: those whose `kind` is a constant and that have a payload."""
    return [
        name
        for name, doc in docs.items()
        if "const" in doc.get("properties", {}).get("kind", {})
        and "payload" in doc.get("properties", {})
    ]


def generate() -> str:
    docs, _ = _gen_validators().load()
    typer = Typer(docs)
    kinds = record_kinds(docs)
    index = []
    partial = []
    for kind in kinds:
        props = docs[kind]["properties"]
        name = camel(kind)
        typer.obj(kind, "/properties/payload", f"{name}Payload")
        partial.append(
            f"class {name}Fields(TypedDict, total=False):\n"
            f"    # some keys of a {kind} payload: what a transition changes\n\n"
            + "\n".join(typer.kinds[f"{name}Payload"])
        )
        if "enum" in props.get("state", {}):
            typer.enum(f"{name}State", f"{kind}#/properties/state", props["state"]["enum"])
        index.append(f"    {props['kind']['const']!r}: {name}Payload,")
    for (doc, pointer), cls in list(typer.classes.items()):
        for key in ENUM_KEYS:
            prop = typer.node(doc, pointer).get("properties", {}).get(key, {})
            if "enum" in prop:
                base = cls.removesuffix("Payload")
                where = f"{doc}#{pointer}/properties/{key}"
                typer.enum(f"{base}{camel(key)}", where, prop["enum"])
    names = sorted(
        [
            *typer.classes.values(),
            *(e.split("(", 1)[0].removeprefix("class ") for e in [*typer.enums, *partial]),
        ]
    )
    out = [HEADER]
    out += ["\n" + body + "\n" for body in typer.enums]
    out += ["\n" + body + "\n" for body in typer.bodies]
    out += ["\n" + body + "\n" for body in partial]
    out.append("\n# record kind -> the TypedDict of its payload")
    out.append("PAYLOADS: dict[str, type] = {")
    out += index
    out.append("}\n")
    out.append("__all__ = [")
    out += [f"    {n!r}," for n in names]
    out.append("]\n")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the module is out of date")
    args = parser.parse_args()
    text = generate()
    where = TARGET.relative_to(REPO)
    if args.check:
        if not TARGET.is_file() or TARGET.read_text() != text:
            print(f"{where} is out of date: run python build/gen_payloads.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text)
    print(f"wrote {where} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
