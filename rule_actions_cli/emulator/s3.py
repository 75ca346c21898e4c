"""moto's S3, with objects written at a simulated time: a training job's checkpoints as the replay's clock has them.

moto stamps an object with the wall clock when it is put (``FakeKey.last_modified``, a naive UTC datetime), and
ListObjectsV2, HeadObject and GetObject report that time: a replay that simulates hours of training in a second
cannot give a checkpoint the time it was written at. :func:`put_checkpoint` writes one into moto's process-wide
backend and sets its ``last_modified`` (the ``last_modified_ISO8601`` and ``last_modified_RFC1123`` the responses
serialize are computed from it), so in-process ``mock_aws`` and a ``ThreadedMotoServer`` of this process both list
it at that time. Nothing of moto is patched: :func:`install` does nothing and is there as every module's is.
"""

from __future__ import annotations

import datetime as dt

from moto.core.models import DEFAULT_ACCOUNT_ID
from moto.s3.exceptions import MissingBucket
from moto.s3.models import S3Backend, s3_backends
from moto.utilities.utils import get_partition

from rule_actions_cli.emulator import Gap

__all__ = ["DEFAULT_ACCOUNT_ID", "GAPS", "install", "put_checkpoint"]

GAPS = (
    Gap("s3", "ListObjectsV2", "stamps an object with the wall clock when it is put: no object at another time "
                               "(put_checkpoint writes one at a simulated time)"),
)


def install() -> None:
    """Nothing to patch: :func:`put_checkpoint` writes to moto's backend directly. Idempotent, as every module's."""


def _backend(account_id: str, region: str) -> S3Backend:
    return s3_backends[account_id][get_partition(region)]


def _utc_naive(when: dt.datetime) -> dt.datetime:
    """``when`` as moto keeps times: naive, in UTC (a naive ``when`` is taken to be UTC already)."""
    return when.astimezone(dt.UTC).replace(tzinfo=None) if when.tzinfo is not None else when


def put_checkpoint(s3_uri: str, when: dt.datetime, *, account_id: str = DEFAULT_ACCOUNT_ID,
                   region: str = "us-east-1") -> str:
    """Write a checkpoint object under ``s3_uri`` (a CheckpointConfig.S3Uri: ``s3://bucket/prefix``), creating the
    bucket if missing; its LastModified (ListObjectsV2, HeadObject, GetObject) is ``when`` (whole seconds, as S3
    lists them) instead of the wall clock. The key is ``<prefix>/checkpoint-<epoch seconds of when>.pt`` and the body
    a few bytes. Returns the object's ``s3://`` URI."""
    if not s3_uri.startswith("s3://"):
        raise ValueError(f"not an s3:// URI: {s3_uri!r}")
    bucket_name, _, prefix = s3_uri.removeprefix("s3://").partition("/")
    if not bucket_name:
        raise ValueError(f"no bucket in {s3_uri!r}")
    stamp = _utc_naive(when).replace(microsecond=0)
    epoch = int(stamp.replace(tzinfo=dt.UTC).timestamp())
    key_name = "/".join(part for part in (prefix.rstrip("/"), f"checkpoint-{epoch}.pt") if part)
    backend = _backend(account_id, region)
    try:
        backend.get_bucket(bucket_name)
    except MissingBucket:
        backend.create_bucket(bucket_name, region)
    key = backend.put_object(bucket_name, key_name, f"checkpoint {stamp.isoformat()}Z".encode(),
                             disable_notification=True)
    key.last_modified = stamp
    return f"s3://{bucket_name}/{key_name}"
