"""Benchmarks for rule-actions (issue 5): `make bench` (= `.venv/bin/python -m bench`) runs them all and prints
numbers, targets and PASS/MISS; nothing here is a test. `python -m bench 2 4` runs a selection.

1. invocations.py  Lambda invocations and actions over events/lifecycle-*.json, ours vs the AWS documentation sample
2. api_calls.py    AWS API calls per actionable event (actions vs overhead: DescribeTrainingJob, ledger)
3. cold_start.py   handler import vs bare boto3 in fresh interpreters; first-invocation cost
4. throughput.py   10,000 generated events (generator.py) through the embedded account: events/s, p50/p99
...
9. prices.py       Price List calls (pricing:GetProducts) per evaluation run with budgets, and per stop event
"""
