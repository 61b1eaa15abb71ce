"""The ledger's entries on keys (ADR 0043, amendment `etcdledger`; `store/ledger.py`): an entry
encodes and parses back to what was noted; any byte changed is refused, or makes the entry another
key's (whose MAC this state root cannot check, and whose signature checks only against the key
pinned for that key id: ADR 0043, amendment `hostkeys`); garbage never parses."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.errors import IntegrityError
from oms.store.keys import SigningKey, key_id
from oms.store.ledger import GENESIS, KINDS, LineKey, entry_name, key_entry, parse_key_entry

SIGNER, OTHER = SigningKey(b"s" * 32), SigningKey(b"o" * 32)
MINE = LineKey(key_id(SIGNER.public_raw()), lambda: b"k" * 32, lambda: SIGNER)
THEIRS = LineKey(key_id(OTHER.public_raw()), lambda: b"z" * 32, lambda: OTHER)
PINNED = {THEIRS.key_id: OTHER.public_raw()}  # what MINE's host pinned of THEIRS's
PATHS = st.from_regex(
    r"(records/worker/dsp-[0-9]{1,4}/[0-9]{1,3}|events/evt-[a-z0-9]{1,20})\.json", fullmatch=True
)
SEQS = st.integers(min_value=1, max_value=2**53 - 1)
DIGESTS = st.binary(max_size=32).map(lambda b: hashlib.sha256(b).hexdigest())


@given(SEQS, DIGESTS, st.sampled_from(KINDS), PATHS, st.binary(max_size=256))
def test_an_entry_parses_back_to_what_it_notes(
    seq: int, prev: str, kind: str, path: str, data: bytes
) -> None:
    raw = key_entry(seq, prev, kind, path, data, MINE)
    entry = parse_key_entry(raw, MINE)
    assert (entry.seq, entry.prev, entry.kind, entry.path) == (seq, prev, kind, path)
    assert entry.sha256 == hashlib.sha256(data).hexdigest()
    assert entry.digest == hashlib.sha256(raw).hexdigest()
    assert (entry.keyid, entry.checked) == (MINE.key_id, True)
    assert parse_key_entry(raw, THEIRS).checked is False  # another key's: counted, not checked
    assert parse_key_entry(raw, THEIRS).vouched is False  # and not pinned there
    assert parse_key_entry(raw, THEIRS, {MINE.key_id: SIGNER.public_raw()}).vouched is True


@given(SEQS, PATHS, st.data())
def test_a_changed_byte_is_refused_or_makes_it_another_keys(
    seq: int, path: str, data: st.DataObject
) -> None:
    raw = key_entry(seq, GENESIS, "record", path, b"bytes", MINE)
    at = data.draw(st.integers(min_value=0, max_value=len(raw) - 1))
    byte = data.draw(st.integers(min_value=0, max_value=255).filter(lambda b: b != raw[at]))
    changed = raw[:at] + bytes([byte]) + raw[at + 1 :]
    try:
        entry = parse_key_entry(changed, MINE)
    except IntegrityError:
        return
    assert not entry.checked  # its keyid changed: no longer this key's to vouch for
    assert entry.digest != hashlib.sha256(raw).hexdigest()  # so the next entry no longer links


@given(SEQS, PATHS, st.data())
def test_a_changed_byte_of_a_pinned_hosts_entry_is_refused_or_vouched_by_no_one(
    seq: int, path: str, data: st.DataObject
) -> None:
    raw = key_entry(seq, GENESIS, "record", path, b"bytes", THEIRS)
    assert parse_key_entry(raw, MINE, PINNED).vouched
    at = data.draw(st.integers(min_value=0, max_value=len(raw) - 1))
    byte = data.draw(st.integers(min_value=0, max_value=255).filter(lambda b: b != raw[at]))
    changed = raw[:at] + bytes([byte]) + raw[at + 1 :]
    try:
        entry = parse_key_entry(changed, MINE, PINNED)
    except IntegrityError:
        return
    mac = raw.index(b'"mac":"') + len(b'"mac":"')
    if mac <= at < mac + 64:  # the MAC is its host's own check, not signed: what it vouches
        assert entry.vouched  # for (seq, prev, path, sha256, …) is unchanged, and the entry's
        return  # digest is not: the next entry no longer links, and its own host names it
    assert not entry.checked  # its keyid changed: no pinned key's now
    assert not entry.vouched


def test_an_entry_signed_by_another_key_than_the_pinned_one_is_forged() -> None:
    forger = LineKey(THEIRS.key_id, lambda: b"z" * 32, lambda: SigningKey(b"f" * 32))
    raw = key_entry(3, GENESIS, "record", "events/e.json", b"x", forger)
    assert parse_key_entry(raw, MINE).vouched is False  # nothing pinned: not vouched, not refused
    with pytest.raises(IntegrityError, match="does not check against the key pinned"):
        parse_key_entry(raw, MINE, PINNED)


@given(st.binary(max_size=600))
def test_garbage_never_parses(raw: bytes) -> None:
    with pytest.raises(IntegrityError):
        parse_key_entry(raw, MINE)


def test_the_keys_sort_as_the_entries() -> None:
    names = [entry_name(n) for n in (1, 2, 10, 99, 100, 2**53 - 1)]
    assert names == sorted(names)
    assert entry_name(7) == "ledger/00000000000000000007"


def test_a_number_past_what_json_holds_exactly_is_refused() -> None:
    raw = key_entry(2**53 - 1, GENESIS, "record", "events/e.json", b"", MINE)
    with pytest.raises(IntegrityError, match="not a ledger entry"):
        parse_key_entry(raw.replace(b'"seq":9007199254740991', b'"seq":9999999999999999'), MINE)
