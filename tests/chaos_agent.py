#!/usr/bin/python3
"""A scripted stand-in for Claude Code, for the fleet chaos test (`tests/chaos.py`).

It is installed as `claude` on the PATH of the conductor under test, so oms launches it exactly as
it launches Claude Code: the `claude_interactive` plan's argv, in a pane and a sandbox with no
network, its only key the dispatch's proxy token, its endpoint the proxy reached through the
dispatch's door. Like Claude Code it reads the hooks of its `--settings` file and the MCP server of
its `--mcp-config`, fires SessionStart, starts its bridge and lists its tools, shows its prompt
mark, takes the typed instruction
(UserPromptSubmit), calls `read_dispatch` and `acknowledge_dispatch` through the bridge (each after
a PreToolUse hook), and asks the model (`POST <ANTHROPIC_BASE_URL>/v1/messages`, `x-api-key`) one
turn at a time: the number of turns its ticket's title names (`... turns N`), honouring a 429's
`retry-after` as Claude Code does. It then changes a file, records its result (`failed` if the title
says so) and fires Stop. Unlike Claude Code it never stops asking: after its result, and after any
refusal, it asks again (the runaway `/goal` loop of issue 24), so every request the proxy forwards
for an attempt that is over or fenced shows at the upstream.

Every request names its dispatch and the wall time it was sent (`chaos <dispatch> sent <t>`), so
the upstream can count what it heard per attempt against when the attempt ended. At start it takes
an exclusive lock on its session's lock file and on its ticket's (`locks/<n>` beside this file):
if either is held, another agent of the same dispatch or ticket is alive, and it logs `DUPLICATE`.
Only the standard library: it runs under the system's Python inside the sandbox."""

import fcntl
import http.client
import json
import os
import re
import subprocess
import sys
import time
import urllib.parse

VERSION = "2.1.999 (Claude Code)"
REFUSED_PAUSE_S = 0.3  # between requests once refused (a runaway that ignores its end)
AFTER_RESULT_PAUSE_S = 0.4  # between requests after its result (the `/goal` loop)
MAX_RETRY_AFTER_S = 5.0


