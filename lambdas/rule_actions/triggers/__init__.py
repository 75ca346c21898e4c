"""The trigger families, one module each (triggers/base.py says what a family holds); rule_actions.registry lists
them."""
