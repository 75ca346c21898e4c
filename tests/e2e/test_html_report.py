"""`rule-actions replay --html` of two sample timelines and an event, looked at in headless Chromium (`make chromium`
installs it; `make test` runs that first): the page renders its charts where they belong, and works with the network
cut off.

The screenshot is read pixel by pixel (a PNG decoder of the standard library's zlib, below): the phases' colours
span the plot, and the stop's red line stands where the run that stopped the job is on the time axis."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from rule_actions_cli import charts
from rule_actions_cli.main import main

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "examples" / "monitor-config.json"
BUDGET = ROOT / "events" / "timelines" / "budget-job.json"
HUNG = ROOT / "events" / "timelines" / "hung-job.json"
EVENT = ROOT / "events" / "lifecycle-stopped-by-person.json"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
WINDOW = (1040, 1400)
# The network cut off: every host name unresolvable, every request through a proxy nobody listens on.
OFFLINE = ["--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>"]


def hex_rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"{CHROMIUM} is not installed and could not be: run `make chromium` (as root it installs Debian's "
                    "chromium package)")
    return subprocess.run([CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
                           "--force-device-scale-factor=1", f"--user-data-dir={tmp_path / 'profile'}",
                           "--no-first-run", "--disable-extensions", *args], capture_output=True, text=True,
                          timeout=120, check=False)


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB bytes) of an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, chunks, header = 8, [], b""
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks.append(body)
        at += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
    size = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(b"".join(chunks)), width * size
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - size] if i >= size else 0
            up, corner = previous[i], previous[i - size] if i >= size else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        previous = line
        rows.append(bytes(line) if size == 3 else bytes(b for j in range(width) for b in line[j * 4:j * 4 + 3]))
    return width, height, rows


def where(rows: list[bytes], colour: str, tolerance: int = 6) -> list[tuple[int, int]]:
    """The (x, y) of every pixel of `colour` (within `tolerance` per channel)."""
    r, g, b = hex_rgb(colour)
    found = []
    for y, line in enumerate(rows):
        for x in range(0, len(line), 3):
            if abs(line[x] - r) <= tolerance and abs(line[x + 1] - g) <= tolerance and abs(line[x + 2] - b) <= tolerance:
                found.append((x // 3, y))
    return found


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """The page `rule-actions replay --html` writes of the budget job, the hung job and a stopped job's event."""
    folder = tmp_path_factory.mktemp("html")
    target = folder / "replay.html"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["replay", "--json", "--config", str(CONFIG), "--html", str(target), str(BUDGET), str(HUNG),
                     str(EVENT)])
    assert code == 0
    return target, [json.loads(line) for line in out.getvalue().splitlines()]


def test_the_page_has_a_chart_per_job_and_every_row(page):
    # Given the page and the rows the same replay printed
    target, rows = page
    text = target.read_text()
    # Then each timeline job has its chart and its cost bar (both were stopped with their cost said)
    assert text.count('<svg xmlns="http://www.w3.org/2000/svg"') == 4
    assert "stopped at +90 min (09:30 UTC)" in text and "stopped at +80 min (09:20 UTC)" in text
    assert "saved at most $18.08" in text and "saved at most $1,712.29" in text and "budget $10.00" in text
    # and every finding and action (not a duplicate) the rows hold is on it, the event's too
    import html

    said = html.unescape(text)
    reasons = [r["reason"] for item in rows for r in item.get("rules", [])]
    reasons += [a["reason"] for item in rows for a in item["actions"] if a["outcome"] != "duplicate"]
    assert reasons and not [reason for reason in reasons if reason not in said]
    assert EVENT.name in said


def test_the_page_loads_nothing_from_elsewhere(page):
    text = page[0].read_text()
    assert set(re.findall(r"https?://[^\"' )<]+", text)) == {"http://www.w3.org/2000/svg"}
    assert not re.search(r"<(script|link|img|iframe|object|embed)\b", text)
    assert not re.search(r"\s(src|href)\s*=", text)


def test_chromium_offline_renders_the_charts_in_the_dom(page, tmp_path):
    # When Chromium opens the page with the network cut off and dumps its DOM
    done = chromium(tmp_path, *OFFLINE, "--dump-dom", page[0].as_uri())
    # Then the charts are there, their texts laid out as SVG
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    assert dom.count("<svg") == 4 and dom.count("<polyline") >= 4
    assert "budget-ft-2026-11-24-08-00-00-901" in dom and "llm-pretrain-2026-11-24-08-00-00-303" in dom
    assert "silent 30 min" in dom


def test_chromium_draws_the_first_chart_with_the_stop_where_its_run_is(page, tmp_path):
    # Given a screenshot of the page's top, offline
    shot = tmp_path / "top.png"
    done = chromium(tmp_path, *OFFLINE, f"--screenshot={shot}", f"--window-size={WINDOW[0]},{WINDOW[1]}",
                    page[0].as_uri())
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    width, height, rows = png_pixels(shot.read_bytes())
    assert (width, height) == WINDOW
    # Then the budget job's phase lane spans the plot: Starting at its left, Stopped at its right
    starting, stopped = where(rows, charts.PHASE_COLOURS["Starting"]), where(rows, charts.PHASE_COLOURS["Stopped"])
    training = where(rows, charts.PHASE_COLOURS["Training"])
    assert len(training) > 5000 and starting and stopped
    lane = min(y for _, y in training)
    left = min(x for x, y in starting if y >= lane)
    right = max(x for x, y in stopped if abs(y - lane) < 30)
    assert right - left > 600
    # and the GPU line and the cost line are drawn below it, within the plot
    for colour in (charts.GPU_COLOUR, charts.COST_COLOUR):
        found = [(x, y) for x, y in where(rows, colour, 20) if y > lane]
        assert len(found) > 100, colour
        assert left - 2 <= min(x for x, _ in found) and max(x for x, _ in found) <= right + 60, colour
    # and the stop's red line crosses the chart at +90 of its 110 minutes
    red = where(rows, charts.STOP_COLOUR, 10)
    columns: dict[int, int] = {}
    for x, y in red:
        if y > lane - 10:
            columns[x] = columns.get(x, 0) + 1
    stop = max(columns, key=lambda x: columns[x])
    assert columns[stop] > 200
    assert abs((stop - left) / (right - left) - 90 / 110) < 0.01, (stop, left, right)
