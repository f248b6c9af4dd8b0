"""Round 15 growth probes: pi sessions whose one tool call or result grows with n."""
import json, sys
shape, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
lines = [{"type":"session","version":3,"id":"p","timestamp":"2026-03-04T09:00:00.000Z","cwd":"/w"}]
def msg(i, parent, m):
    lines.append({"type":"message","id":f"e{i}","parentId":parent,"timestamp":"2026-03-04T09:00:21.000Z","message":m})
msg(1, None, {"role":"user","content":[{"type":"text","text":"Fix the build and write the plan."}],"timestamp":1})
def call(name, args):
    msg(2, "e1", {"role":"assistant","content":[{"type":"text","text":"On it."},{"type":"toolCall","id":"c1","name":name,"arguments":args}],
        "api":"x","provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":2})
def result(name, text, err=False):
    msg(3, "e2", {"role":"toolResult","toolCallId":"c1","toolName":name,"content":[{"type":"text","text":text}],"isError":err,"timestamp":3})
if shape == "doc":  # a write of a README of n prose lines
    call("write", {"path":"README.md","content":"".join(f"- The service {i} reads config from `/etc/s{i}.toml` and retries 3 times.\n" for i in range(n))}); result("write","ok")
elif shape == "fences":  # n unclosed fences and bullets
    call("write", {"path":"PLAN.md","content":"```\n"*n}); result("write","ok")
elif shape == "patch":  # an apply_patch touching n documents
    call("bash", {"command":"apply_patch <<'EOF'\n*** Begin Patch\n" + "".join(f"*** Update File: docs/d{i}.md\n+Step {i} moves the cache to Redis.\n" for i in range(n)) + "*** End Patch\nEOF"}); result("bash","ok")
elif shape == "edits":  # an edit of n replacements in a document
    call("edit", {"path":"NOTES.md","edits":[{"oldText":f"x{i}","newText":f"The worker {i} must not block the queue."} for i in range(n)]}); result("edit","ok")
elif shape == "errors":  # a result of n distinct error lines
    call("bash", {"command":"cargo build"}); result("bash","".join(f"error[E0{i%1000:03}]: mismatched types in item{i}\n --> src/m{i}.rs:{i}:5\n" for i in range(n)) + "Command exited with code 101", True)
elif shape == "longline":  # one output line of n colons and words
    call("bash", {"command":"make"}); result("bash", "Error: " + "a:b " * n + "\nCommand exited with code 2", True)
elif shape == "failed":  # n runner count lines
    call("bash", {"command":"npm test"}); result("bash", "".join(f"Tests: {i} failed, {i} passed, {2*i} total\n" for i in range(1,n+1)) + "Command exited with code 1", True)
elif shape == "segments":  # a command of n segments
    call("bash", {"command":" && ".join(f"cat f{i}.txt | grep x" for i in range(n))}); result("bash","ok")
elif shape == "traceback":  # a traceback of n frames
    call("bash", {"command":"pytest"}); result("bash", "Traceback (most recent call last):\n" + "".join(f'  File "/w/app/m{i}.py", line {i}, in f\n    g()\n' for i in range(n)) + "KeyError: 'x'\nCommand exited with code 1", True)
if shape == "nested":  # a command wrapped n times in `bash -c "…"`
    call("bash", {"command":'bash -c "' * n + 'ls' + '"' * n}); result("bash","ok")
if shape == "nestedq":  # the same with single quotes, each level escaped as a shell does
    c = "ls"
    for _ in range(n): c = "bash -c '" + c.replace("'", "'\\''") + "'"
    call("bash", {"command":c}); result("bash","ok")
msg(4, "e3", {"role":"user","content":[{"type":"text","text":"thanks"}],"timestamp":4})
with open(out, "w") as f:
    for l in lines: f.write(json.dumps(l) + "\n")
