"""The MCP message handler (pure): negotiation, errors, batches, result shapes, and a fuzzer."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from oms.domain import mcp

TOOL = mcp.Tool(
    "read_dispatch",
    "Read dispatch",
    "Read it.",
    {"type": "object", "properties": {}, "additionalProperties": False},
    {"type": "object"},
    {"readOnlyHint": True},
)


def _session(calls: list[tuple[str, dict[str, Any]]] | None = None) -> mcp.Session:
    seen = calls if calls is not None else []

    def call(name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        seen.append((name, arguments))
        return (
            ({"error": "bad"}, True)
            if arguments.get("fail")
            else ({"ok": True, "text": "é\u2028"}, False)
        )

    return mcp.Session("srv", "1.0", "hello", {TOOL.name: TOOL}, call)


def _one(session: mcp.Session, message: Any) -> dict[str, Any]:
    replies = mcp.handle_line(session, json.dumps(message).encode())
    assert len(replies) == 1
    reply = replies[0]
    assert isinstance(reply, dict)
    return reply


def _init(session: mcp.Session, version: Any = "2025-11-25") -> dict[str, Any]:
    return _one(
        session,
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": version}},
    )


def test_versions_are_echoed_or_answered_with_the_latest() -> None:
    for version in mcp.SUPPORTED:
        assert _init(_session(), version)["result"]["protocolVersion"] == version
    for other in ("2026-07-28", "2024-10-07", "", None, 5):
        assert _init(_session(), other)["result"]["protocolVersion"] == mcp.LATEST


def test_order_and_method_errors() -> None:
    session = _session()
    early = _one(
        session,
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "read_dispatch"}},
    )
    assert early["error"]["code"] == mcp.INVALID_REQUEST
    assert _one(session, {"jsonrpc": "2.0", "id": 2, "method": "server/discover"})["error"] == {
        "code": -32601,
        "message": "Method not found",
        "data": "server/discover",
    }
    _init(session)
    assert _one(session, {"jsonrpc": "2.0", "id": "p", "method": "ping"}) == {
        "jsonrpc": "2.0",
        "id": "p",
        "result": {},
    }
    assert (
        _one(session, {"jsonrpc": "2.0", "id": 3, "method": "prompts/list"})["error"]["code"]
        == -32601
    )
    unknown = _one(
        session, {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "rm"}}
    )
    assert unknown["error"]["code"] == mcp.INVALID_PARAMS
    assert mcp.handle_line(session, b'{"jsonrpc":"2.0","method":"notifications/initialized"}') == []
    assert (
        mcp.handle_line(session, b'{"jsonrpc":"2.0","id":9,"result":{}}') == []
    )  # a stray response
    for bad_id in ("null", "true", "1.5", "[1]", "{}"):
        reply = mcp.handle_line(
            session, f'{{"jsonrpc":"2.0","id":{bad_id},"method":"ping"}}'.encode()
        )[0]
        assert isinstance(reply, dict)
        assert reply["error"]["code"] in (mcp.INVALID_REQUEST, mcp.PARSE_ERROR)
    assert (
        _one(session, {"jsonrpc": "1.0", "id": 5, "method": "ping"})["error"]["code"]
        == mcp.INVALID_REQUEST
    )
    params = _one(session, {"jsonrpc": "2.0", "id": 6, "method": "ping", "params": [1]})
    assert params["error"]["code"] == mcp.INVALID_PARAMS


def test_batches_only_in_2025_03_26_and_answered_as_one_array() -> None:
    batch = (
        b'[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"},'
        b'{"jsonrpc":"2.0","id":2,"method":"x"}]'
    )
    modern = _session()
    _init(modern, "2025-06-18")
    assert mcp.handle_line(modern, batch)[0] == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": mcp.INVALID_REQUEST,
            "message": "Batches are not supported in this protocol version",
        },
    }
    old = _session()
    _init(old, "2025-03-26")
    (answer,) = mcp.handle_line(old, batch)
    assert isinstance(answer, list)
    assert [r["id"] for r in answer] == [1, 2]
    assert mcp.handle_line(old, b'[{"jsonrpc":"2.0","method":"n"}]') == []
    assert mcp.handle_line(old, b"[]")[0] == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": mcp.INVALID_REQUEST,
            "message": "Batches are not supported in this protocol version",
        },
    }


def test_results_mirror_structured_content_and_drop_new_fields_for_old_versions() -> None:
    for version, modern in (
        ("2024-11-05", False),
        ("2025-03-26", False),
        ("2025-06-18", True),
        ("2025-11-25", True),
    ):
        calls: list[tuple[str, dict[str, Any]]] = []
        session = _session(calls)
        _init(session, version)
        listed = _one(session, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})["result"][
            "tools"
        ][0]
        assert ("title" in listed, "outputSchema" in listed) == (modern, modern)
        ok = _one(
            session,
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "read_dispatch"},
            },
        )
        result = ok["result"]
        assert result["isError"] is False
        assert json.loads(result["content"][0]["text"]) == {"ok": True, "text": "é\u2028"}
        assert ("structuredContent" in result) == modern
        failed = _one(
            session,
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {"name": "read_dispatch", "arguments": {"fail": 1}},
            },
        )["result"]
        assert failed["isError"] is True
        assert "structuredContent" not in failed
        wrong = _one(
            session,
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "tools/call",
                "params": {"name": "read_dispatch", "arguments": [1]},
            },
        )["result"]
        assert wrong["isError"] is True
        assert calls == [("read_dispatch", {}), ("read_dispatch", {"fail": 1})]


def test_encoding_is_one_ascii_line() -> None:
    line = mcp.encode({"jsonrpc": "2.0", "id": 1, "result": {"t": "a\nb\u2028c\u2029é"}})
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    assert all(b < 0x80 for b in line)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)
methods = st.sampled_from(
    ["initialize", "ping", "tools/list", "tools/call", "server/discover", "x/y", ""]
) | st.text(max_size=20)
messages = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.sampled_from(["2.0", "1.0"]) | json_values,
        "id": st.integers() | st.text(max_size=10) | json_values,
        "method": methods | json_values,
        "params": st.fixed_dictionaries(
            {},
            optional={
                "name": st.sampled_from(["read_dispatch", "nope"]) | json_values,
                "arguments": json_values,
                "protocolVersion": st.sampled_from(mcp.SUPPORTED) | json_values,
            },
        )
        | json_values,
    },
)


def _line(message: Any) -> bytes:
    return json.dumps(message).encode()


lines = (
    messages.map(_line)
    | st.lists(messages, max_size=4).map(_line)
    | st.binary(max_size=200)
    | json_values.map(_line)
    | st.text(max_size=100).map(lambda t: t.encode("utf-8", "surrogatepass"))
)


@settings(max_examples=600, deadline=None)
@given(st.lists(lines, min_size=1, max_size=8))
def test_any_line_gets_a_well_formed_answer_and_never_raises(received: list[bytes]) -> None:
    session = _session()
    for line in received:
        for reply in mcp.handle_line(session, line):
            items = reply if isinstance(reply, list) else [reply]
            assert items
            for item in items:
                assert item["jsonrpc"] == "2.0"
                assert ("result" in item) != ("error" in item)
                assert item["id"] is None or isinstance(item["id"], str | int)
                if "error" in item:
                    assert isinstance(item["error"]["code"], int)
                    assert isinstance(item["error"]["message"], str)
            encoded = mcp.encode(reply)
            assert encoded.count(b"\n") == 1
            assert all(b < 0x80 for b in encoded)
