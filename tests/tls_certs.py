"""Certificates for the tests of etcd over TLS (ADR 0043, amendment `etcdtls`), made with
`cryptography` in the test: a CA, leaf certificates it signs (a server's with an IP SAN of
127.0.0.1, a client's), written as PEM files. No network, no openssl process."""

from __future__ import annotations

import datetime
import ipaddress
from pathlib import Path
from typing import NamedTuple

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


class Authority(NamedTuple):
    """A CA: its key, its certificate, and where its certificate is written."""

    key: ec.EllipticCurvePrivateKey
    cert: x509.Certificate
    cert_path: Path


class Leaf(NamedTuple):
    """A certificate and its key, as files."""

    cert: Path
    key: Path


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def _write(path: Path, data: bytes, mode: int) -> Path:
    path.write_bytes(data)
    path.chmod(mode)
    return path


def authority(directory: Path, name: str) -> Authority:
    """A new self-signed CA named `name`, its certificate written to `<directory>/<name>.pem`."""
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(name))
        .issuer_name(_name(name))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(_now() - datetime.timedelta(minutes=5))
        .not_valid_after(_now() + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    path = _write(directory / f"{name}.pem", cert.public_bytes(serialization.Encoding.PEM), 0o644)
    return Authority(key, cert, path)


def leaf(
    ca: Authority,
    directory: Path,
    name: str,
    *,
    server: bool,
    expired: bool = False,
    ip: str = "127.0.0.1",
) -> Leaf:
    """A certificate `ca` signs for `name` (a server's carries the IP SAN `ip` and serves; both
    authenticate as clients), written with its key (mode 600) under `directory`."""
    key = ec.generate_private_key(ec.SECP256R1())
    start = _now() - datetime.timedelta(days=2 if expired else 0, minutes=5)
    end = _now() - datetime.timedelta(days=1) if expired else _now() + datetime.timedelta(days=1)
    # a member's gateway dials its own client port with its server certificate: it serves and
    # authenticates
    usage = [ExtendedKeyUsageOID.CLIENT_AUTH]
    if server:
        usage.append(ExtendedKeyUsageOID.SERVER_AUTH)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(name))
        .issuer_name(ca.cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage(usage), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca.key.public_key()),
            critical=False,
        )
    )
    if server:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(ip))]),
            critical=False,
        )
    cert = builder.sign(ca.key, hashes.SHA256())
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return Leaf(
        _write(directory / f"{name}.crt", cert.public_bytes(serialization.Encoding.PEM), 0o644),
        _write(directory / f"{name}.key", key_pem, 0o600),
    )
