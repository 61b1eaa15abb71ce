"""What the installed agent CLIs say of a model (for `oms doctor`), asked of the CLIs themselves,
offline.

* Codex: `codex debug models` prints the models it knows as JSON (`{"models": [{"slug", ...}]}`;
  0.171 here: ~0.1 s). A role's model it does not list is one it will not offer.
* Claude Code: its binary carries a table of model retirements (2.1.332:
  `"claude-sonnet-4-5":{modelName: "Claude Sonnet 4.5",retirementDates:{firstParty:"November 30,
  2026",...}}`), from which every pane shows "⚠ Claude Sonnet 4.5 was retired on November 30, 2026".
  There is no command that prints it, so the entry for the model is found in the binary (mapped, not
  read whole). A format this does not recognise gives no answer, never a false one.

And whether a CLI can authenticate (`login_missing`), asked as its provider's registry entry says
(`Provider.login`; an advisor's, `adapters/advisor.LOGINS`).
"""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime

from oms.adapters.providers.base import Login
from oms.canonical import loads_object
from oms.canonical.strict_json import loads_foreign
from oms.errors import InvalidInputError, ProcessError
from oms.fsio.outside import find_in_file
from oms.process import child_env, run, which

CODEX_ENV = ("CODEX_HOME",)
# Where the CLIs are asked: never a repository, whose project settings (Claude Code's
# `.claude/settings.json`, with its `apiKeyHelper` command; Codex's `.codex/`) would otherwise be
# read by the asking.
NEUTRAL = "/"
_RETIREMENT = re.compile(
    rb'modelName:"([^"]{1,80})",retirementDates:\{firstParty:'
    rb'"([A-Z][a-z]{2,9} [0-9]{1,2}, [0-9]{4})"'
)
_DATED = re.compile(r"-20[0-9]{6}$")
_SLUG = re.compile(
    r"[A-Za-z0-9][A-Za-z0-9._:-]{0,79}"
)  # a model name as a config may hold it (no escapes, no lines)


def codex_models() -> list[str] | None:
    """The model slugs the Codex CLI lists (None: it cannot say)."""
    try:
        done = run(
            ("codex", "debug", "models"),
            cwd=NEUTRAL,
            env=child_env(keep=CODEX_ENV),
            timeout=20,
            max_output=16 << 20,
            check=False,
        )
        doc = loads_foreign(done.stdout) if done.returncode == 0 else None
    except (ProcessError, ValueError, RecursionError):
        return None
    models = doc.get("models") if isinstance(doc, dict) else None
    if not isinstance(models, list):
        return None
    return [
        m["slug"]
        for m in models
        if isinstance(m, dict) and isinstance(m.get("slug"), str) and _SLUG.fullmatch(m["slug"])
    ]


def claude_retirement(model: str) -> tuple[str, str, bool] | None:
    """(the model's name, its first-party retirement date, whether that date has passed) as the
    installed Claude Code records it; None when it records none (or cannot be read)."""
    found = which("claude")
    if found is None:
        return None
    key = _DATED.sub("", model.strip().lower())
    if not re.fullmatch(r"[a-z0-9.-]{1,80}", key):
        return None
    window = find_in_file(os.path.realpath(found), b'"' + key.encode() + b'":{modelName:', 400)
    entry = _RETIREMENT.search(window) if window is not None else None
    if entry is None:
        return None
    try:
        name, date = entry.group(1).decode("ascii"), entry.group(2).decode("ascii")
        when = datetime.strptime(date, "%B %d, %Y").replace(tzinfo=UTC)
    except ValueError:  # (UnicodeDecodeError too): not the table as 2.1.332 writes it, so no answer
        return None
    if not name.isprintable():
        return None
    return name, date, when <= datetime.now(UTC)


def login_missing(login: Login, env: dict[str, str]) -> str | None:
    """Why the CLI `login` describes cannot authenticate, asked of the CLI itself, offline, as its
    provider declares (`Provider.login`: `codex login status`, `claude auth status`; each answers
    in well under a second); None: it can, or it cannot say."""
    if any(env.get(k) for k in login.keys):
        return None
    try:
        done = run(login.argv, cwd=NEUTRAL, env=env, timeout=20, max_output=64 * 1024, check=False)
    except ProcessError:
        return None  # not installed or hung: the run itself says so
    asked = " ".join(login.argv)
    if login.json_field is None:
        said = _last_line(done.stdout + b"\n" + done.stderr)
        return f"{login.title} is not logged in (`{asked}`: {said})" if done.returncode else None
    try:
        logged_in = loads_object(done.stdout.strip()).get(login.json_field)
    except InvalidInputError:
        return None
    return (
        f"{login.title} is not logged in (`{asked}`: {login.json_field} false)"
        if logged_in is False
        else None
    )


def _last_line(output: bytes) -> str:
    lines = [
        line.strip() for line in output.decode("utf-8", "replace").splitlines() if line.strip()
    ]
    return "".join(c for c in lines[-1] if c.isprintable())[:200] if lines else ""
