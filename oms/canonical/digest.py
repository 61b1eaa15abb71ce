"""Domain-separated SHA-256 digests, compared in constant time.

`digest(domain, value)` is `sha256(b"oms-<domain>-v1\\0" + canonical(value))`: the same bytes can
never be confused between two uses (a policy digest is never an intent digest).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hashlib import sha256 as _sha256
    from hmac import compare_digest as _constant_time_equal
else:
    # CPython's own SHA-256 module: the same digests as hashlib's, without loading OpenSSL's
    # libcrypto,
    try:
        # which costs ~2.5 ms at every start of a hook or bridge (docs/adr/0010; equality is
        # property-tested)
        from _sha256 import sha256 as _sha256
    except ImportError:  # other interpreters
        from hashlib import sha256 as _sha256
    try:  # what hmac.compare_digest is built on, without importing hmac (which loads OpenSSL)
        from _operator import _compare_digest as _constant_time_equal
    except ImportError:
        from hmac import compare_digest as _constant_time_equal

from oms.canonical.strict_json import dumps
from oms.errors import InvalidInputError

_DOMAIN = re.compile(r"[a-z][a-z0-9-]{0,62}[a-z0-9]")
SHA256_HEX = re.compile(r"[0-9a-f]{64}")


def _prefix(domain: str) -> bytes:
    if _DOMAIN.fullmatch(domain) is None:
        raise InvalidInputError(f"digest domain {domain!r} does not match [a-z][a-z0-9-]*")
    return b"oms-" + domain.encode("ascii") + b"-v1\x00"


def digest(domain: str, value: object) -> str:
    """Hex digest of the canonical bytes of `value` in `domain`."""
    return _sha256(_prefix(domain) + dumps(value)).hexdigest()


def digest_bytes(domain: str, data: bytes) -> str:
    """Hex digest of raw `data` in `domain`."""
    return _sha256(_prefix(domain) + data).hexdigest()


def sha256_hex(data: bytes) -> str:
    """Plain SHA-256 of `data` (content addresses: anyone can check them with `sha256sum`)."""
    return _sha256(data).hexdigest()


def equal(a: str, b: str) -> bool:
    """Constant-time comparison of two digests or tokens."""
    return _constant_time_equal(
        a.encode("utf-8", "surrogatepass"), b.encode("utf-8", "surrogatepass")
    )