def main() -> int:
    if sys.argv[1:2] == ["--version"]:
        print(VERSION)
        return 0
    args = sys.argv[1:]
    with open(_option(args, "--settings=")) as file:
        settings = json.load(file)
    with open(_option(args, "--mcp-config=")) as file:
        mcp = json.load(file)
    home = os.environ["HOME"]
    log = open(os.path.join(home, "worker.log"), "a")  # noqa: SIM115 (open for the agent's life)

    def say(text: str) -> None:
        log.write(f"{time.time():.6f} {text}\n")
        log.flush()

    dispatch = os.environ["OMS_DISPATCH_ID"]
    session = os.environ["OMS_SESSION_ID"]
    say("agent started")
    held = [_lock(os.path.join(home, "agent.lock"), say, "dispatch")]

    def hook(event: str, **extra: object) -> str:
        command = settings["hooks"][event][0]["hooks"][0]["command"]
        doc = {"session_id": session, "hook_event_name": event, "cwd": os.getcwd(), **extra}
        done = subprocess.run(
            ["/bin/sh", "-c", command],
            input=json.dumps(doc).encode(),
            capture_output=True,
            timeout=60,
            check=False,
        )
        return done.stdout.decode("utf-8", "replace")

    hook("SessionStart", source="startup")

    name, server = next(iter(mcp["mcpServers"].items()))
    bridge = subprocess.Popen(
        [server["command"], *server.get("args", [])],
        env={**os.environ, **server.get("env", {})},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    ids = [1]

    def rpc(method: str, params: object | None, notify: bool = False) -> str:
        message: dict[str, object] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if not notify:
            ids[0] += 1
            message["id"] = ids[0]
        assert bridge.stdin is not None
        assert bridge.stdout is not None
        bridge.stdin.write(json.dumps(message).encode() + b"\n")
        bridge.stdin.flush()
        return "" if notify else bridge.stdout.readline().decode("utf-8", "replace")

    def tool(tool_name: str, arguments: dict[str, object]) -> str:
        said = hook("PreToolUse", tool_name=f"mcp__{name}__{tool_name}", tool_input=arguments)
        if '"deny"' in said:
            say(f"{tool_name}: denied by PreToolUse")
            return ""
        return rpc("tools/call", {"name": tool_name, "arguments": arguments})

    info = {"name": "chaos-claude", "version": "1"}
    rpc("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": info})
    rpc("notifications/initialized", None, notify=True)
    rpc("tools/list", {})  # oms types the instruction only once the agent has its tools
    print("\u276f ", end="", flush=True)
    sys.stdin.readline()  # the instruction, typed
    print("esc to interrupt", flush=True)
    hook("UserPromptSubmit", prompt="the instruction")
    title = _field(tool("read_dispatch", {}), "title")
    say(f"read_dispatch: {title!r}")
    number = re.search(r"Ticket (\d+)", title)
    if number:
        held.append(
            _lock(os.path.join(os.path.dirname(__file__), "locks", number[1]), say, "ticket")
        )
    say(f"acknowledge_dispatch: {_field(tool('acknowledge_dispatch', {}), 'state')}")
    turns = int((re.search(r"turns (\d+)", title) or ["", "3"])[1])

    base = urllib.parse.urlsplit(os.environ["ANTHROPIC_BASE_URL"])
    key = os.environ["ANTHROPIC_API_KEY"]
    model = _option(args, "--model", following=True)
    sent = [0]

    def ask() -> int:
        """One model turn; its status (0: no answer)."""
        sent[0] += 1
        text = f"chaos {dispatch} sent {time.time():.6f} turn {sent[0]}"
        body = {
            "model": model,
            "max_tokens": 64,
            "stream": True,
            "tools": [
                {"name": f"mcp__{name}__record_dispatch_result", "input_schema": {"type": "object"}}
            ],
            "messages": [{"role": "user", "content": text}],
        }
        conn = http.client.HTTPConnection(base.hostname or "127.0.0.1", base.port or 80, timeout=30)
        try:
            headers = {
                "x-api-key": key,
                "content-type": "application/json",
                "anthropic-version": "2023-06-01",
            }
            conn.request("POST", base.path + "/v1/messages", body=json.dumps(body), headers=headers)
            response = conn.getresponse()
            response.read()
            if response.status == 429:
                wait = float(response.getheader("retry-after") or 1)
                time.sleep(min(max(wait, 0.1), MAX_RETRY_AFTER_S))
            return response.status
        except (OSError, http.client.HTTPException, ValueError):
            time.sleep(REFUSED_PAUSE_S)
            return 0
        finally:
            conn.close()

    done = 0
    while done < turns:
        status = ask()
        if status == 200:
            done += 1
        elif status in (401, 403):
            time.sleep(REFUSED_PAUSE_S)
    with open("CHANGELOG.md", "a") as changelog:
        changelog.write(f"- {title} (by the chaos agent)\n")
    status_word = "failed" if "fail" in title else "completed"
    result: dict[str, object] = {
        "status": status_word,
        "summary": f"{status_word} by the chaos agent",
    }
    say(f"record_dispatch_result: {_field(tool('record_dispatch_result', result), 'state')}")
    hook("Stop", stop_hook_active=False)
    while True:  # the runaway loop: it asks on until it is ended
        ask()
        time.sleep(AFTER_RESULT_PAUSE_S)


def _lock(path: str, say: object, what: str) -> int:
    fd = os.open(path, os.O_RDONLY | os.O_CREAT if what == "dispatch" else os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        say(f"DUPLICATE: another agent of this {what} is alive")  # type: ignore[operator]
    return fd


def _option(args: list[str], name: str, following: bool = False) -> str:
    for i, word in enumerate(args):
        if following and word == name and i + 1 < len(args):
            return args[i + 1]
        if not following and word.startswith(name):
            return word[len(name) :]
    raise SystemExit(f"chaos agent: no {name}")


def _field(line: str, name: str) -> str:
    found = re.search(rf'\\?"{name}\\?"\s*:\s*\\?"([^"\\]*)', line)
    return found[1] if found else ""


if __name__ == "__main__":
    sys.exit(main())
