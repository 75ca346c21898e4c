"""Carrying the plan out (pipeline.carry_out) with a ledger in memory: each action done once, each decision not to
act said once, and neither standing for the other; a refusal never becomes a failure, whatever the ledger does."""

from __future__ import annotations

import json
from typing import Any

import pytest
from builders import event, rule_config, rule_status
from planning import parse_event, plan_all

from rule_actions.config import Config
from rule_actions.contract import Outcome
from rule_actions.pipeline import carry_out
from rule_actions.ports import InProgressElsewhere, LedgerUnavailable
from rule_actions.records import Planned

JOB = "demo-job-001"
EXPIRES = "2026-11-26T08:00:00+00:00"
UNNAMED_SMS = '[{"name": "sms", "endpoint": "+15555550100"}]'  # a number only action_json names: denied


class Ledger:
    """ports.Ledger in memory: `work()` once per key (nothing recorded when it raises), then that record marked
    duplicate, as Powertools answers."""

    def __init__(self) -> None:
        self.records: dict[str, dict[str, Any]] = {}
        self.keys: list[dict[str, str]] = []

    def once(self, key, work):
        self.keys.append(key)
        stored = json.dumps(key, sort_keys=True)
        if stored in self.records:
            return {**self.records[stored], "duplicate": True, "ledger_expires": EXPIRES}
        self.records[stored] = work()
        return self.records[stored]

    def mark_stopped(self, job_arn, by, at=None):
        pass


