"""Attack: a GitHub issue's body (written by anyone who can open an issue) does not reach the
person's terminal raw through `oms ticket show`.

`oms ticket import` keeps the body as given (right: it is the content). Before its fix, `ticket
show` printed it with `typer.echo(f"...{content['body']}")`. click strips CSI colour codes only when
stdout is not a terminal and never strips OSC: an issue body with `ESC ] 52 ; c ; <base64> BEL`
wrote the person's clipboard (a command they then paste), `ESC ] 0 ;` retitled the window, and on a
terminal every CSI (cursor moves, `ESC [ 8 m` hidden text, `ESC [ 2 J`) passed too, so the body
could hide or repaint what the person reviews. The same held for `ticket add --body`. Now the body
is shown with its control characters escaped (printable text, newlines and tabs kept), as `shown()`
does for paths and ids."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.helpers import oms_command


def test_ticket_show_prints_no_terminal_control_from_an_issue_body(tmp_path: Path) -> None:
    repo, state = tmp_path / "repo", tmp_path / "state"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    where = ("--state-root", str(state), "--config-root", str(repo))
    assert oms_command().run("init", *where).returncode == 0
    issue = {
        "number": 7,
        "title": "Fix the parser",
        "body": "Steps:\n\x1b]52;c;cm0gLXJmIH4K\x07\x1b]0;owned\x07 run the tests\n",
        "url": "https://github.com/a/b/issues/7",
    }
    (tmp_path / "issue.json").write_text(json.dumps(issue))
    imported = oms_command().run("ticket", "import", str(tmp_path / "issue.json"), *where)
    assert imported.returncode == 0, imported.stderr
    ticket_id = imported.stdout.split()[1]
    shown = oms_command().run("ticket", "show", ticket_id, *where)
    assert shown.returncode == 0, shown.stderr
    assert "run the tests" in shown.stdout  # the body is shown
    assert "\x1b" not in shown.stdout, "an issue body drives the terminal"
    assert "\x07" not in shown.stdout, "an issue body drives the terminal"
