"""Writes numbered_<language>.txt: source code with line numbers, as it reaches a session.

pi's `read` tool returns a file's lines as they are (plus a `[Showing lines A-B of N. Use
offset=M to continue.]` notice when cut); line numbers come with the `grep` tool
(`path:N: text` for a match, `path-N- text` for context lines) and with shell commands such
as `cat -n` / `nl -ba` (number right-aligned in six columns, then a tab) or `rg -n`
(`path:N:text`). Each message of rust.txt, typescript.txt and python.txt is rendered in
these shapes, from varied starting lines (deterministic).
"""
import random

random.seed(13)
SHAPES = ["cat", "grep_context", "cat", "rg", "grep", "read"]


def messages(name):
    with open(name, encoding="utf-8") as f:
        text = f.read()
    return [m.strip("\n") for m in text.split("\n----\n") if m.strip("\n")]


def render(code, shape, path):
    lines = code.split("\n")
    start = random.choice([1, 1, random.randint(2, 90), random.randint(100, 900), random.randint(1000, 4000)])
    if shape == "cat":
        return "\n".join(f"{start + i:>6}\t{line}" for i, line in enumerate(lines))
    if shape == "read":
        total = start + len(lines) + random.randint(0, 400)
        body = "\n".join(lines)
        end = start + len(lines) - 1
        return f"{body}\n\n[Showing lines {start}-{end} of {total}. Use offset={end + 1} to continue.]"
    if shape == "rg":
        picked = sorted(random.sample(range(len(lines)), max(1, len(lines) // 3)))
        return "\n".join(f"{path}:{start + i}:{lines[i]}" for i in picked)
    if shape == "grep":
        picked = sorted(random.sample(range(len(lines)), max(1, len(lines) // 3)))
        return "\n".join(f"{path}:{start + i}: {lines[i]}" for i in picked)
    # grep with context 2: matches and the lines around them
    out = []
    matches = sorted(random.sample(range(len(lines)), max(1, len(lines) // 6)))
    shown = set()
    for m in matches:
        for i in range(max(0, m - 2), min(len(lines), m + 3)):
            if i in shown:
                continue
            shown.add(i)
            sep = ":" if i == m else "-"
            out.append(f"{path}{sep}{start + i}{sep} {lines[i]}")
    return "\n".join(out)


def write(source, target, paths, copies):
    out = []
    shape = 0
    for copy in range(copies):
        for index, code in enumerate(messages(source)):
            path = paths[(index + copy) % len(paths)]
            out.append(render(code, SHAPES[shape % len(SHAPES)], path))
            shape += 1
    with open(target, "w", encoding="utf-8") as f:
        f.write("\n----\n".join(out) + "\n")


write("rust.txt", "numbered_rust.txt", ["crates/compaction-core/src/message.rs", "src/store/mod.rs", "crates/compaction/src/compact.rs"], 1)
write("typescript.txt", "numbered_typescript.txt", ["src/core/session-manager.ts", "packages/agent/src/agent.ts", "src/tools/edit.ts"], 2)
write("python.txt", "numbered_python.txt", ["app/compaction.py", "tests/test_store.py", "scripts/summarize.py"], 2)