class Broken:
    """A ledger that raises `error` at every use."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def once(self, key, work):
        raise self.error


class Jobs:
    def __init__(self, answer: str = "stopped") -> None:
        self.answer, self.stopped = answer, []

    def stop(self, api, job_name):
        self.stopped.append(job_name)
        return self.answer


class Ports:
    def __init__(self, ledger: Any, jobs: Jobs | None = None) -> None:
        self.ledger, self.jobs, self.region = ledger, jobs or Jobs(), "us-east-1"


def issues_found(action_json: str, **envelope: Any) -> dict[str, Any]:
    return event(debug=[rule_status("VanishingGradient")], debug_configs=[rule_config("VanishingGradient", action_json)],
                 **envelope)


def carried(raw: dict[str, Any], ports: Ports, config: dict[str, Any] | None = None,
            planned: list[Planned] | None = None) -> list[tuple[str, str, str]]:
    """(kind, outcome, reason) of each action of the event (`planned`: instead of the plan's own)."""
    cfg = Config.from_dict({"rules": {}, **(config or {})})
    items = planned if planned is not None else plan_all(raw, cfg, running=(JOB,))
    return [(r.planned.kind, str(r.outcome), r.reason) for r in carry_out(items, cfg, parse_event(raw).event, ports)]


def test_a_refusal_is_said_once_then_a_duplicate_naming_what_was_said():
    # Given a text to a number only action_json names (denied), and a ledger
    ports = Ports(Ledger())

    # When the same event is carried out three times
    first, second, third = (carried(issues_found(UNNAMED_SMS), ports) for _ in range(3))

    # Then the refusal is reported once, with its reason; later, a duplicate saying what was said and until when
    [(kind, outcome, reason)] = first
    assert (kind, outcome) == ("sms", "denied") and reason.startswith("+15555550100 is not a number")
    assert second == third == [("sms", "duplicate", f"already reported: denied ({reason.replace('+15555550100', '+*******0100')}); "
                                                   f"ledger record until {EXPIRES}")]
    # and the ledger keeps the reason redacted, under the action's key with what was decided
    [record] = ports.ledger.records.values()
    assert record == {"reason": reason.replace("+15555550100", "+*******0100")}
    assert ports.ledger.keys[0] == {"job": parse_event(issues_found(UNNAMED_SMS)).event.job_arn,
                                    "family": "Debug", "rule": "VanishingGradient", "kind": "sms",
                                    "target": "+15555550100", "decided": "denied"}


@pytest.mark.parametrize("outcome", [o for o in Outcome if o not in (Outcome.FAILED, Outcome.DONE, Outcome.DUPLICATE)])
def test_every_decision_but_failed_is_said_once(outcome):  # done and duplicate are the ledger's, never the plan's
    # Given a stop the plan decided not to carry out (any outcome, a new one included)
    [stop] = plan_all(issues_found('[{"name": "stoptraining"}]'), Config.from_dict({"rules": {}}), running=(JOB,))
    decided = stop.decided(outcome, "because")
    ports = Ports(Ledger())

    # When it is carried out twice
    first, second = (carried(issues_found("[]"), ports, planned=[decided]) for _ in range(2))

    # Then it is said as decided, then as a duplicate; nothing is stopped
    assert first == [("stoptraining", str(outcome), "because")]
    assert second == [("stoptraining", "duplicate", f"already reported: {outcome} (because); ledger record until {EXPIRES}")]
    assert ports.jobs.stopped == []


def test_a_failed_decision_is_never_recorded_so_a_retry_decides_again():
    [stop] = plan_all(issues_found('[{"name": "stoptraining"}]'), Config.from_dict({"rules": {}}), running=(JOB,))
    ports = Ports(Ledger())
    for _ in range(2):
        assert carried(issues_found("[]"), ports, planned=[stop.decided(Outcome.FAILED, "describe failed")]) == [
            ("stoptraining", "failed", "describe failed")]
    assert ports.ledger.keys == []


@pytest.mark.parametrize("refusal", [Outcome.SKIPPED, Outcome.DRY_RUN, Outcome.DENIED])
def test_a_recorded_refusal_never_stands_for_the_action_done(refusal):
    # Given a stop refused (several matches, dry run, a prefix not allowed), said, then said again as a duplicate
    [stop] = plan_all(issues_found('[{"name": "stoptraining"}]'), Config.from_dict({"rules": {}}), running=(JOB,))
    ports = Ports(Ledger())
    for _ in range(2):
        carried(issues_found("[]"), ports, planned=[stop.decided(refusal, "not now")])

    # When a later delivery allows it (the configuration changed, the other job ended, dry_run off), twice
    allowed, again = (carried(issues_found("[]"), ports, planned=[stop]) for _ in range(2))

    # Then the stop runs, once
    assert allowed == [("stoptraining", "done", f"stopped {JOB}")] and again[0][1] == "duplicate"
    assert ports.jobs.stopped == [JOB]


def test_two_invalid_entries_are_each_said_once():
    # Given two entries whose kind is not understood (both: kind action_json, no target)
    raw = issues_found('[{"name": "reboot"}, {"name": "page"}]')
    ports = Ports(Ledger())

    # When the event is carried out twice
    first, second = carried(raw, ports), carried(raw, ports)

    # Then each is reported with its own field, then each is a duplicate of itself
    assert [(k, o, r.split(":")[0]) for k, o, r in first] == [("action_json", "invalid", "action_json[0].name"),
                                                               ("action_json", "invalid", "action_json[1].name")]
    assert [(o, r[:len("already reported: invalid (action_json[0].name")]) for _, o, r in second] == [
        ("duplicate", "already reported: invalid (action_json[0].name"),
        ("duplicate", "already reported: invalid (action_json[1].name")]


@pytest.mark.parametrize(("error", "note"), [
    (InProgressElsewhere(), "(its ledger record is in progress: reported here too)"),
    (LedgerUnavailable("ProvisionedThroughputExceededException: Rate exceeded", False),
     "(not recorded as reported: ProvisionedThroughputExceededException: Rate exceeded)"),
    (LedgerUnavailable("ProvisionedThroughputExceededException: Rate exceeded", True),
     "(not recorded as reported: ProvisionedThroughputExceededException: Rate exceeded)"),
    (RuntimeError("boom"), "(not recorded as reported: RuntimeError: boom)"),
])
def test_a_refusal_stays_a_refusal_whatever_the_ledger_does(error, note):
    # Given a ledger in progress elsewhere, unavailable (before or after the record), or raising anything else
    ports = Ports(Broken(error))

    # When a denied text is carried out
    [(kind, outcome, reason)] = carried(issues_found(UNNAMED_SMS), ports)

    # Then it is reported denied, with a short note: never failed (a failed action is retried and alarms)
    assert (kind, outcome) == ("sms", "denied") and reason.endswith(f"allow_any_sms is false; texts are billed to the account) {note}")


def test_nothing_done_is_not_recorded_so_a_later_delivery_tries_again():
    # Given a stop the plan allows, whose job SageMaker no longer runs when it is stopped
    raw = issues_found('[{"name": "stoptraining"}]')
    ports = Ports(Ledger(), Jobs("Completed"))

    # When it is carried out twice
    first, second = carried(raw, ports), carried(raw, ports)

    # Then both say there was nothing to stop (skipped, not a duplicate), and both tried
    assert first == second == [("stoptraining", "skipped", f"nothing to stop: {JOB} is Completed")]
    assert ports.jobs.stopped == [JOB, JOB] and ports.ledger.records == {}


def test_the_key_of_the_action_done_is_unchanged():
    # The exactly-once key of a done action is released: changing it would repeat every recorded action
    raw = issues_found('[{"name": "stoptraining"}]')
    ports = Ports(Ledger())
    carried(raw, ports)
    assert ports.ledger.keys == [{"job": parse_event(raw).event.job_arn, "family": "Debug", "rule": "VanishingGradient",
                                  "kind": "stoptraining", "target": JOB}]


def test_a_refusal_is_said_per_job():
    # Given the same refusal said for one job
    ports = Ports(Ledger())
    carried(issues_found(UNNAMED_SMS), ports)

    # When another job's rule asks the same
    other = json.loads(json.dumps(issues_found(UNNAMED_SMS)).replace(JOB, "demo-job-002"))

    # Then that job's refusal is said too
    assert [o for _, o, _ in carried(other, ports)] == ["denied"]


def test_a_rule_listed_twice_in_one_event_says_its_refusal_once():
    # Given an event that lists the same rule status twice (found by the fuzz tests), whose action_json is not JSON
    raw = event(debug=[rule_status("VanishingGradient")] * 2,
                debug_configs=[rule_config("VanishingGradient", "[{oops")])

    # When it is carried out
    said = carried(raw, Ports(Ledger()))

    # Then the refusal is said once, the second a duplicate of it (as a done action of a rule listed twice is)
    assert [(kind, outcome) for kind, outcome, _ in said] == [("action_json", "invalid"), ("action_json", "duplicate")]
    assert said[1][2] == f"already reported: invalid ({said[0][2]}); ledger record until {EXPIRES}"


# ---------------------------------------------------------------- a late event, a job that has ended (issue 36)


class Seeing(Ledger):
    """A ledger in memory that also keeps the order of what it saw of each job (ports.Ledger.saw)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: dict[str, Any] = {}
        self.asked = 0

    def saw(self, job_arn, progress):
        self.asked += 1
        known = self.seen.get(job_arn)
        if known is None or progress.after(known):
            self.seen[job_arn] = progress
            return None
        return known if known.after(progress) else None


class Described(Jobs):
    """SageMaker whose DescribeTrainingJob answers `live` (its status members), counting the calls."""

    def __init__(self, live: dict[str, Any], answer: str = "stopped") -> None:
        super().__init__(answer)
        self.live, self.described = live, 0

    def describe(self, api, job_name):
        self.described += 1
        return self.live


STOP = '[{"name": "stoptraining"}, {"name": "email", "endpoint": "ml@example.com"}]'
COMPLETED = {"TrainingJobStatus": "Completed", "SecondaryStatus": "Completed",
             "TrainingEndTime": "2026-11-24T09:58:00Z"}


def test_a_finding_about_a_job_that_has_completed_stops_nothing_and_says_when_it_ended():
    # Given a finding sent while the job ran, and the job Completed since (its live status)
    ports = Ports(Seeing(), Described(COMPLETED))

    # When it is carried out, then delivered again
    first, again = (carried(issues_found(STOP), ports, {"allowed_endpoints": ["*@example.com"]})[:1]
                    for _ in range(2))

    # Then the stop is skipped naming the live status and when it ended, said once; SageMaker is never asked to
    # stop it, and the job is described once per delivery that had something to do
    assert first == [("stoptraining", "skipped", f"nothing to stop: {JOB} is already Completed (at 2026-11-24 "
                                                  "09:58 UTC); this event showed it InProgress")]
    assert again[0][1] == "duplicate" and "already reported: skipped" in again[0][2]
    assert ports.jobs.stopped == [] and ports.jobs.described == 2


def test_a_finding_about_a_running_job_is_stopped_after_one_describe():
    # Given a finding about a job that still runs (its live status)
    ports = Ports(Seeing(), Described({"TrainingJobStatus": "InProgress", "SecondaryStatus": "Training"}))

    # When it is carried out
    [stop] = carried(issues_found('[{"name": "stoptraining"}]'), ports)

    # Then the stop is done, after one describe
    assert stop == ("stoptraining", "done", f"stopped {JOB}")
    assert ports.jobs.stopped == [JOB] and ports.jobs.described == 1


def test_a_finding_about_a_job_now_uploading_its_model_is_not_stopped():
    # Given a finding sent while the job trained, and the job uploading its model since
    ports = Ports(Seeing(), Described({"TrainingJobStatus": "InProgress", "SecondaryStatus": "Uploading"}))

    # When it is carried out
    [stop] = carried(issues_found('[{"name": "stoptraining"}]'), ports)

    # Then the stop is skipped: its live phase refuses it
    assert stop[:2] == ("stoptraining", "skipped") and "its live phase; this event showed Training" in stop[2]
    assert ports.jobs.stopped == []


def test_a_describe_that_fails_leaves_the_decision_to_the_stop_itself():
    # Given SageMaker whose describe fails, and whose stop answers that the job is Completed
    class Failing(Jobs):
        def describe(self, api, job_name):
            raise RuntimeError("down")

    ports = Ports(Seeing(), Failing("Completed"))

    # When the finding is carried out
    [stop] = carried(issues_found('[{"name": "stoptraining"}]'), ports)

    # Then the stop's own answer decides: skipped, never done
    assert stop == ("stoptraining", "skipped", f"nothing to stop: {JOB} is Completed")


def test_an_event_behind_what_the_ledger_saw_is_not_acted_on_at_all():
    # Given the job's Completed event seen first, then a finding sent while it ran
    ledger = Seeing()
    completed = event(status="Completed", secondary="Completed", debug=[rule_status("VanishingGradient")],
                      debug_configs=[rule_config("VanishingGradient", "[]")], event_id="e-completed")
    carried(completed, Ports(ledger, Described(COMPLETED)), {"job_outcomes": {"Completed": ["notify"]},
                                                            "notify": {"emails": ["team@example.com"]}})
    ports = Ports(ledger, Described({"TrainingJobStatus": "InProgress"}))  # (a describe that lags: the ledger knows)

    # When the late finding is carried out
    late = carried(issues_found(STOP), ports, {"allowed_endpoints": ["*@example.com"]})

    # Then none of its actions is carried out, each said skipped with the reason
    assert [(kind, outcome) for kind, outcome, _ in late] == [("stoptraining", "skipped"), ("email", "skipped")]
    assert all(reason.startswith(f"a late event, not acted on: it shows {JOB} InProgress (Training, ")
               and "an event showing it Completed" in reason for _, _, reason in late)
    assert ports.jobs.stopped == []


def test_a_repeat_of_done_actions_reads_nothing():
    # Given a finding whose stop was done
    ports = Ports(Seeing(), Described({"TrainingJobStatus": "InProgress", "SecondaryStatus": "Training"}))
    carried(issues_found('[{"name": "stoptraining"}]'), ports)
    asked, described = ports.ledger.asked, ports.jobs.described

    # When it is delivered again
    [again] = carried(issues_found('[{"name": "stoptraining"}]'), ports)

    # Then the duplicate is answered by the ledger alone: neither the order nor the live status is read again
    assert again[1] == "duplicate"
    assert (ports.ledger.asked, ports.jobs.described) == (asked, described) == (1, 1)


def test_a_late_finding_stops_no_other_job_either():
    # Given a finding whose stop names a prefix covering other running jobs, and its own job Completed since
    ports = Ports(Seeing(), Described(COMPLETED))
    prefix = '[{"name": "stoptraining", "training_job_prefix": "demo-job-"}]'
    config = {"allow_cross_job_stop": True, "stop_all_matching": True}
    planned = plan_all(issues_found(prefix), Config.from_dict({"rules": {}, **config}),
                       running=(JOB, "demo-job-002"))

    # When it is carried out
    [stop] = carried(issues_found(prefix), ports, config, planned)

    # Then nothing is stopped: what a job that has ended found acts on no job
    assert stop == ("stoptraining", "skipped", f"not acted on: {JOB}, the job this event is about, is already "
                                               "Completed (at 2026-11-24 09:58 UTC): what it found acts on no job; "
                                               "this event showed it InProgress")
    assert ports.jobs.stopped == []
