"""The action kinds, one module each (kinds/base.py says what a kind holds); rule_actions.registry lists them."""
