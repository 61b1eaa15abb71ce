"""The attack an agent runs from inside its worker's sandbox against oms's authority store on etcd
(`tests/security/etcd/test_an_agent_inside_its_sandbox.py`).

`ATTACK` is a Python program run by oms's own interpreter (shown read-only in every sandbox) as a
command worker. It is told nothing: what it aims at it finds where an agent can look — the
committed `[store]` in its own worktree (`.oms/config.toml`: the endpoints and the prefix), the
listening sockets of `/proc/net/tcp`, its environment, descriptors and home. It also asks its two
doors (`oms worker bridge`, `oms hook provider`, relayed to its broker) to act for another
dispatch. Each attempt is
`blocked` (an `OSError`, a refusal) or `reached` (with what it saw); the whole report is written
to `$HOME/etcd-attack.json`, which the test reads from the host.
"""

from __future__ import annotations

ATTACK = r'''
import base64, http.client, json, os, socket, ssl, subprocess, sys, tomllib

HOME = os.environ.get("HOME", "/oms/home")
MARK = sys.argv[1]  # the key the attack plants is named after this (searched from the host)
# `named`: only the members the committed [store] names (other clusters of the machine are not the
# test's); else every loopback port listening too
NAMED = sys.argv[2:] == ["named"]
RESULTS = {}


class Blocked(Exception):
    pass


def said(exc):
    return (type(exc).__name__ + ": " + str(exc))[:400]


def attempt(name, fn):
    try:
        detail = fn()
    except (OSError, Blocked, ssl.SSLError, http.client.HTTPException) as exc:
        RESULTS[name] = {"outcome": "blocked", "detail": said(exc)}
    except Exception as exc:  # a bug of the attack: never counted as blocked
        RESULTS[name] = {"outcome": "error", "detail": said(exc)}
    else:
        RESULTS[name] = {"outcome": "reached", "detail": str(detail)[:1500]}


def b64(raw):
    return base64.b64encode(raw if isinstance(raw, bytes) else raw.encode()).decode()


def committed():
    with open(os.path.join(os.getcwd(), ".oms", "config.toml"), "rb") as f:
        store = tomllib.load(f).get("store", {})
    return list(store.get("endpoints", [])), store.get("prefix", "/oms/")


ENDPOINTS, PREFIX = committed()


def listening():
    """Loopback TCP ports something listens on, as this namespace's /proc/net/tcp shows them."""
    ports = []
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, port = local.split(":")
            if state == "0A" and address in ("0100007F", "00000000"):
                ports.append(int(port, 16))
    return sorted(ports)


def targets():
    """(host, port, tls) of every member the committed endpoints name and every loopback port
    listening."""
    out = []
    for url in ENDPOINTS:
        scheme, rest = url.split("://", 1)
        host, port = rest.rstrip("/").rsplit(":", 1)
        out.append((host, int(port), scheme == "https"))
    if NAMED:
        return out
    try:
        out += [("127.0.0.1", p, False) for p in listening() if ("127.0.0.1", p, False) not in out]
    except OSError:
        pass
    return out


def call(target, path, body):
    host, port, tls = target
    if tls:  # no client certificate: the agent has none
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        conn = http.client.HTTPSConnection(host, port, timeout=5, context=context)
    else:
        conn = http.client.HTTPConnection(host, port, timeout=5)
    try:
        conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        answer = conn.getresponse()
        data = answer.read(1 << 20)
    finally:
        conn.close()
    if answer.status != 200:
        raise Blocked("HTTP %d: %s" % (answer.status, data[:200]))
    doc = json.loads(data)
    if "error" in doc or "code" in doc and "header" not in doc:
        raise Blocked("refused: %s" % str(doc)[:200])
    return doc


def member():
    """The first target that answers a range as etcd does."""
    reasons = []
    for target in targets():
        try:
            call(target, "/v3/kv/range", {"key": b64("\0"), "limit": "1"})
            return target
        except (OSError, Blocked, ssl.SSLError, http.client.HTTPException, ValueError) as exc:
            reasons.append("%s:%s %s" % (target[0], target[1], said(exc)[:120]))
    raise Blocked("no etcd member answered: " + "; ".join(reasons)[:1000])


def keys(target):
    end = PREFIX[:-1] + chr(ord(PREFIX[-1]) + 1)
    asked = {"key": b64(PREFIX), "range_end": b64(end), "keys_only": True}
    doc = call(target, "/v3/kv/range", asked)
    return [base64.b64decode(kv["key"]).decode("utf-8", "replace") for kv in doc.get("kvs", [])]


def env_and_files():
    """What the environment, descriptors and home give of the cluster."""
    seen = {}
    for name, value in os.environ.items():
        if "ETCD" in name.upper() or "://" in value or name.upper().startswith("OMS_"):
            seen["env " + name] = value[:200]
    for n in os.listdir("/proc/self/fd"):
        try:
            seen["fd " + n] = os.readlink("/proc/self/fd/" + n)
        except OSError:
            pass
    for top in (HOME, os.path.join(HOME, ".config")):
        for dirpath, _dirs, files in os.walk(top):
            for name in files:
                if "etcd" in name or name.endswith((".key", ".pem", ".crt")):
                    seen["file " + os.path.join(dirpath, name)] = "present"
    return seen


RESULTS["seen"] = {"outcome": "info", "detail": json.dumps(env_and_files())[:1500]}
RESULTS["endpoints"] = {"outcome": "info", "detail": json.dumps([ENDPOINTS, PREFIX])}

state = {}


def connect():
    host, port, _tls = targets()[0]
    with socket.create_connection((host, port), timeout=5):
        return "connected to %s:%d" % (host, port)


def find():
    state["member"] = member()
    return state["member"]


def need():
    if "member" not in state:
        raise Blocked("no member reached")
    return state["member"]


def read_all():
    found = keys(need())
    if not found:
        raise Blocked("the prefix holds no key it could read")
    return "%d keys, e.g. %s" % (len(found), [k for k in found if "ticket" in k][:5] or found[:5])


def read_bodies():
    found = [k for k in keys(need()) if "/content/" in k or "body" in k or "/ledger" in k]
    if not found:
        raise Blocked("no ticket body or ledger key read")
    return found[:10]


def plant():
    call(need(), "/v3/kv/put", {"key": b64(PREFIX + MARK), "value": b64("planted by the agent")})
    return "put " + PREFIX + MARK


def take_lock():
    key = PREFIX + "locks/" + MARK
    call(need(), "/v3/kv/put", {"key": b64(key), "value": b64("the agent")})
    return "put " + key


def delete():
    key = PREFIX + "locks/" + MARK
    doc = call(need(), "/v3/kv/deleterange", {"key": b64(key)})
    return "deleted %s keys" % doc.get("deleted", "0")


def leases():
    doc = call(need(), "/v3/lease/leases", {})
    granted = call(need(), "/v3/lease/grant", {"TTL": "30"})
    revoked = call(need(), "/v3/lease/revoke", {"ID": granted["ID"]})
    return "leases %s; granted and revoked %s" % (doc.get("leases", []), granted["ID"])


OTHER = "dsp-" + "f" * 32  # another dispatch (any id not this worker's)
EXE = os.environ.get("OMS_EXECUTABLE", "oms")
SESSION = os.environ.get("OMS_SESSION_ID", "")
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "attacker", "version": "1"}}}


def relay(argv, stdin):
    done = subprocess.run(argv, input=stdin, capture_output=True, timeout=60)
    return done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode(
        "utf-8", "replace"
    )


def bridge_as_another():
    """The MCP bridge asked to act for another dispatch: read it, record a result for it."""
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "record_result", "arguments": {"status": "failed", "summary": MARK}}}
    lines = [INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"}, call]
    stdin = "".join(json.dumps(line) + "\n" for line in lines).encode()
    argv = [EXE, "worker", "bridge", "--dispatch-id", OTHER, "--session-id", SESSION]
    code, out, err = relay(argv, stdin)
    if code != 0 or '"result"' not in out:
        raise Blocked("exit %d: %s" % (code, (out + err).strip()[-300:]))
    return out[-600:]


def hook_as_another():
    """A SessionStart hook for another dispatch: oms would answer it with that dispatch's task."""
    body = json.dumps({"hook_event_name": "SessionStart", "session_id": SESSION,
                       "source": "startup"}).encode()
    argv = [EXE, "hook", "provider", "--event", "SessionStart", "--provider", "command",
            "--provider-version", "command-1", "--dispatch-id", OTHER, "--session-id", SESSION,
            "--allowed-tools", ""]
    code, out, err = relay(argv, body)
    if code != 0 or "read_dispatch" not in out:
        raise Blocked("exit %d: %s" % (code, (out + err).strip()[-300:]))
    return out[-600:]


attempt("the bridge for another dispatch", bridge_as_another)
attempt("a hook for another dispatch", hook_as_another)
attempt("tcp connect to a member", connect)
attempt("an etcd member answers", find)
attempt("read the prefix's keys", read_all)
attempt("read ticket bodies or the ledger", read_bodies)
attempt("put a key", plant)
attempt("take a lock", take_lock)
attempt("delete a key", delete)
attempt("list, grant and revoke leases", leases)

with open(os.path.join(HOME, "etcd-attack.json.tmp"), "w") as f:
    json.dump(RESULTS, f)
os.rename(os.path.join(HOME, "etcd-attack.json.tmp"), os.path.join(HOME, "etcd-attack.json"))
'''
