"""Command-line options shared by the commands that reach a deployed stack (kept apart from invoke.py so that
building the parser imports no boto3)."""

from __future__ import annotations

import argparse
import re
import textwrap
from typing import Any


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Every command's --help formatter: fitted to the terminal (COLUMNS, as argparse reads it), the description and
    epilog too. Their paragraphs (lines not indented, separated by blank lines or indented lines) are wrapped to
    the width; so is an item of a list (`1. ...`, `- ...`) with the lines indented under its text, and a row of an
    indented table with the lines indented to its second column; any other indented line (an example, a command
    to copy) is kept as written, and only a line longer than the width is wrapped, its continuation indented
    further."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        width = max(width, 20)
        out: list[str] = []
        paragraph: list[str] = []
        hang = ""  # the indent of the paragraph's later lines (a list item's text, a table row's second column)
        first = ""  # the indent of its first line (a table row's own)

        def flush() -> None:
            if paragraph:
                out.extend(textwrap.wrap(" ".join(paragraph), width, initial_indent=indent + first,
                                         subsequent_indent=indent + hang, break_on_hyphens=False,
                                         break_long_words=False))
                paragraph.clear()

        for line in text.splitlines():
            lead = line[:len(line) - len(line.lstrip())]
            if not line.strip():
                flush()
                out.append("")
            elif paragraph and hang and lead == hang:  # the next line of a list item or of a table row
                paragraph.append(line.strip())
            elif lead and (column := TABLE_ROW.match(line)):  # a table row: its text wraps under its second column
                flush()
                first, hang = lead, " " * column.end()
                paragraph.append(line.strip())
            elif lead:
                flush()
                first = hang = ""
                out.extend(textwrap.wrap(line.strip(), width, initial_indent=indent + lead,
                                         subsequent_indent=indent + lead + "    ", break_on_hyphens=False,
                                         break_long_words=False) if len(indent + line) > width else [indent + line])
            else:
                if (item := LIST_ITEM.match(line)) or hang:
                    flush()
                    hang = " " * item.end() if item else ""
                first = ""
                paragraph.append(line.strip())
        flush()
        return "\n".join(out)


LIST_ITEM = re.compile(r"(?:\d+\.|-) ")  # `1. ` / `- ` opening a line: a list item, its later lines under its text
TABLE_ROW = re.compile(r" +\w+ {2,}(?=\w)")  # `    team      it may ...`: a name, then its text after 2+ spaces


def examples(*commands: str, heading: str = "examples") -> str:
    """The end of a command's --help (an epilog, with RawDescriptionHelpFormatter): examples, one command a line,
    each starting `rule-actions` (tests/unit/test_cli_help.py parses each with the command's parser)."""
    return f"{heading}:\n" + "".join(f"  {command}\n" for command in commands)


def add_target_options(parser: Any, *, required: bool, stack_only: bool = False) -> None:
    """--stack (or --function-name, one of them) and --profile / --region: where a deployed function is, for the
    commands that reach one (invoke, test-notify, check)."""
    target = parser if stack_only else parser.add_mutually_exclusive_group(required=required)
    if not stack_only:
        target.add_argument("--function-name", metavar="NAME", help="the function to invoke (its name or ARN)")
    target.add_argument("--stack", metavar="NAME", required=required and stack_only,
                        help="the deployed stack (its FunctionName output and its rule)" if stack_only
                        else "read the function name from this stack's FunctionName output")
    add_aws_options(parser)


def add_aws_options(parser: Any) -> None:
    """--profile / --region: the AWS settings of the commands that reach a deployed stack."""
    parser.add_argument("--profile", metavar="NAME", help="the AWS profile to use (default: AWS_PROFILE, else the "
                        "default profile)")
    parser.add_argument("--region", metavar="REGION", help="the function's region (default: AWS_REGION, "
                        "AWS_DEFAULT_REGION, else the profile's region)")
