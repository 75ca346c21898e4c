"""The receiver view (`replay --receiver`, `test-notify --receiver`) shows each message as its destination does: a
Slack message's blocks each on lines of their own, a text message whole with its length and SMS parts, a chat
notification's description with its line breaks."""

from __future__ import annotations

import io
import json
import re

from rule_actions.destinations.slack import slack
from rule_actions.records import Message
from rule_actions_cli import receiver
from rule_actions_cli.replay_table import Delivery, sms_size, write_deliveries

RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]")
BODY = ("rule-actions found that rule StalledTraining holds for training job llm-1.\n\nTraining job: llm-1\n"
        "Job status: InProgress (Training)")


def received(body: object) -> receiver.Received:
    return receiver.Received("/hook", {}, json.dumps(body).encode(), True)


def test_a_slack_message_is_shown_as_its_blocks_one_line_each_with_its_line_breaks():
    # Given the Slack message the function sends: a header, a section of several lines, buttons
    message = Message("[rule-actions] StalledTraining issues found in llm-1", BODY, "short",
                      (("Open in console", "https://console.aws.amazon.com/x"),))
    out = io.StringIO()
    # When the receiver's view is written
    item = received(slack(message))
    receiver.report([_Got(item)], out)
    lines = out.getvalue().splitlines()
    # Then the request's line, then each block on lines of its own, indented under it, the text's lines kept
    assert lines[1] == "  signature ok   slack  [rule-actions] StalledTraining issues found in llm-1"
    pad = receiver.BLOCK_INDENT
    assert lines[2:] == [
        f"{pad}header: [rule-actions] StalledTraining issues found in llm-1",
        f"{pad}section: rule-actions found that rule StalledTraining holds for training job llm-1.",
        f"{pad}         ",
        f"{pad}         Training job: llm-1",
        f"{pad}         Job status: InProgress (Training)",
        f"{pad}actions: [Open in console]"]


def test_fields_context_divider_and_unknown_blocks_are_each_shown_and_a_hostile_text_is_inert():
    # Given blocks of every kind Block Kit has for a message, one carrying escape sequences
    body = {"text": "t", "blocks": [
        {"type": "section", "text": {"type": "mrkdwn", "text": "*Job* x"},
         "fields": [{"type": "plain_text", "text": "Status\nFailed"}, {"type": "mrkdwn", "text": "Cost $3"}]},
        {"type": "divider"},
        {"type": "context", "elements": [{"type": "mrkdwn", "text": "sent by rule-actions\x1b]0;pwned\x07"}]},
        {"type": "image", "image_url": "https://example.com/a.png"}, "not a block"]}
    # When they are rendered
    lines = receiver.blocks(received(body))
    # Then each has its own lines, a field's second line aligned under its first, nothing raw reaches the terminal
    assert lines[:4] == ["section: *Job* x", "  field: Status", "         Failed", "  field: Cost $3"]
    assert lines[4] == "-" * 20 and lines[5].startswith("context: sent by rule-actions\\x1b]0;pwned\\x07")
    assert lines[6:] == ["image block", '(not a block: "not a block")']
    assert not RAW.findall("\n".join(lines))


def test_other_payloads_have_no_blocks_and_a_flood_of_blocks_is_bounded():
    assert receiver.blocks(received({"source": "rule-actions"})) == []
    assert receiver.blocks(receiver.Received("/hook", {}, b"not json", True)) == []
    lines = receiver.blocks(received({"blocks": [{"type": "divider"}] * 1000}))
    assert len(lines) == receiver.MAX_BLOCKS + 1 and lines[-1] == "... 950 more block(s) not shown"


def test_a_text_message_is_shown_whole_with_its_length_and_parts():
    # Given the team's text message of 200 characters (two parts) and a chat notification of several lines
    sms = "rule-actions: StalledTraining issues found in llm-1 (InProgress); stopped ...; " + "x" * 121
    chat = "```\nrule-actions found that rule StalledTraining holds\n  Training job: llm-1\n```"
    out = io.StringIO()
    # When the deliveries are written 60 columns wide
    write_deliveries([Delivery("team", "[rule-actions] subject", sms, "sms"),
                      Delivery("chat channels", "title", chat, "chat")], out, width=60)
    lines = out.getvalue().splitlines()
    # Then the text message is whole (wrapped, never cut), after its length and parts
    start = lines.index("      text message, 200 characters, 2 SMS parts (GSM-7):")
    shown = " ".join(line.strip() for line in lines[start + 1:lines.index("  to chat channels: 1")])
    assert shown.replace("x ", "x").replace(" x", "x") == sms.replace(" x", "x") and max(map(len, lines)) <= 60
    # and the chat notification keeps its lines, its indentation too
    assert lines[-4:] == ["        ```", "        rule-actions found that rule StalledTraining holds",
                          "          Training job: llm-1", "        ```"]


def test_an_sms_s_parts_follow_its_encoding():
    assert sms_size("a" * 160).endswith("1 SMS part (GSM-7)")
    assert sms_size("a" * 161).endswith("2 SMS parts (GSM-7)")
    assert sms_size("{" * 80).endswith("1 SMS part (GSM-7)") and sms_size("{" * 81).endswith("2 SMS parts (GSM-7)")
    assert sms_size("\u00fc" * 70).endswith("1 SMS part (GSM-7)")  # ü is in GSM-7's basic set
    assert sms_size("\u0107" * 70).endswith("1 SMS part (UCS-2)") and sms_size("\u0107" * 71).endswith("2 SMS parts "
                                                                                                     "(UCS-2)")


class _Got:
    """A receiver's record, as `report` reads it."""

    def __init__(self, item: receiver.Received) -> None:
        self.host, self.port, self.received = "127.0.0.1", 48787, [item]
