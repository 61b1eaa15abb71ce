"""A deliverer process for the concurrency test: tries every event (in its own order) until each has
a receipt.

Usage: python -m tests.integration.deliver_child STATE REPO SEED EVENT...
Prints one line per event it processed itself: `<event> <outcome status>`; then `done <lock waits>`.
"""

from __future__ import annotations

import random
import sys

from oms.errors import LockHeldError
from oms.services.delivery.service import Delivery
from oms.services.workspace import Workspace


def main() -> None:
    state, repo, seed, *events = sys.argv[1:]
    order = list(events)
    random.Random(seed).shuffle(order)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    sys.stdin.readline()
    waits = 0
    pending = order
    with Workspace.open(state, repo) as ws:
        delivery = Delivery.open(ws)
        while pending:
            retry = []
            for event_id in pending:
                try:
                    result = delivery.deliver(event_id)
                except LockHeldError:
                    waits += 1
                    retry.append(event_id)
                    continue
                if result["status"] == "processed":
                    outcome = result["outcome"]
                    assert isinstance(outcome, dict)
                    sys.stdout.write(f"{event_id} {outcome['status']}\n")
            pending = retry
    sys.stdout.write(f"done {waits}\n")


if __name__ == "__main__":
    main()
