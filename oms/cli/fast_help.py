"""Help for the commands answered before Typer loads (`cli/entry.py`): the ones agents' CLIs and
panes run.

Plain text, no imports: `oms hook provider --help` must cost what the hook costs. `oms --help` shows
SECTION (the Typer app's epilog), so the top-level help lists every entry point, these included.
"""

from __future__ import annotations

TYPE_CHECKING = False  # (as in cli/entry.py: importing typing costs every relay)
if TYPE_CHECKING:
    from collections.abc import Sequence

HOOK = """Usage: oms hook provider --event EVENT [OPTIONS]

  Relay one agent CLI hook to the worker's broker and print its answer: the
  hook command oms writes into Codex's and Claude Code's settings. The hook's
  JSON payload is read from stdin; the answer (JSON for the CLI) goes to
  stdout, one line of explanation to stderr. It always exits 0, as the CLIs
  expect; when the broker cannot be reached, a PreToolUse hook is denied
  (fail closed) and any other answers {}.

  Runs inside the worker's sandbox, written by oms, not by hand.

  Example (as oms writes it into Codex's settings):

    oms hook provider --event Stop --provider codex --dispatch-id DSP \\
      --session-id SESSION < payload.json

Options:
  --event EVENT              The hook event (SessionStart, PreToolUse, Stop, ...).
  --provider NAME            The agent CLI: codex or claude.
  --provider-version V       The CLI's version, as oms checked it.
  --dispatch-id ID           The dispatch the worker works on.
  --session-id ID            The worker's oms session.
  --allowed-tools LIST       The role's tools, as its policy names them.
  -h, --help                 Show this message and exit.
"""

HOOK_GROUP = """Usage: oms hook provider --event EVENT [OPTIONS]

  Agent CLI hooks (the command oms writes into Codex's and Claude Code's
  settings). See `oms hook provider --help`.

  Example: oms hook provider --help

Commands:
  provider  Relay one agent CLI hook to the worker's broker.
"""

BRIDGE = """Usage: oms worker bridge --dispatch-id ID --session-id ID

  The worker's MCP server on stdio (the `oms_worker` server in the agent's
  MCP configuration): relays every line to the worker's broker, which serves
  read_dispatch, acknowledge_dispatch and record_dispatch_result. Exits 1
  when the broker cannot be reached (the MCP client reports it).

  Runs inside the worker's sandbox, started by the agent CLI, not by hand.

  Example (as the agent's MCP configuration names it):

    oms worker bridge --dispatch-id DSP --session-id SESSION

Options:
  --dispatch-id ID  The dispatch the worker works on.
  --session-id ID   The worker's oms session.
  -h, --help        Show this message and exit.
"""

SUPERVISE = """Usage: oms worker supervise --dispatch-id ID --state-root PATH

  The first process of every worker pane: waits until delivery registered
  the worker's session, starts the agent in its sandbox with its broker
  beside it, ends the sandbox's whole process group when the agent ends, and
  records how it ended. The agent's argv, environment and sandbox come from
  the launch spec delivery left in the state root.

  Written into the pane by `oms worker deliver`, not run by hand.

  Example (as delivery types it into the pane):

    oms worker supervise --dispatch-id DSP --state-root PATH

Options:
  --dispatch-id ID   The dispatch whose launch spec to run.
  --state-root PATH  The state root that holds it.
  -h, --help         Show this message and exit.
"""

NETRELAY = """Usage: oms worker netrelay --port P -- COMMAND...

  Inside a sandbox with no network: listens on 127.0.0.1:P of the sandbox's
  own network namespace (the port the agent's model endpoint names), carries
  each connection to the model proxy's socket of this dispatch, and runs
  COMMAND (the agent) as its child, exiting with its status.

  Started by the sandbox, not by hand (ADR 0020).

  Example (as the sandbox starts it):

    oms worker netrelay --port 41523 -- codex exec ...

Options:
  --port P    The loopback port the agent's endpoint names (1-65535).
  -h, --help  Show this message and exit.
"""

TREE_JOB = """Usage: oms worker tree-job

  One operation on an agent's worktree (committing what it left, salvage,
  the restore after a lapse, a removal, delivery's checkout verification),
  inside a sandbox that shows exactly what the agent saw: reads one JSON
  job on stdin and writes one JSON answer on stdout.

  Started by oms in that sandbox, not by hand (docs/adr/0024).

  Example (as oms starts it in the sandbox):

    oms worker tree-job < job.json

Options:
  -h, --help  Show this message and exit.
"""

PAGES: dict[tuple[str, ...], str] = {
    ("hook",): HOOK_GROUP,
    ("hook", "provider"): HOOK,
    ("worker", "bridge"): BRIDGE,
    ("worker", "supervise"): SUPERVISE,
    ("worker", "netrelay"): NETRELAY,
    ("worker", "tree-job"): TREE_JOB,
}

SECTION = """\b
Commands agents' CLIs and panes run (written by oms, answered before the rest loads):
  hook provider     Relay one agent CLI hook to the worker's broker.
  worker bridge     The worker's MCP server on stdio (relayed to its broker).
  worker supervise  The first process of every worker pane.
  worker netrelay   The agent's only way to its model in a sandbox with no network.
  worker tree-job   One operation on an agent's worktree, in its own sandbox.
Each answers --help."""


def asks_help(options: Sequence[str]) -> bool:
    """Is `--help` or `-h` in the place of an option name (never a value, never after `--`)?"""
    for index, word in enumerate(options):
        if word == "--":
            return False
        if index % 2 == 0 and word in ("--help", "-h"):
            return True
    return False
