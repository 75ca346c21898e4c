"""The readers, one module per kind of read (readers/base.py says what a reader holds); rule_actions.registry
lists them."""
