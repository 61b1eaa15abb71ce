"""Find, load and compile the schema files; validate documents with one-line errors."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from oms.canonical.strict_json import loads_foreign
from oms.errors import OmsError, SchemaValidationError, one_line
from oms.limits import LIMITS

if TYPE_CHECKING:  # importlib.resources and pathlib cost ~8 ms: imported only where files are read
    from collections.abc import Callable
    from importlib.abc import Traversable

    from jsonschema.protocols import Validator

URN = "urn:oms:schema:"
SCHEMA_NAMES = (
    "advisor-request",
    "advisor-verdict",
    "authorization",
    "bridge-tools",
    "build-info",
    "cli-version",
    "cluster-pins",
    "config",
    "defs",
    "dispatch",
    "dispatch-intent",
    "etcd-settings",
    "event",
    "evidence",
    "evidence-envelope",
    "host-beat",
    "host-name",
    "host-name-release",
    "host-settings",
    "journal-entry",
    "kill-marker",
    "launch-begun",
    "launch-spec",
    "notification",
    "op-index",
    "outbox-receipt",
    "pane-exit",
    "pane-registry",
    "pool",
    "provider",
    "proxy-record",
    "proxy-token",
    "proxy-usage",
    "record-envelope",
    "role-policy",
    "sandbox-dir",
    "sandbox-init",
    "session",
    "settings",
    "state-meta",
    "state-repository",
    "ticket",
    "ticket-content",
    "worker",
    "worktree-record",
)
_PREDICATES: dict[str, Callable[[object], bool]] = {}


class SchemaMissingError(OmsError):
    """The schema files are not where the package or the source tree should have them."""

    code = "schema-missing"
    hint = "reinstall oms; a source checkout needs its top-level schemas/ directory"


@functools.cache
def data_dir(name: str) -> Traversable:
    """A top-level data directory (`schemas`, `policy`): package data first, then the source
    tree."""
    from importlib import resources
    from pathlib import Path

    packaged = resources.files("oms") / "_data" / name
    if packaged.is_dir():
        return packaged
    source = Path(__file__).resolve().parent.parent.parent / name
    if source.is_dir() and (source / ".." / "oms").is_dir():
        return source
    raise SchemaMissingError(f"oms {name} files not found in the package or the source tree")


def find_schema_dir() -> Traversable:
    """The directory holding `<name>.schema.json`."""
    return data_dir("schemas")


def packaged_data(directory: str, name: str, cap: int = LIMITS.schema_bytes) -> bytes:
    """The bytes of read-only package data file `directory/name`."""
    data = (data_dir(directory) / name).read_bytes()
    if len(data) > cap:
        raise SchemaMissingError(f"{directory}/{name} is larger than {cap} bytes")
    return data


def schema_source() -> str:
    """Where the schemas were found (for `oms doctor`)."""
    return str(find_schema_dir())


@functools.cache
def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema document `name` (read-only package data)."""
    if name not in SCHEMA_NAMES:
        raise SchemaMissingError(f"unknown schema {name!r}")
    data = (find_schema_dir() / f"{name}.schema.json").read_bytes()
    if len(data) > LIMITS.schema_bytes:
        raise SchemaMissingError(f"schema {name} is larger than {LIMITS.schema_bytes} bytes")
    doc = loads_foreign(data)
    if not isinstance(doc, dict) or doc.get("$id") != URN + name:
        raise SchemaMissingError(f"schema {name} does not declare $id {URN + name}")
    return doc


@functools.cache
def _registry() -> Any:
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    return Registry().with_resources(
        (URN + name, Resource.from_contents(load_schema(name), default_specification=DRAFT202012))
        for name in SCHEMA_NAMES
    )


def ecma_pattern(pattern: str) -> str:
    """`pattern` (a schema's, ECMA-262) as Python's `re` reads it alike: its `$` outside a class is
    `\\Z`, the string's end (Python's `$` also matches before a final newline: `"abc\\n"` would
    pass `^[a-z]+$`; SECURITY.md, attack case 21)."""
    out: list[str] = []
    n, in_class = 0, False
    while n < len(pattern):
        char = pattern[n]
        if char == "\\":
            out.append(pattern[n : n + 2])
            n += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern.startswith("^]", n + 1) or pattern.startswith("]", n + 1):  # a literal `]`
                skip = 3 if pattern[n + 1] == "^" else 2
                out.append(pattern[n : n + skip])
                n += skip
                continue
        elif char == "$":
            char = "\\Z"
        out.append(char)
        n += 1
    return "".join(out)


@functools.cache
def validator(name: str) -> Validator:
    """The compiled validator for schema `name` (built once per process), its `pattern` read as
    ECMA-262 reads it (`ecma_pattern`), as the generated predicates do."""
    import re

    from jsonschema import Draft202012Validator, validators
    from jsonschema.exceptions import ValidationError

    def pattern(_v: Any, regex: str, instance: Any, _schema: Any) -> Any:
        if isinstance(instance, str) and re.search(ecma_pattern(regex), instance) is None:
            yield ValidationError(f"{instance!r} does not match {regex!r}")

    ecma = validators.extend(Draft202012Validator, {"pattern": pattern})
    compiled: Validator = ecma(load_schema(name), registry=_registry())
    return compiled


def _path(parts: Any) -> str:
    out = "$"
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def predicate(name: str) -> Callable[[object], bool]:
    """The generated predicate of schema `name` (or `name#/$defs/<key>`), loading only that schema's
    module (`build/gen_validators.py`; equal to jsonschema, proven by property tests)."""
    check = _PREDICATES.get(name)
    if check is None:
        from importlib import import_module

        from oms.schemas._generated import MODULES

        module = MODULES.get(name)
        if module is None:
            raise SchemaMissingError(f"unknown schema {name!r}")
        check = import_module(f"oms.schemas._generated.{module}").VALIDATORS[name]
        _PREDICATES[name] = check
    return check


def is_valid(name: str, instance: object) -> bool:
    """Whether `instance` satisfies schema `name` (or `name#/$defs/<key>`), without importing
    jsonschema."""
    return predicate(name)(instance)


def validate(name: str, instance: object, *, where: str) -> None:
    """Raise `SchemaValidationError` ("<where>: <json path>: <why>") unless `instance` satisfies
    `name`.

    The decision is the generated predicate's; only an invalid document pays for jsonschema, which
    explains it in one line."""
    if is_valid(name, instance):
        return
    raise explain(name, instance, where)


def explain(name: str, instance: object, where: str) -> SchemaValidationError:
    """The one-line reason why `instance` does not satisfy `name` (schema or
    `schema#/$defs/key`)."""
    from jsonschema.exceptions import best_match

    schema_name, _, pointer = name.partition("#")
    checker = validator(schema_name)
    if pointer:
        checker = checker.evolve(schema={"$ref": f"{URN}{schema_name}#{pointer}"})
    error = best_match(checker.iter_errors(instance))
    if error is None:  # cannot happen while the predicates equal jsonschema; refuse all the same
        return SchemaValidationError(f"{where}: $: not valid ({schema_name} schema)")
    message = error.message
    if len(message) > 200:
        message = message[:197] + "..."
    return SchemaValidationError(
        f"{where}: {_path(error.absolute_path)}: {one_line(message, 240)} ({schema_name} schema)"
    )
