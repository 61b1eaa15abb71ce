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

The hand that runs the attacker is pluggable (`rig.Hand`): a command worker here; the real Claude
Code and Codex drive the same program through their shell tools against the model mock.
"""
