"""The state signing key (Ed25519) and the DSSE pre-authentication encoding.

The private key is a raw 32-byte seed in `keys/state.ed25519` (0600, created once, never
overwritten). Its public half and key id (sha256 of the raw public key) are in `oms-state.json`.
Signatures cover `PAE(payloadType, body)` of the exact stored body bytes (ADR 0004; the DSSE v1
encoding). `cryptography` is imported only when a key is used.
"""

from __future__ import annotations

import binascii

from oms.canonical.digest import sha256_hex
from oms.errors import SignatureError

SEED_BYTES = 32
SIGNATURE_BYTES = 64


def pae(payload_type: str, body: bytes) -> bytes:
    """DSSEv1 pre-authentication encoding: lengths make the framing unambiguous."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(body), body)


def key_id(public_raw: bytes) -> str:
    """The key id: sha256 of the raw 32-byte public key."""
    return sha256_hex(public_raw)


def b64encode(data: bytes) -> str:
    """Standard base64 with padding."""
    return binascii.b2a_base64(data, newline=False).decode("ascii")


def b64decode(text: str, what: str) -> bytes:
    """Strict base64 decoding: the standard alphabet, correct padding, nothing after it (binascii's
    strict mode, which refuses everything `base64.b64decode(validate=True)` refuses;
    property-tested)."""
    try:
        return binascii.a2b_base64(text.encode("ascii"), strict_mode=True)
    except (binascii.Error, UnicodeEncodeError, ValueError) as exc:
        raise SignatureError(f"{what}: not valid base64") from exc


class SigningKey:
    """An Ed25519 private key held in memory."""

    def __init__(self, seed: bytes) -> None:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        if len(seed) != SEED_BYTES:
            raise SignatureError(f"signing key is {len(seed)} bytes (expected {SEED_BYTES})")
        self._key = Ed25519PrivateKey.from_private_bytes(seed)

    @classmethod
    def generate(cls) -> tuple[SigningKey, bytes]:
        """A fresh key and its seed bytes (to be stored once)."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives.serialization import (
            Encoding,
            NoEncryption,
            PrivateFormat,
        )

        seed = Ed25519PrivateKey.generate().private_bytes(
            Encoding.Raw, PrivateFormat.Raw, NoEncryption()
        )
        return cls(seed), seed

    def public_raw(self) -> bytes:
        """The raw 32-byte public key."""
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        return self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    def sign(self, payload_type: str, body: bytes) -> bytes:
        """Sign `PAE(payload_type, body)`."""
        return self._key.sign(pae(payload_type, body))


def verify(public_raw: bytes, signature: bytes, payload_type: str, body: bytes, what: str) -> None:
    """Raise `SignatureError` unless `signature` is valid over `PAE(payload_type, body)`."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    if len(signature) != SIGNATURE_BYTES:
        raise SignatureError(
            f"{what}: signature is {len(signature)} bytes (expected {SIGNATURE_BYTES})"
        )
    try:
        Ed25519PublicKey.from_public_bytes(public_raw).verify(signature, pae(payload_type, body))
    except InvalidSignature as exc:
        raise SignatureError(f"{what}: signature does not verify against the state key") from exc
