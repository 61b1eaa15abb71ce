"""Helpers of the generated predicates. Generated from schemas/*.schema.json by build/gen_validators.py. Do not edit.

Each predicate answers whether a JSON value satisfies one schema (Draft 2020-12, as jsonschema applies
it without format assertion). Proven equal to jsonschema by tests/unit/schemas/test_generated_validators.py.
"""

# ruff: noqa
from __future__ import annotations

from re import search as search  # compiles a pattern on first use (re's cache): none at import


def is_integer(x: object) -> bool:
    return (isinstance(x, int) and not isinstance(x, bool)) or (isinstance(x, float) and x.is_integer())


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
    return all(not eq(items[i], items[j]) for i in range(len(items)) for j in range(i + 1, len(items)))
