"""A board served in this process, on a chain's state (the tests of `tests/security/web/`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from oms.services.web import server
from tests.board import board_in_thread
from tests.chain import Chain


@pytest.fixture
def board(chain: Chain) -> Iterator[server.Board]:
    with board_in_thread(chain.workspace, person="Zoë Reviewer") as served:
        yield served
