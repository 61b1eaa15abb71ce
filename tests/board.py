"""`oms web`'s board served from a thread of the test's process (the one home of that set-up)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

from oms.services.web import server
from oms.services.workspace import Workspace


@contextmanager
def board_in_thread(
    opener: Callable[[], AbstractContextManager[Workspace]], person: str | None = None
) -> Iterator[server.Board]:
    """The board on whatever `opener` opens, its actions recorded as `person`'s; shut down after."""
    served = server.serve(0, opener, person=person)
    thread = threading.Thread(target=served.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        served.shutdown()
        served.server_close()
        thread.join()
