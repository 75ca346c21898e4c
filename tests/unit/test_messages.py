"""What people read: subject, body, SMS text, console and log links. Untrusted names stay plain text."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from urllib.parse import unquote, urlsplit

import pytest
from builders import event, monitor_event, rule_status
from planning import parse_event, plan_all, renamed
from wording import (
    body,
    duration,
    job_link,
    job_log_link,
    one_line,
    outcome_body,
    plain,
    render,
    rule_log_link,
    sms,
    subject,
)

from rule_actions.contract import Outcome
from rule_actions.privacy import redact
from rule_actions.triggers.job_outcome import JobOutcome

REGION = "us-east-1"
PROCESSING_ARN = "arn:aws:sagemaker:us-east-1:123456789012:processing-job/demo-job-001-vanishinggradient-1a2b3c4d"
PRINTABLE_ASCII = re.compile(r"[\x20-\x7e]*")
CONTROLS = "\x00\x07\x08\x0b\x0c\x0d\x1b\x7f\x85\x9b\u2028\u2029"
TAKEN = [
    {"rule": "VanishingGradient", "kind": "stoptraining", "target": "demo-job-001", "jobs": ["demo-job-001"], "origin": "action_json", "outcome": "done", "reason": "stopped demo-job-001"},
    {"rule": "VanishingGradient", "kind": "email", "target": "ml@example.com", "origin": "action_json", "outcome": "denied", "reason": "ml@example.com is not in allowed_endpoints"},
]


def job_and_rule(job="demo-job-001", rule="VanishingGradient", state="IssuesFound", job_status="InProgress", secondary="Training", **status):
    """A parsed event and its one rule; `status` overrides the rule status entry's fields."""
    parsed = parse_event(event(status=job_status, secondary=secondary, debug=[rule_status(rule, state, job=job[:40], **status)]))
    return renamed(parsed, job), parsed.rules[0]


# --- subject -------------------------------------------------------------------------------------------------

ODD_NAMES = {
    "ordinary": ("VanishingGradient", "demo-job-001"),
    "300-char rule": ("R" * 300, "demo-job-001"),
    "300-char job": ("VanishingGradient", "J" * 300),
    "both 300 chars": ("R" * 300, "J" * 300),
    "newlines": ("Loss\nNot\r\nDecreasing", "demo\njob"),
    "control characters": (f"Loss{CONTROLS}Rule", f"job{CONTROLS}1"),
    "non-ASCII": ("Überanpassung-日本語", "jöb-ü"),
    "markup": ("<script>alert(1)</script>", "<b>job</b>"),
    "tabs and spaces": ("  Loss\t\tRule  ", "job\t1"),
}


@pytest.mark.parametrize("label", list(ODD_NAMES))
@pytest.mark.parametrize("state", ["IssuesFound", "Error"])
def test_subject_is_one_short_printable_ascii_line(label, state):
    # Given untrusted rule and job names
    rule_name, job_name = ODD_NAMES[label]
    parsed, rule = job_and_rule(job=job_name, rule=rule_name, state=state)

    # When the subject is written
    text = subject(parsed, rule)

    # Then it fits SNS: at most 100 printable ASCII characters, one line, not blank
    assert 0 < len(text) <= 100
    assert PRINTABLE_ASCII.fullmatch(text), repr(text)
    assert text.strip()


@pytest.mark.parametrize(
    "label",
    [
        "ordinary",
        "300-char rule",
        "300-char job",
        "both 300 chars",
    ],
)
def test_subject_names_the_rule_and_the_job_even_when_long(label):
    # Given rule and job names, possibly very long
    rule_name, job_name = ODD_NAMES[label]
    parsed, rule = job_and_rule(job=job_name, rule=rule_name)

    # When the subject is written
    text = subject(parsed, rule)

    # Then both are recognizable in it (at least their first 20 characters)
    assert rule_name[:20] in text
    assert job_name[:20] in text


def test_subject_names_both_in_full_when_they_fit():
    # Given ordinary names with newlines in them
    parsed, rule = job_and_rule(job="demo-job-001", rule="Loss\nNotDecreasing")

    # When the subject is written
    text = subject(parsed, rule)

    # Then both appear (the newline as a space)
    assert "Loss NotDecreasing" in text
    assert "demo-job-001" in text


# --- body ----------------------------------------------------------------------------------------------------


