"""Event files: a file holds one event (an object) or a JSON list of events; a directory, its *.json files in
file-name order. Every file is read and checked before anything is replayed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def expand(paths: list[str]) -> tuple[list[Path], list[str]]:
    """Files in the order given (a directory: its *.json files by name); errors for paths that do not exist."""
    files: list[Path] = []
    errors: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(p for p in path.glob("*.json") if p.is_file())
            if not found:
                errors.append(f"{raw}: directory holds no *.json file")
            files += found
        elif path.is_file():
            files.append(path)
        else:
            errors.append(f"{raw}: no such file or directory")
    return files, errors


def load(paths: list[str]) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    """[(source, event)] with source FILE or FILE#INDEX for lists, and one error line per unusable input."""
    files, errors = expand(paths)
    events: list[tuple[str, dict[str, Any]]] = []
    for path in files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as err:
            errors.append(f"{path}: cannot be read ({err})")
            continue
        except ValueError as err:
            errors.append(f"{path}: not JSON ({err})")
            continue
        if isinstance(data, dict):
            events.append((str(path), data))
        elif isinstance(data, list) and data and all(isinstance(item, dict) for item in data):
            events += [(f"{path}#{index}", item) for index, item in enumerate(data)]
        else:
            errors.append(f"{path}: must hold an event (a JSON object) or a non-empty list of events")
    return events, errors
