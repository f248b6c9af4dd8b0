#!/usr/bin/env python3
"""Git-aware compaction as a process extension (protocol 1, standard library only).

Reads one event on stdin. For `before_compact`, keeps every message that ran a git
command (a `bash` tool call running git, its tool result, or a shell command the user ran
with git) verbatim through `keptMessageIds`, condenses the rest into a short summary
listing the user's requests, and records `preservedGitOps` (the number of git commands)
in `details`. Prints nothing (= continue with the built-in summary) for other events or
when nothing ran git.

Configure it in the settings file:
  {"name": "git-aware", "command": "python3",
   "args": ["examples/extensions/git_aware.py"], "events": ["before_compact"]}
or pass it on the command line:
  compaction run --extension "python3 examples/extensions/git_aware.py" SESSION
"""

import json
import re
import sys


def runs_git(command):
    parts = re.split(r"[;&|\n(]", command)
    return any(p.lstrip() == "git" or p.lstrip().startswith("git ") for p in parts)


def git_commands(message):
    role = message.get("role")
    if role == "assistant":
        found = []
        for block in message.get("content") or []:
            if block.get("type") != "toolCall" or block.get("name") != "bash":
                continue
            command = (block.get("arguments") or {}).get("command")
            if isinstance(command, str) and runs_git(command):
                found.append((block.get("id"), command))
        return found
    if role == "bashExecution" and runs_git(message.get("command") or ""):
        return [(None, message["command"])]
    return []


def user_text(message):
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content or [] if b.get("type") == "text")


def one_line(text, limit=200):
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit] + "\u2026"


def main():
    event = json.load(sys.stdin)
    if event.get("protocol") != 1 or event.get("event") != "before_compact":
        return
    preparation = event["preparation"]
    messages = preparation["messagesToSummarize"] + preparation["turnPrefixMessages"]
    ids = preparation["summarizedEntryIds"] + preparation["turnPrefixEntryIds"]

    kept, requests, git_calls, git_ops = [], [], set(), 0
    for message, entry_id in zip(messages, ids):
        commands = git_commands(message)
        if commands:
            git_ops += len(commands)
            git_calls.update(call_id for call_id, _ in commands if call_id)
            kept.append(entry_id)
        elif message.get("role") == "toolResult" and message.get("toolCallId") in git_calls:
            kept.append(entry_id)
        elif message.get("role") == "user":
            requests.append("- " + one_line(user_text(message)))

    if git_ops == 0:
        return
    summary = (
        f"Earlier conversation: {len(messages)} messages condensed; "
        f"{git_ops} git command(s) preserved below."
    )
    if requests:
        summary += "\n\nUser requests, oldest first:\n" + "\n".join(requests)
    json.dump(
        {
            "action": "replace",
            "summary": summary,
            "keptMessageIds": kept,
            "details": {"preservedGitOps": git_ops},
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
