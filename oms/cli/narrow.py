"""The Typer app narrowed to the command a process runs: only that command's Click tree is built.

Typer turns every registered command into a Click command (its signature read, its annotations
evaluated) before it looks at argv: over 70 commands, about 150 ms of every start. A process runs
one command, so the tree it builds holds only the groups and the command its argv names; a word
that names none (an option, a help request, a typo) stops the narrowing there, and that level is
built whole (its help lists every command, a mistyped command gets Click's own message). The
narrowing only ever drops siblings: what runs, and how its options parse, is the command as
registered.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

from typer import Typer
from typer.main import get_command_name
from typer.models import CommandInfo, DefaultPlaceholder, TyperInfo


def narrowed(app: Typer, args: Sequence[str]) -> Typer:
    """`app` with, at each level argv names a group or a command, only that one registered."""
    narrow = _narrowed(app, args)
    if narrow.registered_groups or app.registered_callback or app.info.callback:
        return narrow
    return app  # one command alone would be built as that command, not as a group that holds it


def _narrowed(app: Typer, args: Sequence[str]) -> Typer:
    if not args:
        return app
    word = args[0]
    for command in app.registered_commands:
        if _command_name(command) == word:
            return _only(app, commands=[command], groups=[])
    for group in app.registered_groups:
        if _group_name(group) == word and group.typer_instance is not None:
            inner = copy.copy(group)
            inner.typer_instance = _narrowed(group.typer_instance, args[1:])
            return _only(app, commands=[], groups=[inner])
    return app


def _only(app: Typer, *, commands: list[CommandInfo], groups: list[TyperInfo]) -> Typer:
    narrow = copy.copy(app)
    narrow.registered_commands = commands
    narrow.registered_groups = groups
    return narrow


def names(app: Typer) -> frozenset[str]:
    """The names of `app`'s own commands (not its groups')."""
    return frozenset(name for name in map(_command_name, app.registered_commands) if name)


def _command_name(command: CommandInfo) -> str | None:
    if command.name:
        return command.name
    return get_command_name(command.callback.__name__) if command.callback else None


def _group_name(group: TyperInfo) -> str | None:
    name: object = group.name  # a DefaultPlaceholder where add_typer was given no name
    if isinstance(name, DefaultPlaceholder) and group.typer_instance is not None:
        name = group.typer_instance.info.name
    return name if isinstance(name, str) else None
