"""Conformance of `oms worker bridge` with real MCP clients (ADR 0011 "MCP bridge"): the official
Python SDK (`ClientSession`, and `mcp.Client` in auto mode, which probes `server/discover` first),
the SDK's own result models for every protocol version, and the MCP Inspector CLI (npm, installed by
.ci/setup)."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import anyio
import mcp
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types.methods import parse_server_result

from tests.agent_side import Bound, RawClient, bind
from tests.chain import Chain
from tests.helpers import REPO, OmsCommand

INSPECTOR = REPO / ".ci" / "node" / "node_modules" / ".bin" / "mcp-inspector"
TOOLS = ["read_dispatch", "acknowledge_dispatch", "record_dispatch_result"]


@pytest.fixture
def bound(chain: Chain) -> Bound:
    return bind(chain)


def _params(oms: OmsCommand, bound: Bound) -> StdioServerParameters:
    return StdioServerParameters(
        command=oms.argv[0],
        args=[*oms.argv[1:], *bound.bridge_args()],
        env=bound.env(),
        cwd=str(bound.worktree),
    )


def test_sdk_client_session(oms: OmsCommand, bound: Bound) -> None:
    seen: dict[str, Any] = {}

    async def main() -> None:
        async with (
            stdio_client(_params(oms, bound)) as (read, write),
            ClientSession(read, write) as session,
        ):
            init = await session.initialize()
            seen["version"] = init.protocol_version
            seen["server"] = init.server_info.name
            listed = await session.list_tools()
            seen["tools"] = [t.name for t in listed.tools]
            seen["output_schemas"] = all(t.output_schema for t in listed.tools)
            read_result = await session.call_tool("read_dispatch", {})
            seen["read"] = (read_result.is_error, read_result.structured_content)
            ack = await session.call_tool("acknowledge_dispatch", {})
            seen["ack"] = (ack.is_error, ack.structured_content)
            bad = await session.call_tool("record_dispatch_result", {"status": "nope"})
            seen["bad"] = bad.is_error
            try:
                await session.call_tool("no_such_tool", {})
            except mcp.MCPError as exc:
                seen["unknown"] = exc.error.code

    anyio.run(main)
    assert (seen["version"], seen["server"]) == ("2025-11-25", "oms-worker-bridge")
    assert seen["tools"] == TOOLS
    assert seen["output_schemas"]
    is_error, content = seen["read"]
    assert is_error is False
    assert content["dispatch_id"] == bound.dispatch_id
    assert seen["ack"] == (
        False,
        {"dispatch_id": bound.dispatch_id, "state": "acknowledged", "already": False},
    )
    assert seen["bad"] is True
    assert seen["unknown"] == -32602


def test_sdk_client_auto_mode_falls_back_fast(oms: OmsCommand, bound: Bound) -> None:
    seen: dict[str, Any] = {}

    async def main() -> None:
        started = time.monotonic()
        async with mcp.Client(_params(oms, bound)) as client:
            seen["connect_s"] = time.monotonic() - started
            seen["version"] = client.protocol_version
            result = await client.call_tool("read_dispatch", {})
            seen["read"] = (result.is_error, (result.structured_content or {}).get("dispatch_id"))

    anyio.run(main)
    assert seen["version"] == "2025-11-25"
    assert seen["read"] == (False, bound.dispatch_id)
    assert seen["connect_s"] < 8  # the SDK waits 10 s for a server that ignores server/discover


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
def test_every_result_parses_with_the_sdk_models(
    oms: OmsCommand, bound: Bound, version: str
) -> None:
    client = RawClient(oms, bound.bridge_args(), bound.env())
    init = client.initialize(version)["result"]
    parse_server_result("initialize", version, init)
    parse_server_result("tools/list", version, client.request("tools/list")["result"])
    for tool, args in (
        ("read_dispatch", {}),
        ("acknowledge_dispatch", {}),
        ("record_dispatch_result", {"x": 1}),
    ):
        parse_server_result("tools/call", version, client.call(tool, args))
    parse_server_result("ping", version, client.request("ping")["result"])
    assert client.close() == 0


def _inspector(
    oms: OmsCommand, bound: Bound, tmp_path: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    assert INSPECTOR.exists(), "the MCP Inspector is missing: run .ci/setup"
    env = {**bound.env(), "HOME": str(tmp_path), "NO_UPDATE_NOTIFIER": "1"}
    argv = [str(INSPECTOR), "--cli", *oms.argv, *bound.bridge_args(), *args]
    return subprocess.run(
        argv, capture_output=True, text=True, env=env, timeout=120, check=False, cwd=tmp_path
    )


def test_inspector_cli(oms: OmsCommand, bound: Bound, tmp_path: Path) -> None:
    listed = _inspector(oms, bound, tmp_path, "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    tools = json.loads(listed.stdout)["tools"]
    assert [t["name"] for t in tools] == TOOLS
    assert all("outputSchema" in t and "annotations" in t for t in tools)
    read = _inspector(
        oms, bound, tmp_path, "--method", "tools/call", "--tool-name", "read_dispatch"
    )
    assert read.returncode == 0, read.stderr
    result = json.loads(read.stdout)
    assert result["isError"] is False
    assert result["structuredContent"]["dispatch_id"] == bound.dispatch_id
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    unknown = _inspector(oms, bound, tmp_path, "--method", "tools/call", "--tool-name", "nope")
    assert unknown.returncode == 1
    assert "-32602" in unknown.stdout + unknown.stderr
