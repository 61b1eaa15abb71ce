"""The record kinds' payloads as TypedDicts and their states as StrEnums, generated from the schemas
(`_generated/payloads.py`, `build/gen_payloads.py`; docs/adr/0044-typed-payloads.md). A record's
payload typed is `oms/store/payloads.py`'s (`worker_payload(record)`, ...)."""

from __future__ import annotations

from oms.schemas._generated.payloads import *  # noqa: F403
from oms.schemas._generated.payloads import __all__ as __all__  # noqa: PLC0414 (re-exported)
