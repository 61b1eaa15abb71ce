"""Compile `schemas/*.schema.json` into plain Python predicates in `oms/schemas/_generated/`.

    python build/gen_validators.py           # write the package
    python build/gen_validators.py --check   # exit 1 if the package is not what the schemas give

First, the provider registry (`oms/adapters/providers/__init__.py` `REGISTRY`) is the source of
every list of providers below it: this writes `oms/provider_names.py` (the tables the layers below
adapters read) and the provider enums of four schemas (`PROVIDER_ENUMS`), then compiles the schemas
and the typed payloads (build/gen_payloads.py). Adding a provider is its module and its line in
`REGISTRY` (docs/architecture.md "How to add a provider"); `--check` fails while either is stale.

One module per schema document holds the predicates of that document and of its `$defs` entries; a
`$ref` into another document calls that document's module. A process loads only the schemas it uses
and what they reference: an agent hook touches eight of the twenty-five (docs/adr/0010). Patterns
are compiled on first use.

Why: importing `jsonschema` (and `referencing`, `attrs`, `rpds`) costs ~35 ms per process, more than
an agent hook may take in total (docs/adr/0010). The generated predicates answer "is this document
valid?" with the Draft 2020-12 semantics `jsonschema` applies (no format assertion), for exactly the
keywords our schemas use; an unknown keyword stops the generator. `tests/unit/schemas/
test_generated_validators.py` proves them equal to `jsonschema` with hypothesis. When a document is
invalid, oms still asks `jsonschema` for the one-line explanation (the rare path).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # the registry is read from the checkout this script is in
    sys.path.insert(0, str(REPO))
SCHEMAS = REPO / "schemas"
NAMES_MODULE = REPO / "oms" / "provider_names.py"
OTHER_SURFACES = ("codex-exec", "claude-print", "gh")  # the advisors' and gh's journal surfaces
TARGET = REPO / "oms" / "schemas" / "_generated"
URN = "urn:oms:schema:"
OTHERS = {"payloads.py"}  # the package's files another generator writes (build/gen_payloads.py)
IGNORED = {"$schema", "$id", "$defs", "$comment", "title", "description"}
HANDLED = {
    "$ref",
    "type",
    "enum",
    "const",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "required",
    "properties",
    "additionalProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "items",
    "minItems",
    "maxItems",
    "uniqueItems",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
}
TYPES = {
    "object": "isinstance(x, dict)",
    "array": "isinstance(x, list)",
    "string": "isinstance(x, str)",
    "integer": "_is_integer(x)",
    "number": "_is_number(x)",
    "boolean": "isinstance(x, bool)",
    "null": "x is None",
}

HEADER = '''\
"""{what} Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema \
applies
it without format assertion). Proven equal to jsonschema by \
tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations
'''

INDEX = """
SOURCE_SHA256 = {digest!r}

# entry (a schema, or `schema#/$defs/key`) -> the module that holds its predicate
MODULES: dict[str, str] = {{
{modules}
}}
"""

RUNTIME = '''
from re import search as search  # compiles a pattern on first use (re's cache): none at import


def is_integer(x: object) -> bool:
    return (isinstance(x, int) and not isinstance(x, bool)) or (isinstance(x, float) and \
x.is_integer())


