"""`domain/etcd_settings.py` (ADR 0043, amendment `etcdtls`): where the person's TLS settings for
etcd live, and what `[tls]` may say: absolute paths of a CA bundle, a client certificate and its
key (both or neither); anything else is one `ConfigError` naming the file."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.domain import etcd_settings as rules
from oms.errors import ConfigError

WHERE = "/home/me/.config/oms/etcd.toml"
PATHS = st.sampled_from(["/etc/ca.pem", "/h/c.pem", "/h/k.pem", "rel/k.pem", "", "/x\u00e9"])
TABLES = st.dictionaries(
    st.sampled_from(["ca", "cert", "key", "other"]),
    PATHS | st.integers(0, 3) | st.booleans(),
    max_size=4,
)


def _toml(table: dict[str, object]) -> bytes:
    body = "".join(f"{key} = {json.dumps(value)}\n" for key, value in table.items())
    return f"[tls]\n{body}".encode()


@given(TABLES)
def test_tls_is_accepted_exactly_when_it_names_absolute_paths_and_cert_with_key(
    table: dict[str, object],
) -> None:
    valid = (
        bool(table)
        and set(table) <= {"ca", "cert", "key"}
        and all(isinstance(v, str) and v.startswith("/") for v in table.values())
        and ("cert" in table) == ("key" in table)
    )
    try:
        named = rules.parse_settings(_toml(table), WHERE)
    except ConfigError as exc:
        assert not valid, exc.message
        assert exc.message.startswith(WHERE)
        assert "\n" not in exc.message
        return
    assert valid
    assert named._asdict() == {
        "ca": table.get("ca"),
        "cert": table.get("cert"),
        "key": table.get("key"),
        "where": WHERE,
    }


@pytest.mark.parametrize(
    "data", [b"\xff", b"[tls", b"x = 1\n", b'[tls]\nca = "/a"\n[notify]\ncommands = []\n']
)
def test_what_is_not_a_tls_table_is_one_line_naming_the_file(data: bytes) -> None:
    with pytest.raises(ConfigError) as caught:
        rules.parse_settings(data, WHERE)
    assert caught.value.message.startswith(WHERE)
    assert "\n" not in caught.value.message


def test_the_settings_live_beside_host_toml() -> None:
    assert rules.settings_path({"XDG_CONFIG_HOME": "/c"}) == "/c/oms/etcd.toml"
    assert (
        rules.settings_path({"XDG_CONFIG_HOME": "rel", "HOME": "/h"}) == "/h/.config/oms/etcd.toml"
    )
    assert rules.settings_path({}) == "/.config/oms/etcd.toml"
