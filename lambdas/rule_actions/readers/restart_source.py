"""RestartSource: what a copy of a training job is made from: its description, its tags (ListTags) and, when its
checkpoint is under the configured prefixes, the newest object there (ListObjectsV2: a restart's loop guard)."""

from __future__ import annotations

from rule_actions.ports import Ports
from rule_actions.readers.base import Reader
from rule_actions.records import RestartSource, Source


def under(s3_uri: str, prefixes: tuple[str, ...]) -> bool:
    """`s3_uri` is one of the prefixes or below one (s3://bucket/a covers s3://bucket/a/b, not s3://bucket/ab)."""
    return any(s3_uri == p or s3_uri.startswith(p if p.endswith("/") else p + "/") for p in prefixes)


class RestartSourceReader(Reader[RestartSource]):
    need = RestartSource

    def read(self, need: RestartSource, ports: Ports) -> object:
        described = {k: v for k, v in ports.jobs.describe(need.api, need.job_name).items() if k != "ResponseMetadata"}
        tags = ports.jobs.tags(need.job_arn)
        found = described.get("CheckpointConfig")
        uri = found.get("S3Uri") if isinstance(found, dict) else None
        checkpoint = uri if isinstance(uri, str) else ""
        listed = bool(checkpoint) and under(checkpoint, need.prefixes) and ports.checkpoints is not None
        newest = ports.checkpoints.newest(checkpoint) if listed and ports.checkpoints is not None else None
        return Source(described, tags, checkpoint, listed, newest)

    def failure(self, need: RestartSource) -> str:
        return f"{need.api.describe}, ListTags or ListObjectsV2 of {need.job_name} failed (not restarted)"


READER = RestartSourceReader()
