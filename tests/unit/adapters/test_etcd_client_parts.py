"""The etcd client's pure parts (ADR 0043): the range end of a prefix, endpoints, the store's key
prefix — property tests where the claim is about every input."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.adapters.etcd.client import Etcd, parse_endpoint, prefix_end
from oms.adapters.etcd.store import check_prefix
from oms.errors import InvalidInputError

KEYS = st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=12)


@given(prefix=KEYS.filter(bool), rest=KEYS, other=KEYS)
def test_the_range_end_covers_exactly_the_keys_under_the_prefix(
    prefix: str, rest: str, other: str
) -> None:
    end = prefix_end(prefix).encode("latin-1")
    under = (prefix + rest).encode()
    assert prefix.encode() <= under < end
    if not other.startswith(prefix):
        assert not (prefix.encode() <= other.encode() < end)


def test_a_prefix_with_no_range_end_is_refused() -> None:
    with pytest.raises(InvalidInputError):
        prefix_end("")


@pytest.mark.parametrize(
    "url",
    [
        "ftp://127.0.0.1:2379",
        "127.0.0.1:2379",
        "http://",
        "https://",
        "http://h:2379/v3",
        "https://h:2379/v3",
        "http://h:99999",
    ],
)
def test_an_endpoint_that_is_not_http_host_port_is_refused(url: str) -> None:
    with pytest.raises(InvalidInputError, match="etcd endpoint"):
        parse_endpoint(url)


def test_an_https_endpoint_is_spoken_over_tls() -> None:
    assert parse_endpoint("https://10.0.0.1:2379") == (
        "10.0.0.1",
        2379,
        "https://10.0.0.1:2379",
        True,
    )
    assert not parse_endpoint("http://10.0.0.1:2379").tls


def test_an_endpoint_without_a_port_is_2379() -> None:
    assert parse_endpoint("http://etcd.local").port == 2379
    with pytest.raises(InvalidInputError, match="no etcd endpoints"):
        Etcd([])


@pytest.mark.parametrize("prefix", ["/oms/a/", "/oms/key-1.x/b/"])
def test_a_key_prefix_is_slash_names_slash(prefix: str) -> None:
    assert check_prefix(prefix) == prefix


@pytest.mark.parametrize("prefix", ["oms/", "/oms", "/", "/oms//", "/oms/../x/", "/o ms/"])
def test_a_bad_key_prefix_is_refused(prefix: str) -> None:
    with pytest.raises(InvalidInputError, match="etcd prefix"):
        check_prefix(prefix)


@pytest.mark.parametrize("prefix", ["/oms/a/ledger/", "/oms/a/latest/ticket/", "/hosts/"])
def test_a_prefix_inside_a_stores_key_directories_is_refused(prefix: str) -> None:
    """(ADR 0043 amendment `repoparts`: its keys would be among another store's own.)"""
    with pytest.raises(InvalidInputError, match="a name oms gives its own keys"):
        check_prefix(prefix)
