"""`rule-actions template`: the stack for teams that deploy with CloudFormation alone (no CDK app, no bootstrap).

Writes, for a configuration file (--config, else ./rule-actions.json, else the defaults):

    OUT/<stack>.template.json    the stack's template, with one parameter, CodeBucket: the bucket its code zips are
                                 read from (the template itself names no bucket, no bootstrap role or version)
    OUT/code/<hash>.zip          each code zip the template names (the function's; with SMS delivery logs also the
                                 custom resource's), at the key the template reads it from
    OUT/<stack>Member.template.json   in organization mode, the member accounts' stack (it has no code)

then prints the two commands that deploy them. Synthesizing needs the `cdk` extra and Node.js (jsii), as any CDK
synthesis does; deploying needs only the AWS CLI.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from rule_actions_cli.inputs import refuse
from rule_actions_cli.options import Formatter, examples
from rule_actions_cli.synth import asset_bytes, file_assets, stacks

CODE_FOLDER = "code"


def add_parser(commands: argparse._SubParsersAction[Any]) -> None:  # (main.py's CommandParser)
    template = commands.add_parser(
        "template", help="write the stack as a CloudFormation template and its code zips (no CDK needed to deploy)",
        description="Synthesizes the stack of a configuration file into a CloudFormation template whose code is "
        "read from a bucket you name at deploy time (its CodeBucket parameter), and the code zips to upload there. "
        "The account needs no CDK bootstrap; the AWS CLI deploys it (the commands are printed).",
        epilog=examples("rule-actions template --config rule-actions.json --out cfn"),
        formatter_class=Formatter)
    template.add_argument("--config", metavar="FILE", help="the configuration file (default: ./rule-actions.json if "
                          "there is one, else the defaults)")
    template.add_argument("--out", default="rule-actions-template", metavar="DIR",
                          help="where to write the template(s) and code/ (default: ./rule-actions-template)")


def write(assembly: Path, stacks: list[str], out: Path) -> list[Path]:
    """The stacks' templates and the code zips they name, from a synthesized assembly into `out`."""
    (out / CODE_FOLDER).mkdir(parents=True, exist_ok=True)
    written = []
    for stack in stacks:
        template = f"{stack}.template.json"
        written.append(Path(shutil.copyfile(assembly / template, out / template)))
        for asset in file_assets(assembly, stack):
            if asset["source"]["path"] == template:  # the template, which the CDK CLI would upload; written above
                continue
            [key] = {d["objectKey"] for d in asset["destinations"].values()}
            target = out / CODE_FOLDER / key
            target.write_bytes(asset_bytes(assembly, asset))
            written.append(target)
    return written


def run(args: argparse.Namespace) -> int:
    from rule_actions.config import ConfigError
    from rule_actions_cli.files import directory_problem
    from rule_actions_cli.inputs import replay_context, warnings_block

    out = Path(args.out)
    problem = directory_problem(out, create=True)  # before the synthesis (seconds), not after it
    if problem:
        return refuse(problem)
    context, errors = replay_context(args.config, dry_run=False)
    if errors:
        return refuse(*errors)
    said = warnings_block(context, args.config)  # each field named from the file, as the replay names it
    if said:
        print(said, file=sys.stderr)
    from rule_actions_cdk.app import build_app  # starts the jsii runtime

    with tempfile.TemporaryDirectory(prefix="rule-actions-template-") as work:
        try:
            app, stack = build_app(context, outdir=work, portable=True, warn=False)
            app.synth()
        except (ConfigError, RuntimeError) as err:
            print(f"rule-actions: synthesis failed: {err}", file=sys.stderr)
            return 1
        others = [name for name in stacks(Path(work)) if name != stack.stack_name]
        try:
            written = write(Path(work), [stack.stack_name, *others], out)
        except OSError as err:
            return refuse(f"{out}: cannot write there ({err.strerror or type(err).__name__})")
    for path in written:
        print(f"wrote {path}")
    print(deploy_commands(out, stack.stack_name, others))
    return 0


def deploy_commands(out: Path, name: str, others: list[str]) -> str:
    """The AWS CLI commands that deploy what was written in `out`, every path quoted for a POSIX shell."""
    from rule_actions_cdk.app import CODE_BUCKET

    def q(path: Path) -> str:
        return shlex.quote(str(path))

    text = f"""
deploy it with the AWS CLI, in the region and account it is for (BUCKET: an S3 bucket of yours in that region):
  aws s3 cp --recursive {q(out / CODE_FOLDER)} s3://BUCKET/
  aws cloudformation deploy --stack-name {name} --template-file {q(out / f'{name}.template.json')} --s3-bucket BUCKET \\
      --parameter-overrides {CODE_BUCKET}=BUCKET --capabilities CAPABILITY_NAMED_IAM"""
    if others:
        text += (f"\nthen, in each member account and region: aws cloudformation deploy --stack-name {others[0]} "
                 f"--template-file {q(out / f'{others[0]}.template.json')} --capabilities CAPABILITY_NAMED_IAM")
    return text
