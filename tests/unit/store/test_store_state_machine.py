"""Stateful property test of versioned records.

Several clients hold views of one record that may be stale (this is how interleaved writers look to
the store). They transition with their view as `expected_version`, replay earlier operations, and
refresh. After every step the store must agree with a simple model: contiguous versions, a linked
hash chain, every operation id applied exactly once, a replay of the same change returns the
original version, the same operation id asked for any other change (another expected version or
state) is an `OperationConflictError` that writes nothing, and the op index covers every version but
the latest.
"""

from __future__ import annotations

import shutil
import tempfile

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from oms.canonical import now
from oms.errors import OperationConflictError, VersionConflictError
from oms.store import StateRoot, Store
from oms.store.records import OPS_DIR
from tests.helpers import payload, ts

STATES = ("idle", "working", "done", "blocked")


class RecordMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = tempfile.mkdtemp(prefix="oms-sm-")
        state, _ = StateRoot.create(f"{self.dir}/state", now())
        state.close()
        self.store = Store.open(f"{self.dir}/state")
        self.records = self.store.records("worker")
        self.model: list[tuple[str, str]] = []  # (operation id, state) per version
        self.expected: list[int | None] = []  # the expected version each version was written with
        self.views = [0, 0, 0]
        self.clock = 0
        self.next_op = 0

    def teardown(self) -> None:
        self.store.close()
        shutil.rmtree(self.dir)

    def _tick(self) -> str:
        self.clock += 1
        return ts(self.clock)

    @initialize()
    def create(self) -> None:
        res = self.records.create(
            "dsp-1",
            state="idle",
            payload=payload("worker"),
            operation_id="op-c",
            actor="oms-system",
            observed_at=self._tick(),
        )
        assert not res.replayed
        self.model.append(("op-c", "idle"))
        self.expected.append(None)

    @rule(client=st.integers(0, 2), new_state=st.sampled_from(STATES))
    def transition(self, client: int, new_state: str) -> None:
        op = f"op-{self.next_op}"
        self.next_op += 1
        expected = self.views[client]
        latest = len(self.model) - 1
        try:
            res = self.records.transition(
                "dsp-1",
                expected_version=expected,
                state=new_state,
                payload=payload("worker"),
                operation_id=op,
                actor="oms-system",
                observed_at=self._tick(),
            )
        except VersionConflictError as exc:
            assert not isinstance(exc, OperationConflictError)
            assert expected != latest
            assert (exc.expected, exc.actual) == (expected, latest)
            return
        assert expected == latest
        assert not res.replayed
        assert res.record.version == latest + 1
        self.model.append((op, new_state))
        self.expected.append(expected)
        self.views[client] = res.record.version

    @precondition(lambda self: len(self.model) > 1)
    @rule(data=st.data(), client=st.integers(0, 2), other_state=st.sampled_from(STATES))
    def replay(self, data: st.DataObject, client: int, other_state: str) -> None:
        version = data.draw(st.integers(0, len(self.model) - 1))
        op, state = self.model[version]
        same = data.draw(
            st.booleans()
        )  # the change exactly as first asked, or as a stale client sees it
        expected = (
            self.expected[version] if same else (None if version == 0 else self.views[client])
        )
        asked = state if same else other_state
        before = len(self.model)

        def write() -> tuple[object, bool]:
            if version == 0:
                res = self.records.create(
                    "dsp-1",
                    state=asked,
                    payload=payload("worker"),
                    operation_id=op,
                    actor="oms-system",
                    observed_at=self._tick(),
                )
            else:
                assert expected is not None
                res = self.records.transition(
                    "dsp-1",
                    expected_version=expected,
                    state=asked,
                    payload=payload("worker"),
                    operation_id=op,
                    actor="oms-system",
                    observed_at=self._tick(),
                )
            return res.record, res.replayed

        if (expected, asked) == (self.expected[version], state):
            record, replayed = write()
            assert replayed
            assert (record.version, record.operation_id) == (version, op)  # type: ignore[attr-defined]
        else:
            try:
                write()
            except OperationConflictError as exc:
                assert (exc.operation_id, exc.actual) == (op, version)
            else:
                raise AssertionError("a different change under a used operation id was not refused")
        assert len(self.model) == before

    @rule(client=st.integers(0, 2))
    def refresh(self, client: int) -> None:
        self.views[client] = self.records.read("dsp-1").version

    @invariant()
    def store_matches_model(self) -> None:
        history = self.records.history("dsp-1")  # raises on gaps or broken links
        assert [(r.operation_id, r.state) for r in history] == self.model
        ops = [r.operation_id for r in history]
        assert len(ops) == len(set(ops))
        indexed = (
            set(self.store.state.root.listdir(f"records/worker/dsp-1/{OPS_DIR}"))
            if len(history) > 1
            else set()
        )
        assert {f"{op}.json" for op in ops[:-1]} <= indexed


TestRecordMachine = RecordMachine.TestCase
TestRecordMachine.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)
