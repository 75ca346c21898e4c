"""What a reader is: the answer to one kind of Need (records.py), read through the ports it is handed.

    need      the record type it answers
    read      the answer; raises when the read fails (the pipeline makes it an Unread with `failure`'s words)
    failure   what failed, for the Unread's reason ("ListTrainingJobs failed")

Adding a reader: its Need record in records.py (the question plug-ins ask), a module here with a `Reader`, and its
line in rule_actions/registry.py.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rule_actions.ports import Ports


class Reader:
    need: ClassVar[type]

    def read(self, need: Any, ports: Ports) -> Any:
        raise NotImplementedError

    def failure(self, need: Any) -> str:
        raise NotImplementedError
