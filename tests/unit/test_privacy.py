"""The one redaction rule (rule_actions.privacy.redact): what it rewrites, what it keeps, and that it is cheap."""

from __future__ import annotations

import signal

import pytest

from rule_actions.privacy import redact


@pytest.mark.parametrize(("text", "expected"), [
    ("ml@example.com", "m***@example.com"),
    ("sent to first.last@mail.example.co.uk (message 1)", "sent to f***@mail.example.co.uk (message 1)"),
    ('"target":"ML@Example.COM"', '"target":"M***@Example.COM"'),
    ("first.last@mail", "f***@mail"),  # not a valid address, still somebody's
    ("+15555550100", "+*******0100"),
    ("call +1 (555) 555-0100 now", "call +*******0100 now"),
    ("https://hooks.slack.com/services/T000/B000/XXXX", "https://hooks.slack.com/***"),
    ("see https://user:secret@hooks.example.com/path?key=v", "see https://hooks.example.com/***"),
    ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),  # a bare host: nothing secret to hide
    ("s3://bucket/datasets/train", "s3://bucket/***"),
    # the prose after a URL stays: a restart's "(s3://...); at most", the loop guard's "under s3://...: 08:40"
    ("checkpoint of 08:40 (s3://ml-checkpoints/llm/job-1); at most 40 min", "checkpoint of 08:40 "
     "(s3://ml-checkpoints/***); at most 40 min"),
    ("the newest under s3://ml-checkpoints/llm/job-1: 08:40", "the newest under s3://ml-checkpoints/***: 08:40"),
    ("see https://hooks.example.com/T0/B1/xyz?k=v.", "see https://hooks.example.com/***."),
])
def test_addresses_numbers_and_urls_are_redacted(text, expected):
    assert redact(text) == expected


@pytest.mark.parametrize("text", [
    "stopped demo-job-001",
    "arn:aws:sagemaker:us-east-1:123456789012:training-job/demo-job-001",
    "2026-11-23T10:00:00+00:00",
    "ledger record until 2026-11-26T08:00:00+00:00",
    "message 9bcf204d-c8d8-442a-8739-144e60d1ebdf",
    "@logger.inject_lambda_context",
    "+1000 ms",
])
def test_what_is_not_personal_is_kept(text):
    assert redact(text) == text


def test_redacting_twice_changes_nothing_and_containers_are_walked():
    once = redact({"a": ["ml@example.com", ("+15555550100", 3)], "b": None})
    assert once == {"a": ["m***@example.com", ("+*******0100", 3)], "b": None}
    assert redact(once) == once


@pytest.mark.parametrize("text", ["R" * 100_000, "a" * 100_000 + "@", "+" + "1" * 100_000,
                                  "https://" + "x" * 100_000, "a." * 50_000 + "@x.com", "x@" * 50_000])
def test_hostile_input_does_not_hang_the_function(text):
    # Given a 100,000-character value (a hostile rule name, say): an unbounded pattern took 75 s on one log line
    def hung(*_):
        raise TimeoutError("redact hung on a 100,000-character value")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(10)  # a watchdog for a hang, not a performance target (bench/ measures speed)
    try:
        # When it is redacted / Then it returns
        result = redact(text)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert isinstance(result, str)


@pytest.mark.parametrize(("text", "expected"), [
    # a tag's sms entry, whatever the number's shape (issue 27)
    ("sms=15555550143", "sms=*******0143"),
    ("stoptraining SMS=1-555-555-0144 notify", "stoptraining SMS=*-***-***-0144 notify"),
    ('action_json: "sms=1.555.555.0145 sms=0015555550146"', 'action_json: "sms=*.***.***.0145 sms=*********0146"'),
    # an endpoint in JSON, plain or escaped (a quoted action_json)
    ('[{"name": "sms", "endpoint": "(555) 555-0147"}]', '[{"name": "sms", "endpoint": "(***) ***-0147"}]'),
    ('[{\\"name\\": \\"sms\\", \\"endpoint\\": \\"555 555 0148\\"}]',
     '[{\\"name\\": \\"sms\\", \\"endpoint\\": \\"*** *** 0148\\"}]'),
    # a value the grammar rejected as a phone number, as its error quotes it (and in a JSON log line)
    ('action_json[0].endpoint: "tel:15555550150" is not an E.164 phone number (like +15555550100)',
     'action_json[0].endpoint: "tel:*******0150" is not an E.164 phone number (like +*******0100)'),
    ('"reason":"x: \\"1 555-555-0149\\" is not an E.164 phone number"',
     '"reason":"x: \\"* ***-***-0149\\" is not an E.164 phone number"'),
])
def test_a_phone_number_of_any_shape_is_redacted_where_a_phone_number_goes(text, expected):
    assert redact(text) == expected
    assert redact(expected) == expected


@pytest.mark.parametrize("target", ["15555550143", "1-555-555-0144", "(555) 555-0147", "tel:15555550150"])
def test_an_sms_action_s_target_is_a_phone_number_whatever_its_shape(target):
    # Given an sms action whose endpoint the grammar rejected (its row names the target)
    from rule_actions.privacy import redact_target
    # When its target is redacted; Then only its last four digits are kept; other kinds' targets are as before
    redacted = redact_target("sms", target)
    assert redacted.endswith(target[-4:]) and sum(c.isdigit() for c in redacted) == 4
    assert redact_target("stoptraining", "exp-20261124") == "exp-20261124"
    assert redact_target("email", "ml@example.com") == "m***@example.com"
