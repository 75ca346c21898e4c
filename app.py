#!/usr/bin/env python3
"""The CDK app (`cdk.json` runs it): the rule-actions stack from the `rule_actions` and `rule_actions_stack`
context blocks. See infra/app.py."""

import sys

from infra.app import main

if __name__ == "__main__":
    sys.exit(main())