def test_body_says_what_happened_what_was_done_and_where_to_look():
    # Given an IssuesFound rule with details, an evaluation job and two actions taken
    parsed, rule = job_and_rule(RuleEvaluationJobArn=PROCESSING_ARN, StatusDetails="RuleEvaluationConditionMet: loss exploded at step 500\n")

    # When the body is written
    text = body(parsed, rule, "eu-west-1", TAKEN)

    # Then it has the job, its status, the rule, its status and details, the time and the region
    for fragment in ("demo-job-001", "InProgress", "VanishingGradient", "IssuesFound", "loss exploded at step 500", "eu-west-1"):
        assert fragment in text
    when = rule.last_modified
    assert when is not None and when.strftime("%Y-%m-%d") in text and when.strftime("%H:%M:%S") in text
    # the actions taken, with their outcomes (targets redacted, as in every result)
    for action in TAKEN:
        assert action["kind"] in text and redact(action["target"]) in text and action["outcome"] in text
    # the console link to the job and the rule's logs
    assert "https://eu-west-1.console.aws.amazon.com/sagemaker/home?region=eu-west-1#/jobs/demo-job-001" in text
    log_link = rule_log_link("eu-west-1", PROCESSING_ARN)
    assert log_link and log_link in text


def test_body_time_is_the_rules_last_modified_time():
    # Given a rule whose LastModifiedTime differs from the event time
    parsed, rule = job_and_rule(LastModifiedTime="1700000000000")

    # When the body is written
    text = body(parsed, rule, REGION, [])

    # Then the rule's own time is shown
    shown = datetime.fromtimestamp(1_700_000_000, tz=UTC)
    assert shown.strftime("%Y-%m-%d") in text and shown.strftime("%H:%M:%S") in text


def test_body_without_an_evaluation_job_has_no_log_link():
    # Given a rule status without RuleEvaluationJobArn
    status = {k: v for k, v in rule_status("Overfit").items() if k != "RuleEvaluationJobArn"}
    parsed = parse_event(event(debug=[status]))
    rule = parsed.rules[0]

    # When the body is written
    text = body(parsed, rule, REGION, [])

    # Then there is the console link, and no logs link
    assert "/sagemaker/home?" in text
    assert "cloudwatch" not in text.lower()


def test_body_says_when_no_action_was_taken():
    # Given no actions
    parsed, rule = job_and_rule(state="Error", StatusDetails="")

    # When the body is written
    text = body(parsed, rule, REGION, [])

    # Then it still names the rule's Error status and reads as complete
    assert "Error" in text
    assert "VanishingGradient" in text
    assert "stoptraining" not in text


