"""A schema's `pattern` is an ECMA-262 regular expression (JSON Schema 2020-12): its `$` is the end
of the string. Python's `re.search` (which jsonschema uses, and the generated predicates used) lets
`$` match before a final newline, so `"sonnet\\n"` passed `^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$`: a
hostile repository's committed configuration could name a model, a worktrees directory or a route
alias with a newline at its end, and the one-line text pattern (`^[^\\u0000-\\u001f\\u007f]*$`)
held a line break. SECURITY.md, attack case 21."""

from __future__ import annotations

import pytest

from oms.domain.config import DEFAULT_CONFIG, parse_config
from oms.errors import ConfigError
from oms.schemas.loader import explain, is_valid

DEFS = [
    ("defs#/$defs/opaque_id", "abc"),
    ("defs#/$defs/host_name", "laptop"),
    ("defs#/$defs/title", "a title"),
]


@pytest.mark.parametrize(("entry", "good"), DEFS)
def test_a_value_with_a_newline_at_its_end_is_refused(entry: str, good: str) -> None:
    assert is_valid(entry, good)
    assert not is_valid(entry, good + "\n")
    assert "\n" not in explain(entry, good + "\n", "x").message


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('model = "sonnet"', 'model = "sonnet\\n"'),
        ('# directory = "../oms', 'directory = "../x\\n"\n#'),
    ],
)
def test_a_committed_configuration_with_a_newline_at_a_values_end_is_refused(
    old: str, new: str
) -> None:
    data = DEFAULT_CONFIG.replace(old, new, 1)
    assert data != DEFAULT_CONFIG
    with pytest.raises(ConfigError):
        parse_config(data.encode())
