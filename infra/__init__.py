"""The CDK side of rule-actions: the event pattern, the `RuleActions` construct, its stack and the app.

Importing `infra.pattern` or `infra.settings` costs nothing; `infra.construct`, `infra.stack` and `infra.app`
load aws-cdk-lib (a jsii runtime start-up of a few seconds).
"""
