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
import io
import json
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

CODE_FOLDER = "code"
# A fixed timestamp and mode, so that one asset gives one zip byte for byte.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)
FILE_MODE = 0o644 << 16


def add_parser(commands: argparse._SubParsersAction) -> None:
    template = commands.add_parser(
        "template", help="write the stack as a CloudFormation template and its code zips (no CDK needed to deploy)",
        description="Synthesizes the stack of a configuration file into a CloudFormation template whose code is "
        "read from a bucket you name at deploy time (its CodeBucket parameter), and the code zips to upload there. "
        "The account needs no CDK bootstrap; the AWS CLI deploys it (the commands are printed).")
    template.add_argument("--config", metavar="FILE", help="the configuration file (default: ./rule-actions.json if "
                          "there is one, else the defaults)")
    template.add_argument("--out", default="rule-actions-template", metavar="DIR",
                          help="where to write the template(s) and code/ (default: ./rule-actions-template)")


def zip_directory(source: Path) -> bytes:
    """`source`'s files (no bytecode caches) as a zip Lambda reads: sorted, readable by all, with a fixed
    timestamp, so that one directory gives one zip byte for byte."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(p for p in source.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            entry = zipfile.ZipInfo(path.relative_to(source).as_posix(), ZIP_TIME)
            entry.external_attr, entry.compress_type = FILE_MODE, zipfile.ZIP_DEFLATED
            archive.writestr(entry, path.read_bytes())
    return buffer.getvalue()


def write(assembly: Path, stacks: list[str], out: Path) -> list[Path]:
    """The stacks' templates and the code zips they name, from a synthesized assembly into `out`."""
    (out / CODE_FOLDER).mkdir(parents=True, exist_ok=True)
    written = []
    for stack in stacks:
        template = f"{stack}.template.json"
        written.append(Path(shutil.copyfile(assembly / template, out / template)))
        manifest = assembly / f"{stack}.assets.json"
        files = json.loads(manifest.read_text()).get("files", {}) if manifest.is_file() else {}
        for asset in files.values():
            source = asset["source"]
            if source["path"] == template:  # the template, which the CDK CLI would upload; written above
                continue
            [key] = {d["objectKey"] for d in asset["destinations"].values()}
            target = out / CODE_FOLDER / key
            if source["packaging"] == "zip":
                target.write_bytes(zip_directory(assembly / source["path"]))
            else:
                shutil.copyfile(assembly / source["path"], target)
            written.append(target)
    return written


def run(args: argparse.Namespace) -> int:
    from rule_actions.config import ConfigError
    from rule_actions_cli.inputs import replay_context

    context, errors = replay_context(args.config, dry_run=False)
    for line in errors:
        print(f"rule-actions: {line}", file=sys.stderr)
    if errors:
        return 2
    from rule_actions_cdk.app import CODE_BUCKET, build_app  # starts the jsii runtime

    with tempfile.TemporaryDirectory(prefix="rule-actions-template-") as work:
        try:
            app, stack = build_app(context, outdir=work, portable=True)
            app.synth()
        except (ConfigError, RuntimeError) as err:
            print(f"rule-actions: synthesis failed: {err}", file=sys.stderr)
            return 1
        manifest = json.loads((Path(work) / "manifest.json").read_text())
        stacks = [name for name, a in manifest["artifacts"].items() if a["type"] == "aws:cloudformation:stack"]
        out = Path(args.out)
        written = write(Path(work), [stack.stack_name, *(s for s in stacks if s != stack.stack_name)], out)
    for path in written:
        print(f"wrote {path}")
    name = stack.stack_name
    print(f"""
deploy it with the AWS CLI, in the region and account it is for (BUCKET: an S3 bucket of yours in that region):
  aws s3 cp --recursive {out / CODE_FOLDER} s3://BUCKET/
  aws cloudformation deploy --stack-name {name} --template-file {out / f'{name}.template.json'} --s3-bucket BUCKET \\
      --parameter-overrides {CODE_BUCKET}=BUCKET --capabilities CAPABILITY_NAMED_IAM""")
    members = [s for s in stacks if s != name]
    if members:
        print(f"then, in each member account and region: aws cloudformation deploy --stack-name {members[0]} "
              f"--template-file {out / f'{members[0]}.template.json'} --capabilities CAPABILITY_NAMED_IAM")
    return 0
