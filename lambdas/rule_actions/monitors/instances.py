"""GPUs and vCPUs of SageMaker training instance types: CloudWatch's GPUUtilization and GPUMemoryUtilization are
summed over an instance's GPUs (0-100 x GPUs) and CPUUtilization over its vCPUs (0-100 x vCPUs), and the metrics do
not say how many there are. A type missing here is named in the rule's reason (its rule is skipped for the job).

vCPUs follow the size for every family SageMaker trains on (large 2, xlarge 4, 2xlarge 8, ... 48xlarge 192); GPUs
are listed per GPU family and size (AWS's instance type pages). Trainium and Inferentia instances publish no
GPUUtilization: they have no GPU here.
"""

from __future__ import annotations

import re

VCPUS_BY_SIZE = {"medium": 1, "large": 2, "xlarge": 4, "2xlarge": 8, "3xlarge": 12, "4xlarge": 16, "6xlarge": 24,
                 "8xlarge": 32, "9xlarge": 36, "12xlarge": 48, "16xlarge": 64, "18xlarge": 72, "24xlarge": 96,
                 "32xlarge": 128, "48xlarge": 192}
_SINGLE = {"xlarge": 1, "2xlarge": 1, "4xlarge": 1, "8xlarge": 1, "16xlarge": 1}
GPUS = {
    "p2": {"xlarge": 1, "8xlarge": 8, "16xlarge": 16},
    "p3": {"2xlarge": 1, "8xlarge": 4, "16xlarge": 8},
    "p3dn": {"24xlarge": 8},
    "p4d": {"24xlarge": 8},
    "p4de": {"24xlarge": 8},
    "p5": {"4xlarge": 1, "48xlarge": 8},
    "p5e": {"48xlarge": 8},
    "p5en": {"48xlarge": 8},
    "p6-b200": {"48xlarge": 8},
    "g4dn": {**_SINGLE, "12xlarge": 4},
    "g5": {**_SINGLE, "12xlarge": 4, "24xlarge": 4, "48xlarge": 8},
    "g6": {**_SINGLE, "12xlarge": 4, "24xlarge": 4, "48xlarge": 8},
    "g6e": {**_SINGLE, "12xlarge": 4, "24xlarge": 4, "48xlarge": 8},
}
NO_GPU = re.compile(r"(m\d|c\d|r\d|t\d|trn\d|inf\d)[a-z0-9-]*", re.ASCII)  # CPU, Trainium and Inferentia families
_TYPE = re.compile(r"ml\.([a-z0-9-]+)\.([a-z0-9]+)", re.ASCII)


def counts(instance_type: str) -> tuple[int | None, int | None]:
    """(GPUs, vCPUs) of an ml.* instance type; None for what is not known."""
    found = _TYPE.fullmatch(instance_type or "")
    if not found:
        return None, None
    family, size = found.groups()
    vcpus = VCPUS_BY_SIZE.get(size)
    if family in GPUS:
        return GPUS[family].get(size), vcpus
    return (0 if NO_GPU.fullmatch(family) else None), vcpus
