#!/usr/bin/env python3
"""The CDK app (`cdk.json` runs it): the rule-actions stack of ./rule-actions.json (or of the file or blocks the
context names). See infra/rule_actions_cdk/app.py."""

import sys

from rule_actions_cdk.app import main

if __name__ == "__main__":
    sys.exit(main())