def is_number(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def eq(a: object, b: object) -> bool:
    """jsonschema's equality: booleans are not numbers, 1 == 1.0, containers compare deeply."""
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(eq(i, j) for i, j in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(eq(a[k], b[k]) for k in a)
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, list | dict) or isinstance(b, list | dict):
        return False
    return a == b


def unique(items: list[object]) -> bool:
    return all(not eq(items[i], items[j]) for i in range(len(items)) for j in range(i + 1, \
len(items)))
'''

MODULE_IMPORTS = """from collections.abc import Callable

from oms.schemas._generated._runtime import eq as _eq, is_integer as _is_integer, is_number as \
_is_number
from oms.schemas._generated._runtime import search as _search, unique as _unique
"""


class Generator:
    """Emits one function per (schema document, JSON pointer), on demand, following $ref; each
    function lives in its document's module, and a `$ref` into another document calls that module's
    function."""

    def __init__(self, docs: dict[str, dict[str, Any]]) -> None:
        self.docs = docs
        self.names: dict[tuple[str, str], str] = {}
        self.bodies: dict[str, list[str]] = {}
        self.constants: dict[str, list[str]] = {}
        self.patterns: dict[str, dict[str, str]] = {}
        self.imports: dict[str, set[str]] = {}

    def node(self, doc: str, pointer: str) -> Any:
        value: Any = self.docs[doc]
        for part in [p for p in pointer.split("/") if p]:
            key = part.replace("~1", "/").replace("~0", "~")
            value = value[int(key)] if isinstance(value, list) else value[key]
        return value

    def target(self, doc: str, ref: str) -> tuple[str, str]:
        where, _, pointer = ref.partition("#")
        if where:
            if not where.startswith(URN) or where[len(URN) :] not in self.docs:
                raise SystemExit(f"{doc}: $ref {ref!r} leaves the oms schemas")
            doc = where[len(URN) :]
        return doc, pointer

    def function(self, doc: str, pointer: str) -> str:
        key = (doc, pointer)
        if key in self.names:
            return self.names[key]
        name = f"_v{len(self.names)}"
        self.names[key] = name
        body = self.emit(name, doc, pointer)
        self.bodies.setdefault(doc, []).append(body)
        return name

    def reference(self, doc: str, ref_doc: str, ref_pointer: str) -> str:
        """How a function of `doc` calls the predicate at `ref_doc#ref_pointer`."""
        name = self.function(ref_doc, ref_pointer)
        if ref_doc == doc:
            return name
        self.imports.setdefault(doc, set()).add(ref_doc)
        return f"_m_{module_name(ref_doc)}.{name}"

    def constant(self, doc: str, value: Any) -> str:
        constants = self.constants.setdefault(doc, [])
        name = f"_C{len(constants)}"
        kind = "tuple[object, ...]" if isinstance(value, tuple) else "object"
        constants.append(f"{name}: {kind} = {value!r}")
        return name

    def pattern(self, doc: str, regex: str) -> str:
        from oms.schemas.loader import ecma_pattern  # `$` is the string's end, as in ECMA-262

        regex = ecma_pattern(regex)
        patterns = self.patterns.setdefault(doc, {})
        if regex not in patterns:
            patterns[regex] = f"_P{len(patterns)}"
        return patterns[regex]

    def module(self, doc: str, entries: dict[str, str]) -> str:
        """The text of `doc`'s module."""
        out = [HEADER.format(what=f"Predicates of the `{doc}` schema."), MODULE_IMPORTS]
        out += [
            f"from oms.schemas._generated import {module_name(other)} as _m_{module_name(other)}"
            for other in sorted(self.imports.get(doc, ()))
        ]
        out.append("")
        out += [f"{var} = {regex!r}" for regex, var in self.patterns.get(doc, {}).items()]
        out += self.constants.get(doc, [])
        out.append("")
        out += ["\n" + body for body in self.bodies.get(doc, [])]
        out.append("\nVALIDATORS: dict[str, Callable[[object], bool]] = {")
        out += [f"    {key!r}: {fn}," for key, fn in sorted(entries.items())]
        out.append("}\n")
        return "\n".join(out)

    def emit(self, name: str, doc: str, pointer: str) -> str:
        schema = self.node(doc, pointer)
        where = f"{doc}#{pointer}"
        head = f"def {name}(x: object) -> bool:\n    # {where}\n"
        if schema is True or schema == {}:
            return head + "    return True\n"
        if schema is False:
            return head + "    return False\n"
        if not isinstance(schema, dict):
            raise SystemExit(f"{where}: a schema must be an object or a boolean")
        unknown = set(schema) - HANDLED - IGNORED
        if unknown:
            raise SystemExit(
                f"{where}: keywords {sorted(unknown)} are not supported by the generator"
            )
        lines: list[str] = []

        def sub(key: str) -> str:
            return self.function(doc, f"{pointer}/{key}")

        if "$ref" in schema:
            ref_doc, ref_pointer = self.target(doc, schema["$ref"])
            lines.append(
                f"if not {self.reference(doc, ref_doc, ref_pointer)}(x):\n    return False"
            )
        if "type" in schema:
            types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            lines.append(f"if not ({' or '.join(TYPES[t] for t in types)}):\n    return False")
        if "enum" in schema:
            lines.append(
                f"if not any(_eq(x, c) for c in {self.constant(doc, tuple(schema['enum']))}):\n"
                f"    return False"
            )
        if "const" in schema:
            lines.append(f"if not _eq(x, {self.constant(doc, schema['const'])}):\n    return False")
        strings = []
        if "pattern" in schema:
            strings.append(
                f"if _search({self.pattern(doc, schema['pattern'])}, x) is None:\n    return False"
            )
        strings += _bounds(schema, "len(x)", "minLength", "maxLength", int)
        if strings:
            lines.append("if isinstance(x, str):\n" + _indent("\n".join(strings)))
        numbers = _bounds(schema, "x", "minimum", "maximum", lambda v: v)
        if numbers:
            lines.append(
                "if isinstance(x, int | float) and not isinstance(x, bool):\n"
                + _indent("\n".join(numbers))
            )
        objects = []
        if "required" in schema:
            objects.append(
                f"for k in {tuple(schema['required'])!r}:\n    if k not in x:\n        return False"
            )
        objects += _bounds(schema, "len(x)", "minProperties", "maxProperties", int)
        properties = schema.get("properties", {})
        for prop in properties:
            check = self.function(doc, f"{pointer}/properties/{_escape(prop)}")
            objects.append(f"if {prop!r} in x and not {check}(x[{prop!r}]):\n    return False")
        if "additionalProperties" in schema:
            known = tuple(properties)
            extra = schema["additionalProperties"]
            if extra is False:
                objects.append(f"for k in x:\n    if k not in {known!r}:\n        return False")
            elif extra is not True and extra != {}:
                check = sub("additionalProperties")
                objects.append(
                    f"for k, v in x.items():\n    if k not in {known!r} and not {check}(v):\n"
                    f"        return False"
                )
        if "propertyNames" in schema:
            objects.append(
                f"for k in x:\n    if not {sub('propertyNames')}(k):\n        return False"
            )
        if objects:
            lines.append("if isinstance(x, dict):\n" + _indent("\n".join(objects)))
        arrays = _bounds(schema, "len(x)", "minItems", "maxItems", int)
        if "items" in schema:
            arrays.append(f"for v in x:\n    if not {sub('items')}(v):\n        return False")
        if schema.get("uniqueItems") is True:
            arrays.append("if not _unique(x):\n    return False")
        if arrays:
            lines.append("if isinstance(x, list):\n" + _indent("\n".join(arrays)))
        lines.extend(
            f"if not {self.function(doc, f'{pointer}/allOf/{i}')}(x):\n    return False"
            for i in range(len(schema.get("allOf", [])))
        )
        if "anyOf" in schema:
            calls = [
                f"{self.function(doc, f'{pointer}/anyOf/{i}')}(x)"
                for i in range(len(schema["anyOf"]))
            ]
            lines.append(f"if not ({' or '.join(calls)}):\n    return False")
        if "oneOf" in schema:
            calls = [
                f"{self.function(doc, f'{pointer}/oneOf/{i}')}(x)"
                for i in range(len(schema["oneOf"]))
            ]
            lines.append(f"if [{', '.join(calls)}].count(True) != 1:\n    return False")
        if "not" in schema:
            lines.append(f"if {sub('not')}(x):\n    return False")
        if "if" in schema:
            then = f"if not {sub('then')}(x):\n    return False" if "then" in schema else "pass"
            other = f"if not {sub('else')}(x):\n    return False" if "else" in schema else "pass"
            lines.append(f"if {sub('if')}(x):\n{_indent(then)}\nelse:\n{_indent(other)}")
        return head + _indent("\n".join([*lines, "return True"])) + "\n"


def _bounds(
    schema: dict[str, Any], subject: str, low: str, high: str, cast: Callable[[Any], Any]
) -> list[str]:
    """The checks of a lower and an upper bound keyword (`minLength`/`maxLength`,
    `minimum`/`maximum`, ...)."""
    out = []
    if low in schema:
        out.append(f"if {subject} < {cast(schema[low])!r}:\n    return False")
    if high in schema:
        out.append(f"if {subject} > {cast(schema[high])!r}:\n    return False")
    return out


def _indent(text: str) -> str:
    return "\n".join(("    " + line) if line else line for line in text.splitlines())


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


NAMES_HEADER = '''\
"""The worker providers, for the layers below adapters/. Generated from the provider registry
(oms/adapters/providers/__init__.py `REGISTRY`: each provider's module) by build/gen_validators.py.
Do not edit: adding a provider is its module and its line in `REGISTRY` (docs/architecture.md
"How to add a provider")."""

from __future__ import annotations
'''


def provider_tables() -> dict[str, Any]:
    """The tables of `oms/provider_names.py`, read from the registry (registry order)."""
    from oms.adapters.providers import REGISTRY

    found = list(REGISTRY.values())
    return {
        "WORKER_TRANSPORTS": tuple(p.transport for p in found),
        # one name per CLI: two transports of one CLI (`codex_goal`, `codex_exec`) share its name
        "NAMES": tuple(dict.fromkeys(p.name for p in found)),
        "ENGINES": {p.transport: p.name for p in found},
        "SURFACES": tuple(dict.fromkeys(p.surface for p in found)),
        "SESSION_MODES": tuple(dict.fromkeys(p.session_mode for p in found)),
        "HOOK_CONTRACT": {p.name: p.hook_contract for p in found},
        "CLI": {p.transport: p.compatible[0] for p in found if p.compatible is not None},
        "FAMILIES": {p.transport: p.family for p in found if p.family is not None},
        "FINAL_STOP": tuple(p.transport for p in found if p.stop_is_final),
    }


NAMES_NOTES = {
    "WORKER_TRANSPORTS": "a worker role's `transport`",
    "NAMES": "the providers as hooks, launch specs and private homes name them",
    "ENGINES": "transport -> name (a dispatch's `engine`)",
    "SURFACES": "the contact surface a live journal names",
    "SESSION_MODES": "a session record's `mode`",
    "HOOK_CONTRACT": "name -> what `oms hook provider --provider-version` must be",
    "CLI": "transport -> the agent CLI its launch runs",
    "FAMILIES": "transport -> the model API family its CLI speaks (the proxy routes it)",
    "FINAL_STOP": "the transports whose agent, let stop without a result, takes no turn again",
}


def names_module(tables: dict[str, Any]) -> str:
    """The text of `oms/provider_names.py`."""
    lines = [NAMES_HEADER]
    for key, value in tables.items():
        if isinstance(value, tuple):  # one item a line, as ruff format keeps them
            kind, items, brackets = "tuple[str, ...]", [json.dumps(v) for v in value], "()"
        else:
            kind, brackets = "dict[str, str]", "{}"
            items = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in value.items()]
        body = "".join(f"    {item},\n" for item in items)
        literal = f"{brackets[0]}\n{body}{brackets[1]}" if items else brackets
        lines.append(f"# {NAMES_NOTES[key]}\n{key}: {kind} = {literal}\n")
    return "\n".join(lines)


def provider_enums(tables: dict[str, Any]) -> dict[tuple[str, str], list[str]]:
    """(schema, property) -> its enum: every subschema of that name with an `enum` gets it."""
    from oms.domain.config import ADVISOR_TRANSPORTS

    names = list(tables["NAMES"])
    return {
        ("defs", "transport"): sorted({*tables["WORKER_TRANSPORTS"], *ADVISOR_TRANSPORTS}),
        ("defs", "engine"): names,
        ("launch-spec", "provider"): names,
        ("event", "provider"): names,
        ("session", "mode"): list(tables["SESSION_MODES"]),
        ("journal-entry", "contact_surface"): list(
            dict.fromkeys((*tables["SURFACES"], *OTHER_SURFACES))
        ),
    }


def _set_enums(node: object, key: str, enum: list[str]) -> int:
    """Sets the enum of every subschema named `key` under `node`; how many it found."""
    found = 0
    if isinstance(node, dict):
        for name, child in node.items():
            if name == key and isinstance(child, dict) and "enum" in child:
                child["enum"] = list(enum)
                found += 1
            else:
                found += _set_enums(child, key, enum)
    elif isinstance(node, list):
        found = sum(_set_enums(child, key, enum) for child in node)
    return found


def provider_files() -> dict[Path, str]:
    """The files the registry gives: `oms/provider_names.py` and the five schemas."""
    tables = provider_tables()
    files = {NAMES_MODULE: names_module(tables)}
    for (schema, key), enum in provider_enums(tables).items():
        path = SCHEMAS / f"{schema}.schema.json"
        doc = json.loads(files.get(path) or path.read_text(encoding="utf-8"))
        if _set_enums(doc, key, enum) == 0:
            raise SystemExit(f"{path.relative_to(REPO)} has no {key!r} enum")
        files[path] = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    return files


def stale_providers(files: dict[Path, str]) -> list[str]:
    """The files of `provider_files` that differ from what is on disk."""
    return sorted(
        str(p.relative_to(REPO))
        for p, text in files.items()
        if not p.is_file() or p.read_text(encoding="utf-8") != text
    )


def load() -> tuple[dict[str, dict[str, Any]], str]:
    docs: dict[str, dict[str, Any]] = {}
    digest = hashlib.sha256()
    for path in sorted(SCHEMAS.glob("*.schema.json")):
        name = path.name.removesuffix(".schema.json")
        data = path.read_bytes()
        digest.update(name.encode() + b"\0" + data + b"\0")
        docs[name] = json.loads(data)
    return docs, digest.hexdigest()


def module_name(schema: str) -> str:
    """The module of schema `schema` (`dispatch-intent` -> `dispatch_intent`)."""
    return schema.replace("-", "_")


def generate() -> dict[str, str]:
    """Every file of the package: name -> text."""
    docs, digest = load()
    files: dict[str, str] = {}
    modules: dict[str, str] = {}
    gen = Generator(docs)
    entries: dict[str, dict[str, str]] = {}
    for name, doc in docs.items():
        entries[name] = {name: gen.function(name, "")}
        for key in doc.get("$defs", {}):
            entries[name][f"{name}#/$defs/{key}"] = gen.function(name, f"/$defs/{_escape(key)}")
    for name in docs:
        files[f"{module_name(name)}.py"] = gen.module(name, entries[name])
        modules.update(dict.fromkeys(entries[name], module_name(name)))
    files["_runtime.py"] = HEADER.format(what="Helpers of the generated predicates.") + RUNTIME
    index = "\n".join(f"    {key!r}: {mod!r}," for key, mod in sorted(modules.items()))
    files["__init__.py"] = HEADER.format(
        what="Which module holds each schema's predicate."
    ) + INDEX.format(digest=digest, modules=index)
    return files


def stale(files: dict[str, str]) -> list[str]:
    """The files of the package that differ from `files` (missing, changed or extra)."""
    present = {p.name for p in TARGET.glob("*.py")} - OTHERS if TARGET.is_dir() else set()
    out = sorted(present - set(files))
    out += sorted(
        n
        for n, text in files.items()
        if not (TARGET / n).is_file() or (TARGET / n).read_text() != text
    )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the package is out of date")
    args = parser.parse_args()
    given = provider_files()
    if args.check and stale_providers(given):
        print(
            f"{', '.join(stale_providers(given))}: not what the provider registry gives; "
            f"run python build/gen_validators.py",
            file=sys.stderr,
        )
        return 1
    for path, text in given.items():
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(REPO)} (from the provider registry)")
    files = generate()
    if args.check:
        changed = stale(files)
        if changed:
            where = TARGET.relative_to(REPO)
            print(
                f"{where} is out of date ({', '.join(changed)}): "
                f"run python build/gen_validators.py",
                file=sys.stderr,
            )
            return 1
        return 0
    TARGET.mkdir(exist_ok=True)
    for extra in stale(files):
        if extra not in files:
            (TARGET / extra).unlink()
    for name, text in files.items():
        (TARGET / name).write_text(text)
    lines = sum(len(t.splitlines()) for t in files.values())
    print(f"wrote {TARGET.relative_to(REPO)}/ ({len(files)} modules, {lines} lines)")
    payloads = subprocess.run(
        [sys.executable, str(REPO / "build" / "gen_payloads.py")], check=False
    )
    return payloads.returncode


if __name__ == "__main__":
    raise SystemExit(main())
