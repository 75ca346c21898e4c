"""`python -m rule_actions_cdk app.py`: run a CDK app of yours as `python app.py` would (cdk.json's "app", as
`rule-actions init --cdk` writes it), with two differences a person reading `cdk synth` sees:

- no end-of-life banner of the jsii runtime (eleven `b'!!...'` lines when Node.js is past its end of life): it is
  silenced for the running Node.js before aws_cdk starts it, whatever the app imports first;
- an invalid configuration is one message and exit status 1, not a Python traceback.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

USAGE = "usage: python -m rule_actions_cdk APP.py [ARG ...]  (cdk.json: \"app\": \"python3 -m rule_actions_cdk app.py\")"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or not args[0].endswith(".py"):
        print(USAGE, file=sys.stderr)
        return 2
    app = Path(args[0])
    if not app.is_file():
        print(f"rule-actions: {app}: no such file (the CDK app cdk.json runs)", file=sys.stderr)
        return 2
    from rule_actions.config import ConfigError
    from rule_actions_cdk.app import quiet_node

    quiet_node()
    sys.argv = [str(app), *args[1:]]
    sys.path.insert(0, str(app.resolve().parent))  # as `python app.py` puts the app's folder first
    try:
        runpy.run_path(str(app), run_name="__main__")
    except ConfigError as err:  # the construct refused the configuration: the message names each bad field
        print(f"rule-actions: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
