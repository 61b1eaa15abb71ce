"""Layer 3: the JSON Schemas (Draft 2020-12) of every document oms reads or writes.

The schema files live in the top-level `schemas/` directory. They are found as package data
(`oms/_data/schemas`, placed there by the wheel build and by the PyInstaller spec) or, when oms runs
from a source checkout, in `schemas/` beside the package. Validators are built once per process and
cached; every store read and write calls `validate`, which decides with predicates generated from
the schema files at build time (`_generated/`, `build/gen_validators.py`) and imports jsonschema
only to explain a document that fails.
"""

from __future__ import annotations

from oms.schemas.loader import (
    SCHEMA_NAMES,
    explain,
    find_schema_dir,
    is_valid,
    load_schema,
    schema_source,
    validate,
    validator,
)

__all__ = [
    "SCHEMA_NAMES",
    "explain",
    "find_schema_dir",
    "is_valid",
    "load_schema",
    "schema_source",
    "validate",
    "validator",
]