def test_body_keeps_markup_as_literal_text_and_removes_control_characters():
    # Given names and details with markup and control characters
    rule_name = f"<script>alert('x')</script>{CONTROLS}Rule"
    job_name = f"<img src=x onerror=alert(1)>{CONTROLS}job"
    parsed, rule = job_and_rule(job=job_name, rule=rule_name, StatusDetails=f"<b>bold</b>{CONTROLS}details")

    # When the body is written
    text = body(parsed, rule, REGION, [{"kind": "email", "target": f"x{CONTROLS}@example.com", "outcome": "invalid", "reason": f"bad{CONTROLS}"}])

    # Then the markup is there, verbatim (not escaped, not interpreted)
    assert "<script>alert('x')</script>Rule" in text
    assert "<img src=x onerror=alert(1)>job" in text
    assert "<b>bold</b>details" in text
    assert "&lt;" not in text
    # and no control character remains (line breaks and tabs of the layout aside)
    assert not [c for c in text if (ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F or c in "\u2028\u2029"]


def test_a_newline_in_a_name_cannot_forge_a_line_of_the_body():
    # Given rule and job names that try to add lines of their own
    parsed, rule = job_and_rule(job="demo\nActions taken for this rule:", rule="Overfit\n  - stoptraining demo-job-001: done")

    # When the body is written
    lines = body(parsed, rule, REGION, []).splitlines()

    # Then the injected text starts no line: the body's own heading stays the only one, and no action is forged
    assert [line for line in lines if line.startswith("Actions taken for this rule:")] == ["Actions taken for this rule:"]
    assert not [line for line in lines if line.startswith("  - stoptraining")]


def test_multi_line_status_details_stay_inside_the_details_block():
    # Given status details on several lines (as SageMaker writes them)
    parsed, rule = job_and_rule(StatusDetails="line one\nline two\n")

    # When the body is written
    lines = body(parsed, rule, REGION, []).splitlines()

    # Then every details line is indented under "Status details"
    assert any(line.strip() == "line one" and line.startswith(" ") for line in lines)
    assert any(line.strip() == "line two" and line.startswith(" ") for line in lines)


# --- links ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("region", ["us-east-1", "eu-central-1", "ap-southeast-2"])
def test_job_link_has_the_console_form(region):
    # Given an ordinary job name
    # When its link is written
    # Then it is the SageMaker console's job page
    assert job_link(region, "demo-job-001") == f"https://{region}.console.aws.amazon.com/sagemaker/home?region={region}#/jobs/demo-job-001"


@pytest.mark.parametrize("name", ["job#frag", "a/b/../c", "my job", "x?region=evil", "100%", "é-job", "a&b=c", "line\nbreak", "<script>"])
def test_job_link_percent_encodes_the_name(name):
    # Given a job name with characters that could break a URL
    # When its link is written
    link = job_link(REGION, name)

    # Then the URL keeps its shape: the name is one encoded path segment of the fragment
    head, _, encoded = link.partition("#/jobs/")
    assert head == f"https://{REGION}.console.aws.amazon.com/sagemaker/home?region={REGION}"
    assert re.fullmatch(r"[A-Za-z0-9._~%-]+", encoded), encoded
    assert unquote(encoded) == name
    assert urlsplit(link).query == f"region={REGION}"


def test_body_links_cannot_be_broken_by_the_job_name():
    # Given a job name with a space, # and /
    parsed, rule = job_and_rule(job="my job#1/x")

    # When the body is written
    text = body(parsed, rule, REGION, [])

    # Then the console link is one whitespace-free token that decodes to the job's name
    (link,) = [token for token in text.split() if token.startswith(f"https://{REGION}.console.aws.amazon.com/sagemaker/")]
    assert unquote(link.partition("#/jobs/")[2]) == "my job#1/x"


def test_rule_log_link_points_at_the_evaluation_jobs_logs():
    # Given a rule evaluation (processing) job ARN
    # When its log link is written
    link = rule_log_link("eu-west-1", PROCESSING_ARN)

    # Then it is a CloudWatch Logs console link in that region, naming the processing job's log group and job
    assert link is not None
    assert link.startswith("https://eu-west-1.console.aws.amazon.com/cloudwatch/home?region=eu-west-1#logsV2:")
    assert "ProcessingJobs" in link
    assert "demo-job-001-vanishinggradient-1a2b3c4d" in link
    assert not re.search(r"\s", link)


@pytest.mark.parametrize(
    "arn",
    ["", "arn:aws:sagemaker:us-east-1:123456789012:training-job/demo-job-001", "not an arn", "arn:aws:sagemaker:us-east-1:123456789012:processing-job/"],
)
def test_no_log_link_without_a_processing_job(arn):
    # Given no usable rule evaluation job ARN
    # When the log link is asked for
    # Then there is none
    assert rule_log_link(REGION, arn) is None


def test_rule_log_link_percent_encodes_the_job_name():
    # Given a hostile name in the ARN
    link = rule_log_link(REGION, "arn:aws:sagemaker:us-east-1:123456789012:processing-job/evil name#frag?x=<y>")

    # When written
    # Then nothing in it can end or split the URL
    assert link is not None
    assert not set(link) & set(" \n<>\"")
    assert link.count("#") == 1  # only the console's own fragment marker


# --- SMS -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("label", list(ODD_NAMES))
def test_sms_is_at_most_140_characters_on_one_line(label):
    # Given untrusted names
    rule_name, job_name = ODD_NAMES[label]
    parsed, rule = job_and_rule(job=job_name, rule=rule_name)
    stopped = [{"kind": "stoptraining", "target": job_name, "outcome": "done", "reason": "", "jobs": [job_name] * 5}]

    # When the SMS text is written
    text = sms(parsed, rule, stopped)

    # Then it fits in one SMS, one printable line
    assert 0 < len(text) <= 140
    assert PRINTABLE_ASCII.fullmatch(text), repr(text)


def test_sms_and_subject_spell_common_non_ascii_characters_in_ascii_instead_of_question_marks():
    # Given a rule whose name holds accents, a dash and a typographic apostrophe (SMS and subjects are ASCII)
    parsed, rule = job_and_rule(rule="Überfit—Café’s «Straße» …")

    # When the SMS text and the subject are written
    text, title = sms(parsed, rule, TAKEN), subject(parsed, rule)

    # Then each character is spelled in ASCII, not replaced by "?"
    assert "Uberfit-Cafe's \"Strasse\" ..." in text
    assert "Uberfit-Cafe's" in title
    assert "?" not in text and "?" not in title
    # And a character with no ASCII spelling is still "?"
    assert one_line("a中b") == "a?b"


def test_sms_names_rule_job_and_the_stopped_job():
    # Given a stop that was done
    parsed, rule = job_and_rule()

    # When the SMS text is written
    text = sms(parsed, rule, TAKEN)

    # Then it names the rule and the job, and says the job was stopped
    assert "VanishingGradient" in text
    assert "demo-job-001" in text
    assert "stopped" in text


def test_sms_does_not_claim_a_stop_that_was_not_done():
    # Given a stop that was denied
    parsed, rule = job_and_rule()
    denied = [{"kind": "stoptraining", "target": "demo-job-001", "outcome": "denied", "reason": "no", "jobs": []}]

    # When the SMS text is written
    # Then it does not say anything was stopped
    assert "stopped" not in sms(parsed, rule, denied)


def watched_rule(mode: str = "watch"):
    """A monitor rule's event in `mode`, its trigger, and the result of its stop as the pipeline reports it."""
    raw = monitor_event(mode)
    [stop, _notify] = plan_all(raw, {"notify": {"emails": ["team@example.com"]},
                                     "rules": {"StalledTraining": ["stoptraining", "notify"]}},
                               running=("demo-job-001",), team_subscribed=True)
    parsed = parse_event(raw)
    return parsed, parsed.rules[0], [stop.result(stop.outcome or Outcome.DONE, stop.reason or "stopped demo-job-001",
                                                 () if stop.outcome else ("demo-job-001",))]


def test_a_watched_rules_email_says_what_it_would_have_stopped():
    # Given a monitor rule in watch mode whose stop was watched
    parsed, rule, taken = watched_rule()
    # When its email is written
    lines = body(parsed, rule, REGION, taken).splitlines()
    # Then its second line says the rule watches and what it would have stopped, and the actions list the stop
    assert lines[1] == ("Watch mode: the rule would have stopped demo-job-001; nothing was stopped (set the rule's "
                        "mode to act to let it stop jobs).")
    assert ("  - stoptraining demo-job-001: watched (watch mode: would stop demo-job-001; nothing was changed)"
            in lines)


def test_a_watched_rules_sms_says_would_stop():
    parsed, rule, taken = watched_rule()
    assert sms(parsed, rule, taken) == ("rule-actions: StalledTraining issues found in demo-job-001 (InProgress); "
                                        "would stop it (watch mode)")


def test_an_acting_rules_messages_say_nothing_of_watch_mode():
    # Given the same rule in act mode, its stop done
    parsed, rule, taken = watched_rule("act")
    # Then its messages say it stopped the job, and nothing of a watch
    text = body(parsed, rule, REGION, taken)
    assert "Watch mode" not in text and "would stop" not in text and "stoptraining demo-job-001: done" in text
    assert sms(parsed, rule, taken).endswith("issues found in demo-job-001 (InProgress); stopped it")


# --- plain text helpers --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("<script>x</script>", "<script>x</script>"),
        ("a\x00b\x1bc\x7fd\x85e\u2028f", "abcdef"),
        ("one\nline\tand tabs", "one line and tabs"),
        ("naïve 日本", "naïve 日本"),
    ],
)
def test_plain_removes_control_characters_only(raw, expected):
    # Given untrusted text
    # When it is made plain
    # Then only control characters go
    assert plain(raw) == expected


