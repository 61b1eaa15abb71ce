"""A small etcd v3 client over the JSON gateway (ADR 0043).

The gateway of etcd 3.4 answers `POST /v3/<service>/<call>` with the gRPC message as JSON: keys and
values base64, 64-bit numbers as strings, fields at their default value left out (a failed
transaction has no `succeeded`, an empty range no `kvs`), an error as `{"error", "message", "code"}`
with a gRPC status code. Streams (watch, keepalive) answer one `{"result": ...}` per line.

Every call tries the endpoints in turn, each within `LIMITS.etcd_call_s`; when none answers the call
raises `EtcdUnavailableError` (one line naming the endpoints). A call is sent again to the next
endpoint after a transport failure, even one after the request was sent: every write oms makes is
either guarded by a compare (a resent one that had landed fails its compare, and the record store
replays it by its operation id) or puts the same bytes again.

An `https://` endpoint is spoken over TLS (ADR 0043, amendment `etcdtls`): TLS 1.2 or later, the
member's certificate verified against the CA the person's settings name (`ClientTls`; the
system's CAs when none), its host name or IP checked, and the client certificate presented when
one is given. A failed handshake is one reason in the one line, with the fix as its hint.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import socket
import ssl
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Literal, NamedTuple
from urllib.parse import urlsplit

from oms.canonical.strict_json import loads_message
from oms.errors import (
    CanonicalJsonError,
    EtcdAnswerTooLargeError,
    EtcdError,
    EtcdUnavailableError,
    InvalidInputError,
    shown,
)
from oms.fsio.outside import memory_file
from oms.limits import LIMITS, Limits

# gRPC status codes a member answers when another member may do better
_TRY_ANOTHER = frozenset({4, 14})  # DEADLINE_EXCEEDED, UNAVAILABLE (no leader, stopping)


class KeyValue(NamedTuple):
    """One key as etcd holds it."""

    key: str
    value: bytes
    create_revision: int
    mod_revision: int
    version: int
    lease: int


class Compare(NamedTuple):
    """One compare of a transaction: the key's create or mod revision equals `revision`, or its
    value equals `value`."""

    key: str
    target: Literal["CREATE", "MOD", "VALUE"]
    revision: int
    value: bytes = b""

    @classmethod
    def absent(cls, key: str) -> Compare:
        """The key does not exist (its create revision is 0): a create-once."""
        return cls(key, "CREATE", 0)

    @classmethod
    def created_at(cls, key: str, revision: int) -> Compare:
        """The key was created at `revision` (and not deleted since): a fencing token."""
        return cls(key, "CREATE", revision)

    @classmethod
    def value_is(cls, key: str, value: bytes) -> Compare:
        """The key holds `value` (a missing key holds nothing, so this fails on one)."""
        return cls(key, "VALUE", 0, value)

    @classmethod
    def modified_at(cls, key: str, revision: int) -> Compare:
        """Nobody wrote the key since `revision`: a compare-and-set."""
        return cls(key, "MOD", revision)


class Put(NamedTuple):
    """Put `value` at `key` (under `lease` when not 0)."""

    key: str
    value: bytes
    lease: int = 0


class Delete(NamedTuple):
    """Delete `key` (every key starting with it when `prefix`)."""

    key: str
    prefix: bool = False


class Get(NamedTuple):
    """Read `key` (in a transaction's branch); with `prefix`, the keys starting with it, at most
    `limit` (0: all), the newest created first when `newest_first`, the greatest key first when
    `last_first`."""

    key: str
    prefix: bool = False
    limit: int = 0
    newest_first: bool = False
    last_first: bool = False


Op = Put | Delete | Get


class TxnResult(NamedTuple):
    """Whether the compares held, the revision after, and what each `Get` of the branch read: its
    first key (`reads`) and every key (`ranges`)."""

    succeeded: bool
    revision: int
    reads: list[KeyValue | None]
    ranges: list[list[KeyValue]]


class Since(NamedTuple):
    """A range's keys, how many keys the range holds in all, the revision and the cluster's id."""

    kvs: list[KeyValue]
    total: int
    revision: int
    cluster: str


class Lease(NamedTuple):
    """A granted lease."""

    lease_id: int
    ttl: int


class Event(NamedTuple):
    """One change a watch saw."""

    kind: Literal["PUT", "DELETE"]
    key: str
    value: bytes
    mod_revision: int


class WatchResult(NamedTuple):
    """What one watch read returned: the events, and the revision to watch from next."""

    events: list[Event]
    next_revision: int


def _cut(held: list[socket.socket], cut: threading.Event) -> None:
    """A call's time is up: its socket is shut, so a member dribbling its answer a byte at a time
    (each read within the socket's timeout) ends too."""
    cut.set()
    for sock in held:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def prefix_end(prefix: str) -> str:
    """The range end that makes a range of `prefix` cover every key starting with it."""
    raw = prefix.encode()
    if not raw or raw[-1] == 0xFF:
        raise InvalidInputError(f"no range end for prefix {shown(prefix)}")
    return (raw[:-1] + bytes([raw[-1] + 1])).decode("latin-1")


def _b64(text: str | bytes) -> str:
    raw = text.encode("latin-1") if isinstance(text, str) else text
    return base64.b64encode(raw).decode("ascii")


def _key_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _key(text: str) -> str:
    return _b64(_key_bytes(text))


def _int(doc: dict[str, object], name: str) -> int:
    value = doc.get(name, "0")
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise EtcdError(f"etcd answered a bad {name} ({shown(repr(value))})")
    try:
        return int(value)
    except ValueError as exc:
        raise EtcdError(f"etcd answered a bad {name} ({shown(repr(value))})") from exc


def _obj(value: object, what: str) -> dict[str, object]:
    if not isinstance(value, dict):
        raise EtcdError(f"etcd answered a bad {what}")
    return value


def _kv(raw: object) -> KeyValue:
    doc = _obj(raw, "key")
    try:
        # a key that is not UTF-8 (etcd's keys are bytes) keeps its bytes as surrogate escapes: a
        # check names it (never a record's: ids are ASCII), and a walk goes on past it
        key = base64.b64decode(str(doc.get("key", "")), validate=True).decode(
            "utf-8", "surrogateescape"
        )
        value = base64.b64decode(str(doc.get("value", "")), validate=True)
    except (ValueError, UnicodeDecodeError) as exc:
        raise EtcdError("etcd answered a key or value that is not base64 of text") from exc
    return KeyValue(
        key,
        value,
        _int(doc, "create_revision"),
        _int(doc, "mod_revision"),
        _int(doc, "version"),
        _int(doc, "lease"),
    )


def _kvs(doc: dict[str, object]) -> list[KeyValue]:
    raw = doc.get("kvs", [])
    if not isinstance(raw, list):
        raise EtcdError("etcd answered a bad kvs")
    return [_kv(item) for item in raw]


def _compare(compare: Compare) -> dict[str, object]:
    out: dict[str, object] = {"key": _key(compare.key), "target": compare.target, "result": "EQUAL"}
    if compare.target == "VALUE":
        out["value"] = _b64(compare.value)
    else:
        field = "create_revision" if compare.target == "CREATE" else "mod_revision"
        out[field] = str(compare.revision)
    return out


def _op(op: Op) -> dict[str, object]:
    if isinstance(op, Put):
        put: dict[str, object] = {"key": _key(op.key), "value": _b64(op.value)}
        if op.lease:
            put["lease"] = str(op.lease)
        return {"request_put": put}
    if isinstance(op, Delete):
        gone: dict[str, object] = {"key": _key(op.key)}
        if op.prefix:
            gone["range_end"] = _b64(prefix_end(op.key))
        return {"request_delete_range": gone}
    get: dict[str, object] = {"key": _key(op.key)}
    if op.prefix:
        get["range_end"] = _b64(prefix_end(op.key))
    if op.limit:
        get["limit"] = str(op.limit)
    if op.newest_first:
        get["sort_order"] = "DESCEND"
        get["sort_target"] = "CREATE"
    elif op.last_first:
        get["sort_order"] = "DESCEND"
        get["sort_target"] = "KEY"
    return {"request_range": get}


class Endpoint(NamedTuple):
    """One member's client URL, parsed."""

    host: str
    port: int
    url: str
    tls: bool = False


def parse_endpoint(url: str) -> Endpoint:
    """`http://host:port`, or `https://host:port` (spoken over TLS)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
        raise InvalidInputError(
            f"etcd endpoint {shown(url)} is not http(s)://host:port",
            hint="name each member's client URL, e.g. https://127.0.0.1:2379",
        )
    try:
        port = parts.port or 2379
    except ValueError as exc:
        raise InvalidInputError(f"etcd endpoint {shown(url)} has a bad port") from exc
    return Endpoint(parts.hostname, port, url, parts.scheme == "https")


class ClientTls(NamedTuple):
    """What the client trusts and presents over TLS: the CA bundle the members' certificates
    must chain to (PEM; None: the system's CAs), the client certificate and its key (PEM; both or
    neither), and where they were named (`source`, for the messages)."""

    ca: bytes | None = None
    cert: bytes | None = None
    key: bytes | None = None
    source: str = "the TLS settings"


def tls_context(tls: ClientTls) -> ssl.SSLContext:
    """The client's TLS context: TLS 1.2 or later, the server verified against `tls.ca` with its
    host name (or IP SAN) checked, the client certificate loaded; one-line errors naming
    `tls.source` when the material does not load."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # CERT_REQUIRED, check_hostname
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        if tls.ca is None:
            context.load_default_certs()
        else:
            context.load_verify_locations(cadata=tls.ca.decode("ascii", "replace"))
    except (ssl.SSLError, ValueError) as exc:
        raise InvalidInputError(
            f"{tls.source}: the CA bundle holds no certificate ({_ssl_reason(exc)})",
            hint="name a PEM file of the CA that signed the etcd members' certificates",
        ) from exc
    if (tls.cert is None) != (tls.key is None):
        raise InvalidInputError(
            f"{tls.source}: a client certificate needs its key (and a key its certificate)",
            hint="name both `cert` and `key`, or neither",
        )
    if tls.cert is not None and tls.key is not None:

        def encrypted() -> bytes:  # asked only for an encrypted key: OpenSSL would prompt on the
            raise InvalidInputError(  # terminal (and wait there), or fail with a bare OSError
                f"{tls.source}: the client key is encrypted; oms reads no pass phrase",
                hint="name the key unencrypted, mode 600 (`openssl pkey -in <key> -out <new>`)",
            )

        try:
            with memory_file(tls.cert + b"\n" + tls.key, "oms-etcd-client") as path:
                context.load_cert_chain(path, password=encrypted)
        except ssl.SSLError as exc:
            raise InvalidInputError(
                f"{tls.source}: the client certificate and key do not load ({_ssl_reason(exc)})",
                hint="name a PEM certificate and the unencrypted PEM key it was issued for",
            ) from exc
    return context


def _ssl_reason(exc: BaseException) -> str:
    if isinstance(exc, ssl.SSLError) and exc.reason:
        return str(exc.reason)
    if isinstance(exc, ssl.SSLEOFError | ssl.SSLZeroReturnError):
        return "the TLS connection ended"
    return shown(str(exc), 120)


# what a failed call's reason says, and the fix: the first that applies is the hint
_TLS_FIXES = (
    (
        "certificate has expired",
        "the member's certificate has expired: renew it (signed by the CA you trust)",
    ),
    (
        "does not name",
        "the member's certificate does not name the host you dial: name each member in "
        "[store] endpoints as its certificate does (an IP needs an IP SAN)",
    ),
    (
        "not trusted",
        "the member's certificate is not signed by the CA you trust: set `ca` under [tls] in "
        "your oms/etcd.toml to the CA that signed the members' certificates",
    ),
    (
        "WRONG_VERSION_NUMBER",
        "the member does not speak TLS: name it http:// in [store] endpoints, or serve TLS",
    ),
    (
        "ended the TLS handshake",
        "the member does not speak TLS (it ended the handshake): name it http:// in [store] "
        "endpoints, or serve TLS on it",
    ),
    (
        "serving TLS",
        "if the members serve TLS, name them https:// in [store] endpoints (and set [tls] in "
        "your oms/etcd.toml); else start the cluster",
    ),
    (
        "refused the client certificate",
        "set `cert` and `key` under [tls] in your oms/etcd.toml to a client certificate the "
        "members' --trusted-ca-file signed",
    ),
)
_REFUSED_ALERTS = (
    "CERTIFICATE_REQUIRED",
    "BAD_CERTIFICATE",
    "UNKNOWN_CA",
    "CERTIFICATE_UNKNOWN",
    "CERTIFICATE_EXPIRED",
    "DECRYPT_ERROR",
    "ACCESS_DENIED",
)


def _reason(exc: BaseException, endpoint: Endpoint) -> str:
    """Why a call to `endpoint` failed, in a few words (a TLS failure said as what it means)."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        said = exc.verify_message or _ssl_reason(exc)
        if "expired" in said:
            return f"its certificate has expired: {said}"
        if "mismatch" in said:
            return f"its certificate does not name {endpoint.host}: {said}"
        return f"its certificate is not trusted: {said}"
    if isinstance(exc, ssl.SSLError):
        reason = _ssl_reason(exc)
        ended = isinstance(exc, ssl.SSLEOFError | ssl.SSLZeroReturnError)
        if ended and _HANDSHAKE in getattr(exc, "__notes__", ()):
            # a member that does not speak TLS reads the client's hello as a bad request, and
            # closes the connection
            return f"it ended the TLS handshake unanswered ({reason})"
        if any(alert in reason for alert in _REFUSED_ALERTS) or ended:
            # TLS 1.3: a member checks the client's certificate after the client's handshake
            # ends, and refuses one it did not sign (or none) by ending the connection
            return f"it refused the client certificate: {reason}"
        return f"TLS: {reason}"
    if endpoint.tls and isinstance(exc, ConnectionResetError | BrokenPipeError):
        return f"it refused the client certificate: {type(exc).__name__}"
    if not endpoint.tls and isinstance(exc, http.client.RemoteDisconnected | ConnectionResetError):
        # a member serving TLS closes a plain request's connection, or resets it when the close
        # overtakes the request's last bytes (a loaded machine)
        return "it closed the connection unanswered, as a member serving TLS does"
    return type(exc).__name__


_HANDSHAKE = "while connecting"


def _connect_now(conn: http.client.HTTPConnection) -> None:
    """Connect `conn` (and make its TLS handshake) if it is not connected, marking a failure as
    one while connecting: an ended handshake means another thing than an ended answer."""
    if conn.sock is None:
        try:
            conn.connect()
        except OSError as exc:
            exc.add_note(_HANDSHAKE)
            raise


def _unavailable(tried: list[str]) -> EtcdUnavailableError:
    said = ", ".join(tried)
    for needle, fix in _TLS_FIXES:
        if needle in said:
            return EtcdUnavailableError(
                f"etcd unreachable: no endpoint answered ({said})", hint=fix
            )
    return EtcdUnavailableError(f"etcd unreachable: no endpoint answered ({said})")


def _lets_in(url: str, timeout: float) -> bool:
    """Does `url` let in a client that presents no certificate (True too when it cannot be
    told: no answer, not a URL)? Plain http does; https is asked: a TLS handshake without a
    certificate and a request, which a member requiring client certificates refuses during the
    handshake (TLS 1.2) or on the first read (TLS 1.3)."""
    try:
        endpoint = parse_endpoint(url)
    except InvalidInputError:
        return True
    if not endpoint.tls:
        return True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False  # whom the member proves to be is not the question here
    context.verify_mode = ssl.CERT_NONE
    try:
        raw = socket.create_connection((endpoint.host, endpoint.port), timeout=timeout)
    except OSError:
        return True  # no answer: not shown to refuse
    try:
        with context.wrap_socket(raw, server_hostname=endpoint.host) as tls:
            tls.sendall(b"GET /version HTTP/1.1\r\nHost: oms\r\nConnection: close\r\n\r\n")
            return tls.recv(5) == b"HTTP/"  # an ended connection: refused
    except (ssl.SSLError, ConnectionResetError, BrokenPipeError):
        return False  # the handshake or the first read refused the client without a certificate
    except OSError:
        return True
    finally:
        raw.close()


class Etcd:
    """A client of one etcd cluster. Safe to share between threads (one call at a time)."""

    def __init__(
        self, endpoints: Sequence[str], limits: Limits = LIMITS, tls: ClientTls | None = None
    ) -> None:
        if not endpoints:
            raise InvalidInputError("no etcd endpoints", hint="set `[store] endpoints`")
        self.endpoints = [parse_endpoint(url) for url in endpoints]
        plain = [e.url for e in self.endpoints if not e.tls]
        if tls is not None and plain:
            # the person asked for TLS: a committed configuration cannot turn it off
            raise InvalidInputError(
                f"etcd endpoint {shown(plain[0])} is plain http while {tls.source} names TLS",
                hint="name every member https:// in [store] endpoints",
            )
        self.limits = limits
        self._tls = tls_context(tls or ClientTls()) if any(e.tls for e in self.endpoints) else None
        self._conns: dict[Endpoint, http.client.HTTPConnection] = {}
        self._first = 0  # the endpoint that answered last is asked first
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ transport
    def call(self, path: str, body: dict[str, object]) -> dict[str, object]:
        """POST `body` to `path` on the first endpoint that answers; its JSON answer."""
        data = json.dumps(body).encode()
        tried: list[str] = []
        with self._lock:
            count = len(self.endpoints)
            for step in range(count):
                index = (self._first + step) % count
                endpoint = self.endpoints[index]
                try:
                    status, raw = self._post(endpoint, path, data)
                except (OSError, http.client.HTTPException) as exc:
                    self._drop(endpoint)
                    tried.append(f"{endpoint.url} ({_reason(exc, endpoint)})")
                    continue
                if status == 400 and b"HTTPS server" in raw[:200]:  # plain http to TLS
                    self._drop(endpoint)
                    tried.append(f"{endpoint.url} (it speaks TLS)")
                    continue
                answer = self._decode(raw, endpoint)
                if "error" in answer or status != 200:
                    code = _int(answer, "code")
                    message = str(answer.get("message", answer.get("error", status)))
                    if code in _TRY_ANOTHER:
                        tried.append(f"{endpoint.url} ({message})")
                        continue
                    raise EtcdError(f"etcd {path}: {message} (code {code}) at {endpoint.url}")
                self._first = index
                return answer
        raise _unavailable(tried)

    def _connect(self, endpoint: Endpoint) -> http.client.HTTPConnection:
        """A connection to `endpoint` (not yet made): over TLS for an https:// one."""
        if endpoint.tls and self._tls is not None:
            return http.client.HTTPSConnection(
                endpoint.host, endpoint.port, timeout=self.limits.etcd_call_s, context=self._tls
            )
        return http.client.HTTPConnection(
            endpoint.host, endpoint.port, timeout=self.limits.etcd_call_s
        )

    def _post(self, endpoint: Endpoint, path: str, data: bytes) -> tuple[int, bytes]:
        conn = self._conns.get(endpoint)
        if conn is None:
            conn = self._connect(endpoint)
            self._conns[endpoint] = conn
        cut = threading.Event()
        held: list[socket.socket] = []  # the call's socket (an answer that closes takes it over)
        watchdog = threading.Timer(self.limits.etcd_call_s, _cut, (held, cut))
        watchdog.daemon = True
        watchdog.start()
        try:
            _connect_now(conn)
            conn.request("POST", path, body=data, headers={"Content-Type": "application/json"})
            if conn.sock is not None:
                held.append(conn.sock)
            if cut.is_set():
                raise TimeoutError(f"no whole answer within {self.limits.etcd_call_s} s")
            response = conn.getresponse()
            raw = response.read(self.limits.etcd_response_bytes + 1)
        finally:
            watchdog.cancel()
        if cut.is_set():
            raise TimeoutError(f"no whole answer within {self.limits.etcd_call_s} s")
        if len(raw) > self.limits.etcd_response_bytes:
            self._drop(endpoint)
            raise EtcdAnswerTooLargeError(
                f"etcd {path}: answer over {self.limits.etcd_response_bytes} bytes"
            )
        return response.status, raw

    def _drop(self, endpoint: Endpoint) -> None:
        conn = self._conns.pop(endpoint, None)
        if conn is not None:
            conn.close()

    @staticmethod
    def _decode(raw: bytes, endpoint: Endpoint) -> dict[str, object]:
        try:
            answer = loads_message(raw)
        except CanonicalJsonError as exc:
            raise EtcdError(f"etcd at {endpoint.url} answered what is not JSON") from exc
        return _obj(answer, "answer")

    def close(self) -> None:
        """Close every connection."""
        with self._lock:
            for endpoint in list(self._conns):
                self._drop(endpoint)

    # ------------------------------------------------------------------ keys
    def get(self, key: str) -> KeyValue | None:
        """The key, or None."""
        found = _kvs(self.call("/v3/kv/range", {"key": _key(key)}))
        return found[0] if found else None

    def range_prefix(self, prefix: str, *, keys_only: bool = False) -> Iterator[KeyValue]:
        """Every key starting with `prefix`, in key order, read a page at a time at one revision
        (the first page's), so the walk is one consistent picture. A page whose answer is over
        `Limits.etcd_response_bytes` (large values) is asked again half as long, down to one key:
        a few large values never stop the walk."""
        return self._pages(prefix, keys_only, [0, 0])

    def range_at(self, prefix: str) -> Since:
        """Every key starting with `prefix` (`range_prefix`), at which revision of which cluster."""
        at = [0, 0]
        found = list(self._pages(prefix, False, at))  # the first page sets the revision
        return Since(found, len(found), at[0], str(at[1]))

    def range_back(self, prefix: str) -> Iterator[KeyValue]:
        """The keys starting with `prefix`, the greatest first, a page at a time (each page read
        at the cluster's revision then: a reader of the newest few reads only those)."""
        low, end = _key_bytes(prefix), prefix_end(prefix).encode("latin-1")
        while True:
            answer = self.call(
                "/v3/kv/range",
                {
                    "key": _b64(low),
                    "range_end": _b64(end),
                    "limit": str(self.limits.etcd_range_page),
                    "sort_order": "DESCEND",
                    "sort_target": "KEY",
                },
            )
            page = _kvs(answer)
            for kv in page:  # each before the last, within the range: or the walk never ends
                raw = _key_bytes(kv.key)
                if not low <= raw < end:
                    raise EtcdError(
                        f"etcd answered keys out of order or outside the range asked "
                        f"({shown(kv.key[:80])} reading {shown(prefix)})"
                    )
                end = raw
            yield from page
            if not answer.get("more") or not page:
                return

    def last(self, prefix: str) -> tuple[KeyValue | None, str]:
        """The greatest key starting with `prefix` (None: none) and the id of the cluster that
        answered: one call."""
        answer = self.call(
            "/v3/kv/range",
            {
                "key": _key(prefix),
                "range_end": _b64(prefix_end(prefix)),
                "limit": "1",
                "sort_order": "DESCEND",
                "sort_target": "KEY",
            },
        )
        page = _kvs(answer)
        if page and not _key_bytes(page[0].key).startswith(_key_bytes(prefix)):
            raise EtcdError(
                f"etcd answered a key outside the range asked (reading {shown(prefix)})"
            )
        cluster = str(_int(_obj(answer.get("header", {}), "header"), "cluster_id"))
        return (page[0] if page else None), cluster

    def range_since(self, prefix: str, revision: int) -> Since | None:
        """The keys starting with `prefix` modified after `revision`, how many keys start with it
        in all, at which revision of which cluster: one call, the server filtering. None when more
        changed than one page holds (read the whole prefix instead)."""
        answer = self.call(
            "/v3/kv/range",
            {
                "key": _key(prefix),
                "range_end": _b64(prefix_end(prefix)),
                "limit": str(self.limits.etcd_range_page),
                "min_mod_revision": str(revision + 1),
            },
        )
        if answer.get("more"):
            return None
        header = _obj(answer.get("header", {}), "header")
        return Since(
            _kvs(answer),
            _int(answer, "count"),
            _int(header, "revision"),
            str(_int(header, "cluster_id")),
        )

    def _pages(self, prefix: str, keys_only: bool, at: list[int]) -> Iterator[KeyValue]:
        start, end, revision = prefix, prefix_end(prefix), 0
        limit = self.limits.etcd_range_page
        while True:
            body: dict[str, object] = {
                "key": _key(start),
                "range_end": _b64(end),
                "limit": str(limit),
            }
            if revision:
                body["revision"] = str(revision)
            if keys_only:
                body["keys_only"] = True
            try:
                answer = self.call("/v3/kv/range", body)
            except EtcdAnswerTooLargeError:
                if limit == 1:
                    raise
                limit = max(1, limit // 2)
                continue
            limit = self.limits.etcd_range_page
            if not revision:
                header = _obj(answer.get("header", {}), "header")
                revision = at[0] = _int(header, "revision")
                at[1] = _int(header, "cluster_id")
            page = _kvs(answer)
            for kv in page:  # each after the last, within the range: or the walk never ends
                raw = kv.key.encode("utf-8", "surrogateescape")
                if not _key_bytes(start) <= raw < end.encode("latin-1"):
                    raise EtcdError(
                        f"etcd answered keys out of order or outside the range asked "
                        f"({shown(kv.key[:80])} reading {shown(prefix)})"
                    )
                start = kv.key + "\x00"
            yield from page
            if not answer.get("more") or not page:
                return

    def put(self, key: str, value: bytes, *, lease: int = 0) -> int:
        """Put `value` at `key`; the revision it landed at."""
        body: dict[str, object] = {"key": _key(key), "value": _b64(value)}
        if lease:
            body["lease"] = str(lease)
        answer = self.call("/v3/kv/put", body)
        return _int(_obj(answer.get("header", {}), "header"), "revision")

    def delete(self, key: str, *, prefix: bool = False) -> int:
        """Delete `key` (every key starting with it when `prefix`); how many were deleted."""
        body: dict[str, object] = {"key": _key(key)}
        if prefix:
            body["range_end"] = _b64(prefix_end(key))
        return _int(self.call("/v3/kv/deleterange", body), "deleted")

    def txn(
        self, compares: Sequence[Compare], success: Sequence[Op], failure: Sequence[Op] = ()
    ) -> TxnResult:
        """If every compare holds, run `success`, else `failure`: atomically, at one revision."""
        body: dict[str, object] = {
            "compare": [_compare(c) for c in compares],
            "success": [_op(op) for op in success],
            "failure": [_op(op) for op in failure],
        }
        answer = self.call("/v3/kv/txn", body)
        succeeded = answer.get("succeeded") is True
        reads: list[KeyValue | None] = []
        ranges: list[list[KeyValue]] = []
        responses = answer.get("responses", [])
        if not isinstance(responses, list):
            raise EtcdError("etcd answered bad txn responses")
        for item in responses:
            got = _obj(item, "txn response").get("response_range")
            if got is not None:
                found = _kvs(_obj(got, "range"))
                reads.append(found[0] if found else None)
                ranges.append(found)
        revision = _int(_obj(answer.get("header", {}), "header"), "revision")
        return TxnResult(succeeded, revision, reads, ranges)

    # ------------------------------------------------------------------ leases
    def grant(self, ttl: int) -> Lease:
        """A new lease that lapses `ttl` seconds after its last keepalive."""
        answer = self.call("/v3/lease/grant", {"TTL": str(ttl)})
        return Lease(_int(answer, "ID"), _int(answer, "TTL"))

    def keepalive(self, lease_id: int) -> int:
        """Renew the lease; its TTL now (0: it lapsed or was revoked, and its keys are gone)."""
        answer = self.call("/v3/lease/keepalive", {"ID": str(lease_id)})
        return _int(_obj(answer.get("result", {}), "keepalive result"), "TTL")

    def lease_granted(self, lease_id: int) -> int:
        """The TTL `lease_id` was granted with, in seconds (0: it lapsed, or never was)."""
        answer = self.call("/v3/lease/timetolive", {"ID": str(lease_id)})
        return 0 if _int(answer, "TTL") < 0 else _int(answer, "grantedTTL")

    def revoke(self, lease_id: int) -> bool:
        """Revoke the lease (its keys are deleted); False when it was gone already."""
        try:
            self.call("/v3/lease/revoke", {"ID": str(lease_id)})
        except EtcdError as exc:
            if isinstance(exc, EtcdUnavailableError) or "lease not found" not in exc.message:
                raise
            return False
        return True

    # ------------------------------------------------------------------ who else gets in
    def open_doors(self) -> list[str]:
        """The URLs of this cluster that let in a client presenting no certificate, or that
        could not be checked (fail closed): every member's client and peer URLs as the cluster
        lists them, and the endpoints named. A plain `http://` URL lets anyone in who reaches
        it; an `https://` one is asked for a TLS handshake and an answer without a client
        certificate. A process on the host's network reaches each of them (ADR 0043, amendment
        `attack-agent`)."""
        answer = self.call("/v3/cluster/member/list", {})
        urls = [e.url for e in self.endpoints]
        members = answer.get("members", [])
        for member in members if isinstance(members, list) else []:
            for field in ("clientURLs", "peerURLs"):
                listed = _obj(member, "member").get(field, [])
                if isinstance(listed, list):
                    urls += [url for url in listed if isinstance(url, str)]
        return [url for url in dict.fromkeys(urls) if _lets_in(url, self.limits.etcd_call_s)]

    # ------------------------------------------------------------------ watch
    def watch(self, prefix: str, start_revision: int, *, wait_s: float) -> WatchResult:
        """The changes under `prefix` from `start_revision` on: what the first answer carrying
        events holds (at most `LIMITS.etcd_watch_events`), or none after `wait_s`. One stream, on a
        connection of its own, closed before returning."""
        body = json.dumps(
            {
                "create_request": {
                    "key": _key(prefix),
                    "range_end": _b64(prefix_end(prefix)),
                    "start_revision": str(start_revision),
                }
            }
        ).encode()
        deadline = time.monotonic() + wait_s
        tried: list[str] = []
        for endpoint in self.endpoints:
            conn = self._connect(endpoint)
            # the stream's socket is shut `etcd_call_s` after `wait_s`, however slowly a member
            # dribbles it (each read's timeout alone bounds nothing)
            cut, held = threading.Event(), list[socket.socket]()
            left = max(0.0, deadline - time.monotonic())
            watchdog = threading.Timer(left + self.limits.etcd_call_s, _cut, (held, cut))
            watchdog.daemon = True
            watchdog.start()
            try:
                try:
                    _connect_now(conn)
                    conn.request("POST", "/v3/watch", body=body)
                    if conn.sock is not None:
                        held.append(conn.sock)
                    response = conn.getresponse()
                except (OSError, http.client.HTTPException) as exc:
                    tried.append(f"{endpoint.url} ({_reason(exc, endpoint)})")
                    continue
                try:
                    return self._read_watch(conn, response, start_revision, deadline)
                except TimeoutError:
                    return WatchResult([], start_revision)  # nothing changed within `wait_s`
                except (OSError, http.client.HTTPException, EtcdError) as exc:
                    if cut.is_set():
                        return WatchResult([], start_revision)  # its time is up: as above
                    if isinstance(exc, EtcdError):
                        raise
                    tried.append(f"{endpoint.url} ({_reason(exc, endpoint)})")
            finally:
                watchdog.cancel()
                conn.close()
        raise _unavailable(tried)

    def _read_watch(
        self,
        conn: http.client.HTTPConnection,
        response: http.client.HTTPResponse,
        start: int,
        deadline: float,
    ) -> WatchResult:
        events: list[Event] = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return WatchResult(events, start)
            if conn.sock is not None:
                conn.sock.settimeout(left)
            line = response.readline(self.limits.etcd_line_bytes + 1)
            if not line:
                raise EtcdUnavailableError("etcd closed the watch stream")
            if len(line) > self.limits.etcd_line_bytes:
                raise EtcdError(f"etcd watch line over {self.limits.etcd_line_bytes} bytes")
            try:
                message = _obj(loads_message(line), "watch answer")
            except CanonicalJsonError as exc:
                raise EtcdError("etcd answered a watch line that is not JSON") from exc
            if "error" in message:
                raise EtcdError(f"etcd watch: {shown(str(message.get('error')))}")
            result = _obj(message.get("result", {}), "watch result")
            compacted = _int(result, "compact_revision")
            if compacted:
                raise EtcdError(
                    f"etcd watch: revision {start} is compacted (oldest kept {compacted})",
                    hint="read the prefix again and watch from its revision",
                )
            raw_events = result.get("events", [])
            if not isinstance(raw_events, list):
                raise EtcdError("etcd answered bad watch events")
            for item in raw_events[: self.limits.etcd_watch_events]:
                doc = _obj(item, "event")
                kv = _kv(doc.get("kv", {}))
                kind: Literal["PUT", "DELETE"] = "DELETE" if doc.get("type") == "DELETE" else "PUT"
                events.append(Event(kind, kv.key, kv.value, kv.mod_revision))
            if events:
                cut = len(raw_events) > len(events)  # the rest of the last revision comes again
                last = events[-1].mod_revision
                return WatchResult(events, last if cut else last + 1)
