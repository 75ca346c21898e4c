"""PriceList: the on-demand prices of an instance type in a region (the AWS Price List API, GetProducts), read at
most once per execution environment by the adapter: what a job's cost multiplies (cost.py)."""

from __future__ import annotations

from rule_actions.ports import Ports
from rule_actions.readers.base import Reader
from rule_actions.records import PriceList


class PriceListReader(Reader[PriceList]):
    need = PriceList

    def read(self, need: PriceList, ports: Ports) -> object:
        return dict(ports.prices.products(need.instance_type, need.region))

    def failure(self, need: PriceList) -> str:
        return f"the AWS Price List (GetProducts) of {need.instance_type} in {need.region}"


READER = PriceListReader()
