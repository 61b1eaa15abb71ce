"""A person confirms on a real terminal: `oms live authorize` on a pseudo-terminal."""

from __future__ import annotations

import getpass
import json
import os
import pty
import subprocess
import time

import pytest

from tests.chain import Chain
from tests.helpers import OmsCommand

pytestmark = pytest.mark.cli


def _on_a_tty(oms: OmsCommand, chain: Chain, answer: str) -> tuple[int, str]:
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [
            *oms.argv,
            "live",
            "authorize",
            "--repository",
            "o/r",
            "--state-root",
            str(chain.state),
            "--config-root",
            str(chain.repo),
        ],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        close_fds=True,
    )
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 60
    while b"to confirm" not in seen and time.monotonic() < deadline:
        seen += os.read(master, 4096)
    os.write(master, answer.encode() + b"\n")
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    return proc.wait(timeout=60), seen.decode("utf-8", "replace")


def test_person_types_the_repository_name(oms: OmsCommand, chain: Chain) -> None:
    code, output = _on_a_tty(oms, chain, "o/r")
    assert code == 0, output
    assert "authorised by" in output
    status = oms.run(
        "live",
        "status",
        "--json",
        "--state-root",
        str(chain.state),
        "--config-root",
        str(chain.repo),
    )
    [auth] = json.loads(status.stdout)["authorizations"]
    assert (auth["confirmed_by"], auth["person"]) == ("tty", getpass.getuser())


def test_wrong_confirmation_records_nothing(oms: OmsCommand, chain: Chain) -> None:
    code, output = _on_a_tty(oms, chain, "o/other")
    assert code == 2
    assert "did not match" in output
    status = oms.run(
        "live",
        "status",
        "--json",
        "--state-root",
        str(chain.state),
        "--config-root",
        str(chain.repo),
    )
    assert json.loads(status.stdout)["authorizations"] == []
