from builders import SDK_ACTIONS, event, rule_config, rule_status


def test_sdk_actions_stop_the_job_and_email_once(aws):
    # Given an InProgress job whose VanishingGradient rule carries the SDK's action_json
    aws.configure(notify={"emails": ["team@example.com"]})
    aws.put_job("demo-job-001")
    issues = event(debug=[rule_status("VanishingGradient")], debug_configs=[rule_config("VanishingGradient", SDK_ACTIONS)])

    # When the IssuesFound event arrives twice
    first = aws.invoke(issues)
    second = aws.invoke(issues)

    # Then the job is stopped and the email sent once; the repeat is a duplicate
    print(first)
    assert [(a["kind"], a["outcome"]) for a in first["actions"]] == [("stoptraining", "done"), ("email", "done"), ("notify", "done")]
    assert [a["outcome"] for a in second["actions"]] == ["duplicate"] * 3
    assert aws.status("demo-job-001") == "Stopping"
    assert len(aws.inbox("ml@example.com")) == 1
