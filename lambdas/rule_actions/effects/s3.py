"""Amazon S3, where training jobs keep their checkpoints (CheckpointConfig.S3Uri): the newest object under a prefix,
which a restart's loop guard compares (ListObjectsV2, every page; the client is made on first use)."""

from __future__ import annotations

from datetime import datetime

from rule_actions.effects import LazyClient
from rule_actions.text import s3_parts

LIST_PAGE = 1000  # ListObjectsV2's largest MaxKeys


class S3Checkpoints(LazyClient):
    def newest(self, s3_uri: str) -> datetime | None:
        """The LastModified of the newest object under `s3_uri`, None when there is none."""
        bucket, prefix = s3_parts(s3_uri)
        if prefix and not prefix.endswith("/"):  # its own folder: llm/job-1 must not list llm/job-10/
            prefix += "/"
        newest: datetime | None = None
        pages = self.client.get_paginator("list_objects_v2").paginate(
            Bucket=bucket, Prefix=prefix, PaginationConfig={"PageSize": LIST_PAGE})
        for page in pages:
            for item in page.get("Contents", []):
                when = item.get("LastModified")
                if isinstance(when, datetime) and (newest is None or when > newest):
                    newest = when
        return newest
