"""The command says the right thing: every `--flag` its messages, hints and help texts suggest is one the command
that prints it accepts (collected from the sources), and each command's --help ends with examples that its own
parser accepts."""

from __future__ import annotations

import argparse
import ast
import re
import shlex
from pathlib import Path

import pytest

from rule_actions_cli.main import parser

CLI = Path(__file__).resolve().parents[2] / "rule_actions_cli"
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
NAMED = re.compile(r"rule-actions ([a-z][a-z-]*)((?: [^`\n]*)?)")  # `rule-actions CMD ...`: that command's flags
# Commands of other tools, whose flags are theirs: `aws ...`, `cdk ...`, `npx ...`, `npm ...`, `make ...`, `pip ...`
OTHER_TOOLS = re.compile(r"\b(?:aws|cdk|npx|npm|make|pip|python3?|uv) [a-z](?:[^`\n\\]|\\\n)*")  # to the line's end
DEPLOYED = ("invoke", "test-notify", "check", "subscriptions", "report")
# Which commands can print the strings of a module, or of one of its top-level functions or names.
REACH = {
    "main.py": ("replay", "invoke"),
    "main.py:TOP_EPILOG": (),  # the top-level help: each flag it names belongs to a command it names
    "main.py:EPILOG": ("replay",),
    "main.py:INVOKE_EPILOG": ("invoke",),
    "main.py:run_invoke": ("invoke",),
    "inputs.py": ("replay", "invoke", "test-notify", "check", "template", "report"),
    "receiver.py": ("replay", "test-notify", "report"),
    "replay_table.py": ("replay", "invoke"),
    "invoke.py": DEPLOYED,
    "invoke.py:deployed_function": ("invoke", "test-notify"),
    "options.py": DEPLOYED,
    "check.py": ("check",),
    "subscriptions.py": ("subscriptions",),
    "testnotify.py": ("test-notify",),
    "files.py": ("init", "schema", "samples"),
    "files.py:add_parsers": ("init",),
    "files.py:init": ("init",),
    "files.py:samples": ("samples",),
    "template.py": ("template",),
    "embedded.py": ("replay", "test-notify", "report"),
    "report.py": ("report",),
    "timeline.py": ("replay",),
    "html_report.py": ("replay",),
    "charts.py": ("replay",),
}
# Modules that are not the `rule-actions` command (their own parsers: `make deploy`'s, moto's extensions).
NOT_THE_COMMAND = {"deploy.py", "deploy_local.py"}


