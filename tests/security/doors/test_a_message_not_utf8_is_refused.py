"""A message that is not UTF-8 is refused in one line, and nothing is recorded or typed
(SECURITY.md "Talk to an agent"): an argument with bytes that are not UTF-8 reaches Python as lone
surrogates (`surrogateescape`); `oms worker send` neither records nor types them, nor ends in a
traceback."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.chain import Chain
from tests.integration.test_worker_send import _heard, _listening, _messages, _roots


def test_an_argument_not_utf8_is_refused_and_nothing_typed(deliverable: Chain) -> None:
    dispatch_id = _listening(deliverable)
    argv = [sys.executable, "-m", "oms", "worker", "send", dispatch_id, "caf\udce9 \udcff!"]
    argv += ["--person", "tester", *_roots(deliverable)]
    done = subprocess.run(
        [os.fsencode(a) for a in argv], capture_output=True, check=False, timeout=120
    )
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 1, err
    assert "Traceback" not in err
    assert err.splitlines()[0] == "oms: error: the message is not UTF-8 (character 3)", err
    assert _messages(deliverable) == []
    assert _heard(deliverable, dispatch_id).read_bytes() == b""


def test_a_person_not_utf8_is_refused(deliverable: Chain) -> None:
    dispatch_id = _listening(deliverable)
    argv = [sys.executable, "-m", "oms", "worker", "send", dispatch_id, "hello"]
    argv += ["--person", "Zo\udceb", *_roots(deliverable)]
    done = subprocess.run(
        [os.fsencode(a) for a in argv], capture_output=True, check=False, timeout=120
    )
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 1, err
    assert err.splitlines()[0] == "oms: error: the person's name is not UTF-8 (character 2)", err
    assert _messages(deliverable) == []
