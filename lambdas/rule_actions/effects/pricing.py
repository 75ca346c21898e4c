"""The AWS Price List API (pricing:GetProducts, service code AmazonSageMaker): the on-demand prices of one instance
type in one region, by component (the price list's `platoinstancetype`: Training, Processing, BatchTransform...).

Each (instance type, region) is read at most once per execution environment, its answer or its failure kept: a
failure is said as the reason a cost is unknown (on the rows and in the messages), never retried in the same
environment (a new one asks again). The Price List Query API is served in us-east-1, eu-central-1 and ap-south-1 only
(AWS's "Price List Query API" endpoints): the nearest is asked; regions of other partitions (China, GovCloud) have no
public price list here. The client honours AWS_ENDPOINT_URL, as every client does.

What is asked: Filters TERM_MATCH on regionCode (the job's region), instanceName (ml.p4d.24xlarge) and productFamily
"ML Instance", one page of at most 100 products (an instance type has a few dozen components; a NextToken is followed
all the same). Each PriceList item is a JSON string (botocore's model: a list of PriceListJsonItem strings), its
on-demand rate in terms.OnDemand.<offer>.priceDimensions.<rate>.pricePerUnit.USD, per hour (unit Hrs).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

SERVICE_CODE = "AmazonSageMaker"
PRODUCT_FAMILY = "ML Instance"
PAGE = 100  # GetProducts' largest MaxResults
KEPT = 512  # (instance type, region) answers kept per execution environment


class NoPriceList(RuntimeError):
    """No Price List Query API endpoint serves this region's partition."""


def endpoint_region(region: str) -> str | None:
    """The Price List Query API endpoint nearest to `region` (None for other partitions: China, GovCloud, ISO)."""
    if region.startswith(("cn-", "us-gov-", "us-iso")):
        return None
    if region.startswith(("eu-", "me-", "af-", "il-")):
        return "eu-central-1"
    if region.startswith("ap-"):
        return "ap-south-1"
    return "us-east-1"


def filters(instance_type: str, region: str) -> list[dict[str, str]]:
    return [{"Type": "TERM_MATCH", "Field": "regionCode", "Value": region},
            {"Type": "TERM_MATCH", "Field": "instanceName", "Value": instance_type},
            {"Type": "TERM_MATCH", "Field": "productFamily", "Value": PRODUCT_FAMILY}]


def parse(items: list[Any]) -> dict[str, float]:
    """Component -> US dollars per hour, from GetProducts' PriceList (JSON strings, as AWS returns them): each
    product's on-demand hourly rate in US dollars; a component priced twice differently is left out (not one price)."""
    found: dict[str, set[float]] = {}
    for item in items:
        try:
            product = json.loads(item) if isinstance(item, str) else item
            component = product["product"]["attributes"]["platoinstancetype"]
            offers = product["terms"]["OnDemand"]
        except (ValueError, TypeError, KeyError):
            continue  # not a priced ML instance product
        for offer in offers.values() if isinstance(offers, Mapping) else ():
            dimensions = offer.get("priceDimensions") if isinstance(offer, Mapping) else None
            for dimension in dimensions.values() if isinstance(dimensions, Mapping) else ():
                usd = _usd(dimension)
                if usd is not None and isinstance(component, str):
                    found.setdefault(component, set()).add(usd)
    return {component: next(iter(prices)) for component, prices in found.items() if len(prices) == 1}


def _usd(dimension: Any) -> float | None:
    if not isinstance(dimension, Mapping) or not str(dimension.get("unit", "")).lower().startswith(("hr", "hour")):
        return None
    try:
        usd = float(dimension["pricePerUnit"]["USD"])
    except (KeyError, TypeError, ValueError):
        return None
    return usd if usd > 0 else None


class PriceListApi:
    """ports.Prices: `make_client(endpoint region)` gives a pricing client (made on first use)."""

    def __init__(self, make_client: Callable[[str], Any]):
        self.make_client = make_client
        self.clients: dict[str, Any] = {}
        self.found: dict[tuple[str, str], dict[str, float] | Exception] = {}
        self.calls = 0  # GetProducts calls made by this environment (the bench counts them)

    def products(self, instance_type: str, region: str) -> dict[str, float]:
        key = (instance_type, region)
        if key not in self.found:
            if len(self.found) >= KEPT:
                self.found.pop(next(iter(self.found)))
            try:
                self.found[key] = self._read(instance_type, region)
            except Exception as err:  # kept: said as the reason, not asked again in this environment
                self.found[key] = err
        found = self.found[key]
        if isinstance(found, Exception):
            raise found.with_traceback(None)
        return found

    def _read(self, instance_type: str, region: str) -> dict[str, float]:
        endpoint = endpoint_region(region)
        if endpoint is None:
            raise NoPriceList(f"no AWS Price List Query API endpoint serves {region}'s partition: give its rates in "
                              "prices")
        if endpoint not in self.clients:
            self.clients[endpoint] = self.make_client(endpoint)
        request: dict[str, Any] = {"ServiceCode": SERVICE_CODE, "Filters": filters(instance_type, region),
                                   "FormatVersion": "aws_v1", "MaxResults": PAGE}
        items: list[Any] = []
        while True:
            self.calls += 1
            page = self.clients[endpoint].get_products(**request)
            items += page.get("PriceList", [])
            token = page.get("NextToken")
            if not token:
                return parse(items)
            request["NextToken"] = token
