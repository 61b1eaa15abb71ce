"""The tree race (issue 23, docs/adr/0024): every operation oms performs on a tree an agent can
write, run again and again while an attacker in the agent's place swaps parts of that tree for links
to host files at the moment inotify shows oms reading it.

The attacker (`attacker.py`) is one long-lived program per worker that re-arms for every round; the
host triggers the operation many times (`rig.ROUNDS`, 200 by default, `OMS_TREE_RACE_ROUNDS` to
change it). It swaps a folder or a file, at depth 1, 2 or 3, for a link to the state root's `keys/`,
to a planted `~/.ssh/id_rsa` of the test's fake home, to a file only the user can read — directly or
through `/proc/self/root/` — or for a hard link or a FIFO. After the rounds no host byte (the files'
bytes, and distinctive parts of them in hex and base64) may be in any object of the repository, any
ref, log or index of its `.git`, any file of the state root (records, evidence, logs, the ledger) or
any message oms gave, and the host files must be as they were. Each test also says how often the
swap landed while oms worked, so a harness that never raced cannot pass.

The hand that runs the attacker is pluggable (`rig.Hand`). On a live worker's tree (the commit of
leftovers, salvage, the restore, delivery's verification) three hands share the rounds of every
operation (`rig.SHARES`: 140, 30 and 30 of every 200): a delivered command worker, the real Claude
Code's Bash tool and the real Codex's `exec_command`, each one session for the whole module, the
CLIs driven by the loopback model mock (`tests/model_mock.py`) whose every request is searched too.
When a hand's rounds are over its agent reads back every object of the repository and, through a
CLI, hands it to the model. The removal and verify's checkout are raced where no worker runs: an
attacker in the worker sandbox's view, the check itself.

CI runs the package once, against the frozen binary (`.ci/test`): its tree jobs start the onedir
oms, as a user's do, not Python and oms's imports from source; and on two workers (`pytest -n 2
--dist loadfile`), a module each: a hand's module (`test_worker_rounds.py`, `_claude`, `_codex`)
keeps its one session on one worker.
"""
