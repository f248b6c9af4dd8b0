"""Writes json.txt: tool-output-like JSON messages for the token corpus (deterministic)."""
import json
import random

random.seed(7)
words = "alpha beta gamma delta parser session entry token window summary branch leaf cut tool read write edit bash test build".split()
messages = []

def name():
    return "_".join(random.sample(words, 2))

for i in range(6):  # ripgrep --json style search results
    lines = []
    for j in range(random.randint(3, 7)):
        path = f"crates/{random.choice(['core', 'cli', 'store'])}/src/{name()}.rs"
        lines.append(json.dumps({"type": "match", "data": {"path": {"text": path}, "lines": {"text": f"    let {name()} = {name()}(&{name()});\n"}, "line_number": random.randint(1, 900), "absolute_offset": random.randint(0, 40000), "submatches": [{"match": {"text": "token"}, "start": 8, "end": 13}]}}))
    messages.append("\n".join(lines))

for i in range(6):  # pretty-printed API responses
    issues = [{"number": random.randint(1, 5000), "title": f"{name().replace('_', ' ')} fails on {name()}", "state": random.choice(["open", "closed"]), "labels": random.sample(["bug", "perf", "docs", "cli", "core"], 2), "comments": random.randint(0, 40), "created_at": f"2025-0{random.randint(1, 9)}-1{random.randint(0, 9)}T12:0{random.randint(0, 9)}:00Z", "user": {"login": name(), "id": random.randint(1000, 99999)}} for _ in range(random.randint(2, 4))]
    messages.append(json.dumps(issues, indent=2))

for i in range(5):  # compact tool call arguments and results
    value = {"path": f"src/{name()}.ts", "edits": [{"oldText": f"const {name()} = {random.randint(0, 99)};", "newText": f"const {name()} = {random.random():.4f};"} for _ in range(random.randint(1, 4))], "dryRun": random.choice([True, False])}
    messages.append(json.dumps(value, separators=(",", ":")))

for i in range(5):  # test runner / package manager JSON
    value = {"reportFormat": "json", "numTotalTests": random.randint(10, 300), "numFailedTests": random.randint(0, 3), "testResults": [{"name": f"/repo/test/{name()}.test.ts", "status": random.choice(["passed", "failed"]), "duration": random.randint(3, 4000), "assertionResults": [{"title": f"{name()} handles {name()}", "status": "passed", "duration": random.randint(0, 90)} for _ in range(3)]} for _ in range(2)]}
    messages.append(json.dumps(value, indent=1 + i % 3))

open("json.txt", "w").write("\n----\n".join(messages) + "\n")
print(len(messages))
