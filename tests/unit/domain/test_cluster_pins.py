"""`domain/cluster_pins.py` (ADR 0043, amendment `clusterpin`): the clusters the person pinned,
by state root; a `[store]` is served only on exactly the pinned one, and a prefix is one state
root's."""

from __future__ import annotations

import hashlib
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.domain import cluster_pins as rules
from oms.errors import ClusterNotPinnedError, ConfigError

WHERE = "/home/me/.config/oms/clusters.toml"
A, B = "a" * 64, "b" * 64
URLS = st.lists(
    st.sampled_from(["http://127.0.0.1:1", "https://e-1:2379", "http://h:2"]),
    min_size=1,
    max_size=3,
    unique=True,
)
PREFIXES = st.sampled_from(["/oms/x/", "/oms/x/y/", "/p/"])
CAS = st.sampled_from([None, "system", "sha256:" + "c" * 64])


def _pin(
    keyid: str, endpoints: list[str], prefix: str, ca: str | None = None, repo: str = "/src/app"
) -> rules.Pin:
    return rules.Pin(keyid, repo, tuple(endpoints), prefix, ca)


@given(st.dictionaries(st.sampled_from([A, B]), st.tuples(URLS, PREFIXES, CAS), max_size=2))
def test_pins_read_back_as_written(found: dict[str, tuple[list[str], str, str | None]]) -> None:
    pins = {k: _pin(k, *v) for k, v in found.items()}
    assert rules.parse_pins(rules.render_pins(pins), WHERE) == pins


@given(URLS, PREFIXES, CAS, URLS, PREFIXES, CAS)
def test_a_store_is_served_exactly_on_the_pinned_cluster(
    urls: list[str], prefix: str, ca: str | None, urls2: list[str], prefix2: str, ca2: str | None
) -> None:
    pinned, wanted = _pin(A, urls, prefix, ca), _pin(A, urls2, prefix2, ca2)
    same = set(urls) == set(urls2) and prefix == prefix2 and ca == ca2
    if same:
        rules.check({A: pinned}, wanted, WHERE, "oms store pin-cluster")
    else:
        with pytest.raises(ClusterNotPinnedError, match="not the cluster you pinned"):
            rules.check({A: pinned}, wanted, WHERE, "oms store pin-cluster")
    with pytest.raises(ClusterNotPinnedError, match="which you have not pinned"):
        rules.check({B: pinned._replace(keyid=B)}, wanted, WHERE, "oms store pin-cluster")


def test_a_prefix_is_one_repositorys_on_shared_members() -> None:
    pins = {A: _pin(A, ["http://h:2"], "/oms/x/")}
    for prefix in ("/oms/x/", "/oms/x/y/", "/oms/"):
        with pytest.raises(ConfigError, match="overlaps prefix /oms/x/"):
            rules.add(pins, _pin(B, ["http://h:2", "http://h:3"], prefix, repo="/src/fork"), WHERE)
    shared = rules.add(pins, _pin(B, ["http://h:2"], "/oms/x/"), WHERE)  # its second state root
    assert set(shared) == {A, B}
    assert set(rules.add(pins, _pin(B, ["http://h:2"], "/oms/z/"), WHERE)) == {A, B}
    assert set(rules.add(pins, _pin(B, ["http://other:2"], "/oms/x/"), WHERE)) == {A, B}
    moved = rules.add(pins, _pin(A, ["http://h:2"], "/oms/x/y/"), WHERE)  # its own, again
    assert moved[A].prefix == "/oms/x/y/"


@pytest.mark.parametrize(
    "text",
    [
        b"\xff",
        b"[clusters\n",
        b"other = 1\n",
        b'[clusters.short]\nrepository = "/r"\nendpoints = ["http://h:1"]\nprefix = "/p/"\n',
        b'[clusters.%s]\nrepository = "/r"\nendpoints = []\nprefix = "/p/"\n' % A.encode(),
        b'[clusters.%s]\nrepository = "/r"\nendpoints = ["http://h:1"]\nprefix = "/p/"\n'
        b'ca = "md5:1"\n' % A.encode(),
    ],
)
def test_a_pin_file_that_does_not_parse_is_one_line_naming_it(text: bytes) -> None:
    with pytest.raises(ConfigError) as refused:
        rules.parse_pins(text, WHERE)
    assert refused.value.message.startswith(WHERE), refused.value.message
    assert "\n" not in refused.value.message


def test_the_ca_is_pinned_only_over_https() -> None:
    assert rules.ca_of(["http://h:1"], b"pem") is None
    assert rules.ca_of(["https://h:1"], None) == "system"
    assert rules.ca_of(["https://h:1"], b"pem") == "sha256:" + hashlib.sha256(b"pem").hexdigest()


@pytest.mark.parametrize(
    "spelling",
    [
        "http://127.0.0.1:2379/",
        "https://127.0.0.1:2379",
        "http://127.1:2379",
        "http://127.0.0.1:02379",
        "http://127.0.0.1",
        "http://2130706433:2379",
        "http://0x7f.0.0.1:2379",
        "http://127.0.0.2:2379",
        "http://0.0.0.0:2379",
        "http://localhost:2379",
        "http://LOCALHOST.:2379",
        "http://etcd.localhost:2379",
    ],
)
def test_a_member_is_where_a_client_connects_not_its_spelling(spelling: str) -> None:
    """ADR 0043 amendment `names2`: each spelling of this machine's port 2379 is one member, so a
    second repository's pin on it under the same prefix overlaps (before, the URLs were compared
    as strings, and each of these was pinned beside the first)."""
    assert rules.member(spelling) == rules.member("http://127.0.0.1:2379") == (rules.LOOPBACK, 2379)
    pins = {A: _pin(A, ["http://127.0.0.1:2379"], "/oms/x/")}
    with pytest.raises(
        ConfigError, match=re.escape("overlaps prefix /oms/x/ on http://127.0.0.1:2379")
    ):
        rules.add(pins, _pin(B, [spelling], "/oms/x/", repo="/src/fork"), WHERE)


def test_members_apart_stay_apart() -> None:
    assert rules.member("http://10.0.0.1:2379") == ("10.0.0.1", 2379)
    assert rules.member("http://010.0.0.1:2379") == ("8.0.0.1", 2379)  # octal, as resolvers read
    assert rules.member("http://Etcd-1.example:2379/") == ("etcd-1.example", 2379)
    assert rules.member("http://127.0.0.1:2380") != rules.member("http://127.0.0.1:2379")
    assert rules.member("http://etcd-1:2379") != rules.member("http://etcd-2:2379")
    pins = {A: _pin(A, ["http://etcd-1:2379"], "/oms/x/")}
    assert set(rules.add(pins, _pin(B, ["http://etcd-2:2379"], "/oms/x/"), WHERE)) == {A, B}


def test_a_pin_overlapping_another_repositorys_is_refused_as_it_is_used() -> None:
    """A pin file that already pins two repositories on one prefix (written by hand, or before
    `member`): a store of either is refused as it opens, naming the other."""
    ours = _pin(A, ["http://127.0.0.1:2379"], "/oms/x/")
    theirs = _pin(B, ["http://localhost:2379/"], "/oms/x/", repo="/src/fork")
    for wanted in (ours, theirs):
        with pytest.raises(ClusterNotPinnedError, match="pinned for another repository's"):
            rules.check({A: ours, B: theirs}, wanted, WHERE, "oms store pin-cluster")
    rules.check({A: ours, B: theirs._replace(prefix="/oms/y/")}, ours, WHERE, "x")
