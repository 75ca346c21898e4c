"""A timeline's series: its jitter is seeded by the job's name, whatever characters that name holds."""

from __future__ import annotations

from rule_actions_cli.timeline import Series


def test_a_jittered_series_takes_a_job_name_with_a_lone_surrogate():
    # Given a jittered series (a timeline's job names come from JSON, where "\udc80" is valid)
    series = Series(metric="GPUUtilization", hosts=None, start=0, end=5, value=(1.0, 2.0), jitter=0.5)
    # When its value is read for a job whose name holds a lone surrogate
    value = series.at("job-\udc80", None, 1)
    # Then it is a value, the same at each read (not a UnicodeEncodeError)
    assert value is not None and value == series.at("job-\udc80", None, 1)
