"""The SageMaker job families, one module each (jobs/base.py says what a family holds); rule_actions.registry
lists them."""
