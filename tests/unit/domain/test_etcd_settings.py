"""`domain/etcd_settings.py` (ADR 0043, amendment `etcdtls`): where the person's TLS settings for
etcd live, and what `[tls]` may say: absolute paths of a CA bundle, a client certificate and its
key (both or neither); anything else is one `ConfigError` naming the file."""

from __future__ import annotations

import hashlib
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
    assert named.hosts == {}
    assert named.tls is not None
    assert named.tls._asdict() == {
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


KEY = bytes(range(32))
KEYID = hashlib.sha256(KEY).hexdigest()
OTHER = bytes(range(1, 33))
VALUES = st.sampled_from(
    [
        f"{KEYID}:{KEY.hex()}",  # the one well-formed pin
        f"{KEYID}:{OTHER.hex()}",  # a key id not the key's
        f"{KEYID.upper()}:{KEY.hex()}",
        f"{KEYID}:{KEY.hex()}:",
        f"{KEYID}{KEY.hex()}",
        KEY.hex(),
        "",
    ]
) | st.text(max_size=140)
NAMES = st.sampled_from(["build-2", "b", "host.a", "-bad", "a b", "x" * 64, "\u00e9t\u00e9"])


@given(st.dictionaries(NAMES, VALUES | st.integers(0, 3), max_size=3), st.booleans())
def test_hosts_are_accepted_exactly_when_each_pins_a_key_by_its_id_once(
    table: dict[str, object], with_tls: bool
) -> None:
    good = f"{KEYID}:{KEY.hex()}"
    valid = (
        (bool(table) or with_tls)
        and all(n in ("build-2", "b", "host.a") for n in table)
        and all(v == good for v in table.values())
        and len(table) <= 1  # one key under two names: refused
    )
    body = "".join(f"{json.dumps(n)} = {json.dumps(v)}\n" for n, v in table.items())
    data = ('[tls]\nca = "/ca.pem"\n' if with_tls else "") + (f"[hosts]\n{body}" if table else "")
    try:
        found = rules.parse_settings(data.encode(), WHERE)
    except ConfigError as exc:
        assert not valid, exc.message
        assert exc.message.startswith(WHERE)
        assert "\n" not in exc.message
        return
    assert valid, table
    assert (found.tls is not None) == with_tls
    assert list(found.hosts.values()) == [rules.PinnedHost(n, KEYID, KEY) for n in table]
    assert all(keyid == KEYID for keyid in found.hosts)
    for name in table:
        assert rules.pin_line(name, KEYID, KEY) == f'{name} = "{good}"'


def test_an_empty_settings_file_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"etcd\.toml"):
        rules.parse_settings(b"", WHERE)
