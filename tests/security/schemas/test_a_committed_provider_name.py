"""A hostile repository's committed configuration naming a provider or a transport the registry
(`oms/provider_names.py`, generated from `REGISTRY`) does not hold, in another case, with a
look-alike letter, or with a newline at its end: refused in one line, never read as the one it looks
like (SECURITY.md, attack case 21)."""

from __future__ import annotations

import pytest

from oms.domain.config import DEFAULT_CONFIG, parse_config
from oms.errors import ConfigError

PROVIDERS = """
[providers.fast]
family = "anthropic"

[routing]
order = ["fast"]
"""
WORKER = 'transport = "claude_interactive"'


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (WORKER, 'transport = "Claude_interactive"'),
        (WORKER, 'transport = "claude_interactiv\u0435"'),  # a Cyrillic e
        (WORKER, 'transport = "claude_interactive\\n"'),
        (WORKER, 'transport = "gemini"'),  # no such provider in the registry
        ("[providers.fast]", '[providers."f\u0430st"]'),  # a Cyrillic a
        ("[providers.fast]", '[providers."oms-anthropic\\n"]'),  # oms's own name, and a newline
        ('order = ["fast"]', 'order = ["fast\\n"]'),
    ],
)
def test_a_provider_name_the_registry_does_not_hold_is_refused(old: str, new: str) -> None:
    data = (DEFAULT_CONFIG + PROVIDERS).replace(old, new, 1)
    assert data != DEFAULT_CONFIG + PROVIDERS
    parse_config((DEFAULT_CONFIG + PROVIDERS).encode())  # the configuration as written is good
    with pytest.raises(ConfigError) as refused:
        parse_config(data.encode())
    assert "\n" not in refused.value.message