@pytest.mark.parametrize("limit", [10, 50, 100])
def test_plain_and_one_line_respect_their_limit(limit):
    # Given long text
    text = "word " * 500

    # When capped
    # Then never longer than the limit
    assert len(plain(text, limit)) <= limit
    assert len(one_line(text, limit)) <= limit


def test_one_line_is_printable_ascii_on_one_line():
    # Given text with line breaks, controls and non-ASCII
    text = f"a\nb\r\nc\t{CONTROLS}d ü 日本 \u00a0e"

    # When put on one line
    result = one_line(text)

    # Then it is printable ASCII with single spaces
    assert PRINTABLE_ASCII.fullmatch(result)
    assert "  " not in result
    assert result.startswith("a b c")


def test_plain_keeps_lines_only_when_asked():
    # Given status details over several lines
    # When made plain as multi-line text
    # Then newlines and tabs stay, other control characters go
    assert plain("line one\n\tline two\x07", multiline=True) == "line one\n\tline two"


# --- job outcomes --------------------------------------------------------------------------------------------

OUTCOME_EVENTS = {  # outcome -> (TrainingJobStatus, SecondaryStatus)
    "Failed": ("Failed", "Failed"),
    "MaxRuntimeExceeded": ("Stopped", "MaxRuntimeExceeded"),
    "MaxWaitTimeExceeded": ("Stopped", "MaxWaitTimeExceeded"),
    "Interrupted": ("InProgress", "Interrupted"),
    "Stopped": ("Stopped", "Stopped"),
    "Completed": ("Completed", "Completed"),
}


