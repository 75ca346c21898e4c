"""The CDK side of rule-actions: the `RuleActions` construct, its stack and the app (the event pattern and the IAM
statements derive from the plug-ins: rule_actions.registry).

Importing `infra.settings` costs nothing; `infra.construct`, `infra.stack` and `infra.app`
load aws-cdk-lib (a jsii runtime start-up of a few seconds).
"""
