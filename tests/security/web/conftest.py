"""A board served in this process, on a chain's state (the tests of `tests/security/web/`)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from oms.services.web import server
from tests.chain import Chain


@pytest.fixture
def board(chain: Chain) -> Iterator[server.Board]:
    served = server.serve(0, chain.workspace, person="Zoë Reviewer")
    thread = threading.Thread(target=served.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        served.shutdown()
        served.server_close()
        thread.join()
