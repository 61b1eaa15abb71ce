"""An encrypted client key named in the person's `oms/etcd.toml` (ADR 0043, amendment `etcdtls`;
the settings ask for an unencrypted one). oms loaded it with OpenSSL's own pass phrase prompt:
on a terminal every command that loads the settings — `oms doctor`, `oms status`, `oms ticket
add|list` — printed `Enter PEM pass phrase:` and waited there (a process in a pane, for ever);
with no terminal it failed with a bare `OSError: [Errno 22] Invalid argument`, an internal error
that named neither the file nor the fix, and took `oms doctor`'s every other line with it. Now the
key is never prompted for: it is one line naming the settings file and the fix (ADR 0007), and
`oms doctor` says it on its `etcd tls` line."""

from __future__ import annotations

import fcntl
import json
import os
import select
import subprocess
import termios
import time
from pathlib import Path

from cryptography.hazmat.primitives import serialization

from tests.chain import Chain
from tests.helpers import OmsCommand
from tests.tls_certs import authority, leaf

DEADLINE_S = 60.0
PROMPT = b"Enter PEM pass phrase"  # OpenSSL's own, on the controlling terminal


def _settings(tmp_path: Path) -> dict[str, str]:
    """The person's settings naming a client key encrypted with a pass phrase; the environment
    that makes oms read them."""
    ca = authority(tmp_path, "ca")
    client = leaf(ca, tmp_path, "client", server=False)
    key = serialization.load_pem_private_key(client.key.read_bytes(), None)
    encrypted = tmp_path / "client-encrypted.key"
    encrypted.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"a pass phrase"),
        )
    )
    encrypted.chmod(0o600)
    home = tmp_path / "config"
    (home / "oms").mkdir(parents=True)
    (home / "oms" / "etcd.toml").write_text(
        f'[tls]\nca = "{ca.cert_path}"\ncert = "{client.cert}"\nkey = "{encrypted}"\n'
    )
    return {**os.environ, "XDG_CONFIG_HOME": str(home)}


def _doctor(oms: OmsCommand, chain: Chain) -> list[str]:
    return [*oms.argv, "doctor", "--state-root", str(chain.state), "--json"]


def test_with_no_terminal_doctor_names_the_encrypted_key(
    chain: Chain, oms: OmsCommand, tmp_path: Path
) -> None:
    env = _settings(tmp_path)
    done = subprocess.run(  # a session of its own: no controlling terminal to prompt on
        _doctor(oms, chain),
        capture_output=True,
        text=True,
        env=env,
        cwd=chain.repo,
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        timeout=DEADLINE_S,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    doc = json.loads(done.stdout)
    assert "checks" in doc, doc  # the report, not an internal error
    [line] = [c for c in doc["checks"] if c["check"] == "etcd tls"]
    assert line["ok"] is False
    assert "the client key is encrypted" in str(line["detail"]), line
    assert str(Path(env["XDG_CONFIG_HOME"]) / "oms" / "etcd.toml") in str(line["detail"]), line
    assert "unencrypted" in str(line["fix"]), line


def _on_a_terminal() -> None:
    """In the child: the pty on stdin becomes its controlling terminal (it leads a new session)."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def test_on_a_terminal_nothing_is_prompted_for(
    chain: Chain, oms: OmsCommand, tmp_path: Path
) -> None:
    env = _settings(tmp_path)
    master, slave = os.openpty()
    proc = subprocess.Popen(
        _doctor(oms, chain),
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=chain.repo,
        start_new_session=True,
        preexec_fn=_on_a_terminal,  # noqa: PLW1509 - the one way to give it a terminal
    )
    os.close(slave)
    said = b""
    deadline = time.monotonic() + DEADLINE_S
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    said += os.read(master, 65536)
                except OSError:  # the child closed the terminal
                    break
            if PROMPT in said:
                break  # it waits on the terminal for the person to type it
        assert PROMPT not in said, said
        assert proc.wait(timeout=max(1.0, deadline - time.monotonic())) is not None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            said += chunk
        os.close(master)
    assert b"the client key is encrypted" in said, said