def outcome_event(outcome, job="demo-job-001", **detail):
    status, secondary = OUTCOME_EVENTS[outcome]
    raw = event(status=status, secondary=secondary)
    raw["detail"].update(detail)
    parsed = parse_event(raw)
    assert parsed.outcome == JobOutcome(outcome)
    return renamed(parsed, job)


@pytest.mark.parametrize("outcome", list(OUTCOME_EVENTS))
@pytest.mark.parametrize("label", list(ODD_NAMES))
def test_outcome_messages_fit_sns_whatever_the_names_and_reason(outcome, label):
    # Given an untrusted job name and failure reason
    _, job = ODD_NAMES[label]
    parsed = outcome_event(outcome, job=job, FailureReason=f"AlgorithmError: {job}\nline two{CONTROLS}" * 50)

    # When its message is rendered
    message = render(parsed, parsed.outcome, REGION)

    # Then the subject and text are short printable ASCII lines, the body plain text with bounded values
    assert 0 < len(message.subject) <= 100 and PRINTABLE_ASCII.fullmatch(message.subject)
    assert 0 < len(message.short) <= 140 and PRINTABLE_ASCII.fullmatch(message.short)
    assert not set(CONTROLS) - {"\r"} & set(message.body.replace("\n", ""))
    assert len(message.body) < 6000
    assert message.body.splitlines()[0].startswith("SageMaker training job ")


def test_an_outcome_body_shows_reason_times_transitions_and_links():
    # Given a failed job with a multi-line reason, timings and five transitions
    transitions = [{"Status": s, "StartTime": str(1763800000000 + i * 60_000), "StatusMessage": f"{s} message"}
                   for i, s in enumerate(["Starting", "Downloading", "Training", "Uploading", "Failed"])]
    parsed = outcome_event("Failed", FailureReason="AlgorithmError: boom\nTraceback line", TrainingStartTime="1763800000000",
                           TrainingEndTime="1763803725000", TrainingTimeInSeconds=3725, BillableTimeInSeconds=3725,
                           SecondaryStatusTransitions=transitions)

    # When it is rendered
    body = outcome_body(parsed, parsed.outcome, REGION)

    # Then the reason keeps its lines (indented), the run time is readable, the last four transitions are listed
    assert "Failure reason:\n  AlgorithmError: boom\n  Traceback line" in body
    assert "Ran for:        1 h 2 min 5 s (billable 1 h 2 min 5 s)" in body
    listed = body.split("Last status transitions:\n")[1].split("\n\n")[0].splitlines()
    assert [line.split()[2] for line in listed] == ["Downloading:", "Training:", "Uploading:", "Failed:"]
    assert "Failed: Failed message" in listed[-1]
    assert f"Training job in the console: {job_link(REGION, 'demo-job-001')}" in body
    assert f"Training job logs:           {job_log_link(REGION, 'demo-job-001')}" in body


def test_an_outcome_without_timings_says_so_plainly():
    parsed = outcome_event("Stopped")
    body = outcome_body(parsed, parsed.outcome, REGION)
    assert "Ran for:" not in body and "Failure reason:" not in body and "Last status transitions:" not in body
    assert "Started:        unknown" in body


@pytest.mark.parametrize(("seconds", "text"), [(0, "0 s"), (59, "59 s"), (61, "1 min 1 s"), (3600, "1 h"),
                                              (90061, "25 h 1 min 1 s")])
def test_durations_read_plainly(seconds, text):
    assert duration(seconds) == text


def test_the_job_log_link_points_at_the_jobs_streams():
    link = job_log_link("eu-west-1", "demo-job-001")
    assert link.startswith("https://eu-west-1.console.aws.amazon.com/cloudwatch/home?region=eu-west-1#logsV2:")
    assert "$252Faws$252Fsagemaker$252FTrainingJobs$3FlogStreamNameFilter$3Ddemo-job-001" in link
