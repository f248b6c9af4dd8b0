#!/usr/bin/env python3
"""Builds the real-transcript corpus in this folder from the raw files named in SOURCES.md.

    python3 examples/real/make_corpus.py RAW_DIR [COMPACTION_BINARY]

RAW_DIR holds the raw files under the names in the `raw` column below (each copied from the
repository, path and commit that SOURCES.md gives). Claude Code and Codex transcripts go
through `compaction import` (which redacts secrets); pi sessions of format version 1 go
through `compaction migrate`. A session longer than the repository should hold is cut by
whole user turns: `turns` keeps the user messages with those 0-based indexes (in file order)
and everything between them, up to the next user message.
"""

import json
import os
import subprocess
import sys
import tempfile

# name, format, raw file, turns kept (None: all)
CORPUS = [
    ("cuda-toolkit", "claude-code", "vsla-069508a5-1193-487c-a9b5-a6f5f3ae4f98.jsonl", None),
    ("wifiman-deb", "claude-code", "vsla-9cc4a4b0-cba8-4e56-b79f-80b730735150.jsonl", None),
    ("c17-backends", "claude-code", "vsla-2cba43de-c8d2-4a69-add8-9fae3ad93900.jsonl", None),
    ("swipe-plan", "claude-code", "claude-35b94415-dd5e-4481-b179-5ae683b817cd.full.jsonl", (0, 5)),
    ("swipe-hook-tests", "codex",
     "codex-rollout-2026-02-26T16-35-55-019c9b73-606c-75e1-a986-6d5b8b99ef2e.full.jsonl", None),
    ("swipe-ci-lockfile", "codex",
     "codex-rollout-2026-02-26T16-27-05-019c9b6b-4a5c-7ba2-aa8f-e0b331e98dea.full.jsonl", None),
    ("pi-theme-colors", "pi", "large-session.jsonl", (10, 39)),
    ("pi-bash-queue", "pi", "before-compaction.jsonl", (43, 56)),
]


def is_user(line):
    entry = json.loads(line)
    message = entry.get("message") or {}
    return entry.get("type") == "message" and message.get("role") == "user"


def cut(lines, turns):
    """The header and the entries from user turn `first` up to user turn `end` (exclusive)."""
    if turns is None:
        return lines
    first, end = turns
    out, user = [lines[0]], -1
    for line in lines[1:]:
        if is_user(line):
            user += 1
        if first <= user < end:
            out.append(line)
    return out


def main():
    raw_dir = sys.argv[1]
    binary = sys.argv[2] if len(sys.argv) > 2 else "compaction"
    here = os.path.dirname(os.path.abspath(__file__))
    for name, kind, raw, turns in CORPUS:
        target = os.path.join(here, f"{name}.jsonl")
        source = os.path.join(raw_dir, raw)
        with tempfile.TemporaryDirectory() as tmp:
            if kind == "pi":
                with open(source, encoding="utf-8") as f:
                    lines = f.read().splitlines()
                piece = os.path.join(tmp, "session.jsonl")
                with open(piece, "w", encoding="utf-8") as f:
                    f.write("\n".join(cut(lines, turns)) + "\n")
                subprocess.run([binary, "migrate", piece], check=True, stdout=subprocess.DEVNULL)
            else:
                piece = os.path.join(tmp, "imported.jsonl")
                subprocess.run(
                    [binary, "import", source, "--format", kind, "-o", piece],
                    check=True, stdout=subprocess.DEVNULL,
                )
                with open(piece, encoding="utf-8") as f:
                    lines = f.read().splitlines()
                with open(piece, "w", encoding="utf-8") as f:
                    f.write("\n".join(cut(lines, turns)) + "\n")
            with open(piece, encoding="utf-8") as f:
                text = f.read()
        with open(target, "w", encoding="utf-8") as f:
            f.write(text)
        subprocess.run([binary, "check", target], check=True)


if __name__ == "__main__":
    main()
