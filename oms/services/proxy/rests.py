"""A resting provider is rested at the proxy (issue 24 item 3, ADR 0028): asked on every request.

The provider's standing is read from the store on every request (a rest the proxy recorded itself,
the conductor's, a person's `oms provider rest|clear`), so a rest takes effect from the request
after it is written. While it lasts, every request for the provider is answered at the proxy — a 429
with `retry-after` (and `x-should-retry: false` for a quota's or any rest longer than a minute: the
conductor parks the worker until the reset) — and nothing is forwarded.

Once a rest has ended, one request at a time goes upstream as a probe until one is answered with no
limit: during a 429 storm every probe's 429 starts the next rest, so the upstream sees at most one
request per rest; the others are told to retry in a second. What was proven is kept in memory (a
restarted proxy probes again).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from oms.domain import proxy_limits as limits
from oms.domain.routing import Standing
from oms.errors import OmsError, ResourcesShortError
from oms.fsio import Root
from oms.services.chain import providers
from oms.store.backend import Backend
from oms.store.records import RecordStore

PROBE_BUSY = limits.Resting(1, True, "another request asks the provider whether its rest is over")


class Rests:
    """The providers' rests as the proxy applies them, and the probe in flight of each."""

    def __init__(self, root: Root, backend: Backend | None = None) -> None:
        self._records = RecordStore(root, providers.KIND, backend=backend)
        self._lock = threading.Lock()
        self._probing: set[str] = set()
        self._proven: dict[str, str] = {}  # provider -> the end of the rest an answer proved over

    def resting(self, provider_id: str, now: str) -> limits.Resting | None:
        """The answer to give at the proxy while the provider rests, else None (asked first, before
        a request's body is read)."""
        standing = self._standing(provider_id)
        until, kind = standing.cooldown_until, standing.cooldown_kind
        return limits.resting(until, kind, standing.cooldown_reason, now)

    @contextmanager
    def probe(self, provider_id: str, now: str) -> Iterator[limits.Resting | None]:
        """Around a request about to go upstream (its body read, its budget checked): the answer to
        give at the proxy instead — the provider rests, or another request is its probe — else None
        (the request goes; it is the probe if the last rest ended unproven: `answered` proves it
        over)."""
        standing = self._standing(provider_id)
        ended = standing.cooldown_until
        resting = limits.resting(ended, standing.cooldown_kind, standing.cooldown_reason, now)
        if resting is not None or ended is None:
            yield resting
            return
        with self._lock:
            if self._proven.get(provider_id) == ended:
                probe = False
            elif provider_id in self._probing:
                probe = None
            else:
                probe = True
                self._probing.add(provider_id)
        if probe is None:
            yield PROBE_BUSY
            return
        try:
            yield None
        finally:
            if probe:
                with self._lock:
                    self._probing.discard(provider_id)

    def _standing(self, provider_id: str) -> Standing:
        """Raises `ResourcesShortError` when the record could not be opened for want of
        descriptors or memory: that is not "not resting" (the caller answers "retry")."""
        try:
            record = self._records.read_if_exists(provider_id)
        except ResourcesShortError:
            raise
        except OmsError:
            record = None  # (`oms store verify` names it; forwarded as if nothing were known)
        return providers.standing_of(record)

    def answered(self, provider_id: str, now: str) -> None:
        """The upstream answered with no limit: the provider's last rest is over (no more
        probing)."""
        try:
            ended = self._standing(provider_id).cooldown_until
        except ResourcesShortError:
            return  # not proven now: the next request probes again
        if ended is not None and limits.resting(ended, None, None, now) is None:
            with self._lock:
                self._proven[provider_id] = ended