def commands() -> dict[str, argparse.ArgumentParser]:
    [sub] = [a for a in parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def accepted(command: argparse.ArgumentParser) -> set[str]:
    return {flag for action in command._actions for flag in action.option_strings}


def texts(node: ast.AST) -> list[str]:
    """The string literals under `node` (an f-string's literal parts joined around `{}`), docstrings left out."""
    docstrings = {id(n.body[0].value) for n in ast.walk(node)
                  if isinstance(n, ast.Module | ast.FunctionDef | ast.ClassDef) and n.body
                  and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    parts = {id(v) for n in ast.walk(node) if isinstance(n, ast.JoinedStr) for v in n.values}
    defined = {id(a) for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
               and n.func.attr == "add_argument" for a in n.args}  # the option being defined, not a hint
    found = []
    for item in ast.walk(node):
        if isinstance(item, ast.JoinedStr):
            found.append("".join(v.value if isinstance(v, ast.Constant) else "{}" for v in item.values))
        elif (isinstance(item, ast.Constant) and isinstance(item.value, str)
              and not {id(item)} & (docstrings | parts | defined)):
            found.append(item.value)
    return found


def suggestions() -> list[tuple[str, str, tuple[str, ...]]]:
    """(where, flag, the commands that must accept it) for every flag the command's sources suggest."""
    found = []
    for path in sorted(CLI.glob("*.py")):
        if path.name in NOT_THE_COMMAND:
            continue
        tree = ast.parse(path.read_text())
        for top in tree.body:
            names = [top.name] if isinstance(top, ast.FunctionDef | ast.ClassDef) else [
                t.id for t in getattr(top, "targets", []) if isinstance(t, ast.Name)]
            unit = f"{path.name}:{names[0]}" if names else path.name
            reach = REACH.get(unit, REACH.get(path.name))
            for text in texts(top):
                for match in NAMED.finditer(text):  # `rule-actions check --stack NAME`: check's own flags
                    found += [(unit, flag, (match.group(1),)) for flag in FLAG.findall(match.group(2))]
                rest = OTHER_TOOLS.sub("", NAMED.sub("", text))
                for flag in FLAG.findall(rest):
                    assert reach is not None, f"{unit} suggests {flag}: add it to REACH (which commands print it)"
                    found += [(unit, flag, reach)]
    return found


FOUND = suggestions()


def test_the_collection_finds_the_hints_it_checks():
    # the scan sees the hints this module was written against (a broken scan would check nothing)
    flags = {(unit, flag) for unit, flag, _ in FOUND}
    assert {("invoke.py:deployed_function", "--function-name"), ("invoke.py:_unusable", "--region"),
            ("receiver.py:add_options", "--secrets"), ("testnotify.py:LOCALLY", "--stack"),
            ("subscriptions.py:HELP", "--remove"), ("check.py:EPILOG", "--stack")} <= flags
    assert len(FOUND) > 40


@pytest.mark.parametrize(("unit", "flag", "reach"), FOUND, ids=[f"{u}:{f}" for u, f, _ in FOUND])
def test_every_suggested_flag_exists_in_each_command_that_prints_it(unit, flag, reach):
    known = commands()
    for command in reach:
        assert flag in accepted(known[command]), f"{unit} suggests {flag}, which `rule-actions {command}` lacks"


def test_check_never_suggests_a_flag_it_does_not_have():
    # the hint of the issue: check suggested --function-name
    assert not [(u, f) for u, f, reach in FOUND if "check" in reach and f == "--function-name"]


@pytest.mark.parametrize("name", sorted(commands()))
def test_each_commands_help_ends_with_examples_its_parser_accepts(name, capsys):
    # Given a command's --help
    with pytest.raises(SystemExit):
        parser().parse_args([name, "--help"])
    lines = capsys.readouterr().out.rstrip("\n").splitlines()
    # Then it ends with its examples, one command a line
    at = max(i for i, line in enumerate(lines) if line == "examples:")
    given = [line.strip() for line in lines[at + 1:]]
    assert given and all(line.startswith("rule-actions ") for line in given), given
    assert any(line.startswith(f"rule-actions {name}") for line in given)
    # and each parses as the command it names
    for line in given:
        args = parser().parse_args(shlex.split(line)[1:])
        assert args.command == line.split()[1]


HELP_PAGES = [[], *[[name] for name in sorted(commands())]]


@pytest.mark.parametrize("command", HELP_PAGES, ids=[" ".join(c) or "top" for c in HELP_PAGES])
def test_every_help_page_fits_80_columns(command, capsys, monkeypatch):
    # Given an 80-column terminal (COLUMNS, as argparse reads it)
    monkeypatch.setenv("COLUMNS", "80")
    # When a command's --help is printed
    with pytest.raises(SystemExit):
        parser().parse_args([*command, "--help"])
    lines = capsys.readouterr().out.splitlines()
    # Then every line fits, the description and epilog wrapped too (no paragraph is one long line)
    assert max(map(len, lines)) <= 80, [line for line in lines if len(line) > 80]
    assert len(lines) > 5


@pytest.mark.parametrize(("command", "hang", "text"), [
    ("check", "   ", "1. The rule: the EventBridge rule(s) targeting the stack's function (ListRuleNamesByTarget,"),
    ("subscriptions", " " * 14, "team      it may receive team messages (the stack's `notify` members, a chat"),
])
def test_a_list_item_or_table_row_of_a_help_page_wraps_under_its_text(command, hang, text, capsys, monkeypatch):
    # Given an 80-column terminal, and a help page holding a numbered list (check) or a table (subscriptions)
    monkeypatch.setenv("COLUMNS", "80")
    # When its --help is printed
    with pytest.raises(SystemExit):
        parser().parse_args([command, "--help"])
    lines = capsys.readouterr().out.splitlines()
    # Then the item (row) is one paragraph: its next lines start under its text, none deeper, and it reads whole
    at = next(i for i, line in enumerate(lines) if " ".join(line.split()).startswith(" ".join(text.split()[:4])))
    rest = lines[at + 1:at + 2]
    assert all(line.startswith(hang) and not line.startswith(hang + " ") for line in rest), lines[at:at + 2]
    assert " ".join(text.split()) in " ".join(" ".join(lines[at:at + 2]).split())


def test_a_wider_terminal_gets_longer_lines(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")
    with pytest.raises(SystemExit):
        parser().parse_args(["replay", "--help"])
    assert 120 < max(map(len, capsys.readouterr().out.splitlines())) <= 160


# What a user has outside the checkout: the files `rule-actions init` and `rule-actions samples` write.
USERS_FILES = ("rule-actions.json", "rule-actions.schema.json")


@pytest.mark.parametrize("name", sorted(commands()))
def test_each_example_names_only_files_a_user_has(name, capsys):
    from rule_actions_cli.check import samples_folder

    with pytest.raises(SystemExit):
        parser().parse_args([name, "--help"])
    lines = capsys.readouterr().out.rstrip("\n").splitlines()
    at = max(i for i, line in enumerate(lines) if line == "examples:")
    for line in lines[at + 1:]:
        for part in shlex.split(line)[2:]:
            if part.startswith("events/"):  # what `rule-actions samples` writes
                assert (samples_folder() / part.removeprefix("events/")).exists(), line
            elif part.endswith(".json") or "/" in part:
                assert part in USERS_FILES, f"{line}: {part} is not a file a user has"


@pytest.mark.parametrize("name", ["init", "schema", "samples"])
def test_each_example_of_the_commands_that_write_files_runs_as_printed_in_an_empty_directory(name, capsys, tmp_path,
                                                                                             monkeypatch):
    # Given a command's examples of itself, each run in an empty directory, as a user beside the clone would
    from rule_actions_cli.main import main

    with pytest.raises(SystemExit):
        parser().parse_args([name, "--help"])
    lines = capsys.readouterr().out.rstrip("\n").splitlines()
    own = [shlex.split(line)[1:] for line in lines[lines.index("examples:") + 1:] if line.split()[1] == name]
    assert own
    for at, argv in enumerate(own):
        folder = tmp_path / str(at)
        folder.mkdir()
        monkeypatch.chdir(folder)
        # Then it does its work (exit status 0), not refusing what its own help shows
        assert main(argv) == 0, (argv, capsys.readouterr().err)


@pytest.mark.parametrize(("argv", "usage", "said"), [
    (["replay", "--reciever", "events/"], "usage: rule-actions replay ",
     "rule-actions replay: error: unrecognized arguments: --reciever; did you mean --receiver?"),
    (["replay", "events/", "--reciever=1"], "usage: rule-actions replay ",
     "unrecognized arguments: --reciever=1; did you mean --receiver?"),
    (["replay", "--jsn", "--dryrun", "events/"], "usage: rule-actions replay ",
     "unrecognized arguments: --jsn --dryrun; did you mean --json (for --jsn), --dry-run (for --dryrun)?"),
    (["init", "--cdkk"], "usage: rule-actions init ", "unrecognized arguments: --cdkk; did you mean --cdk?"),
    (["report", "--stak", "MLPlatform"], "usage: rule-actions report ",
     "one of the arguments --stack --replay is required; unrecognized arguments: --stak; did you mean --stack?"),
    (["invoke", "--stack", "MLPlatform", "--regoin", "us-east-1", "e.json"], "usage: rule-actions invoke ",
     "unrecognized arguments: --regoin; did you mean --region?"),
    (["repaly", "events/"], "usage: rule-actions [-h]", "invalid choice: 'repaly' (choose from 'replay', "),
    (["--verison"], "usage: rule-actions [-h]", "unrecognized arguments: --verison; did you mean --version?"),
    (["replay", "--nope", "events/"], "usage: rule-actions replay ", "unrecognized arguments: --nope\n"),
])
def test_an_unknown_flag_exits_2_with_the_commands_usage_and_the_flag_meant(argv, usage, said, capsys):
    # Given a misspelt flag (or command) / When the command parses it
    from rule_actions_cli.main import main

    with pytest.raises(SystemExit) as exited:
        main(argv)
    out, err = capsys.readouterr()
    # Then it exits 2 before anything runs, with the usage of the command it was given to and the flag meant
    assert exited.value.code == 2 and out == ""
    assert err.startswith(usage) and said in err, err
    if argv[0] == "repaly":
        assert err.rstrip().endswith("; did you mean replay?")
