//! The class "document written": the assistant writes a plan, a README section, a design
//! note or a changelog, the fact a later step needs is said only in that document, and the
//! reply after it does not repeat it ("Wrote the plan."). Each family is one way a document
//! gets written (a whole write, an edit, an edit list, a patch as a tool or in a shell
//! command, pi's own tool), with three documents whose facts are numbers, paths, commands
//! and choices in plain words.

use super::super::*;
use super::Instance;

const CLASS: &str = "document written";

/// One instance: the document's path, its text, a subject the probe names, the text it
/// expects.
type Case = (&'static str, &'static str, &'static str, &'static str);

/// The families, in order (a family's index decides its part).
const FAMILIES: [[Case; 3]; 6] = [
    // 0: Claude Code's `Write` of a plan.
    [
        (
            "/home/dev/.claude/plans/rate-limits.md",
            "# Rate limiting plan\n\n## Limits\n- Each API key gets 120 requests per minute, with a burst of 30.\n- Over the limit the API answers 429 with a `Retry-After` header.\n\n## Steps\n1. Add the middleware in `api/middleware/ratelimit.go`.\n2. Store the counters in Redis.\n",
            "per minute",
            "120 requests per minute",
        ),
        (
            "/home/dev/.claude/plans/search-index.md",
            "# Search index\n\nThe index is rebuilt nightly at 02:30 UTC by the `reindex` job.\n\n```sh\nmake reindex\n```\n\nQueries time out after 800 ms.\n",
            "rebuilt",
            "02:30 UTC",
        ),
        (
            "/home/dev/.claude/plans/auth-migration.md",
            "# Moving sessions\n\n## Decision\nSessions move to signed cookies rather than the database table, since the table grew to millions of rows.\n\n## Risks\n- Cookies over 4 KB are dropped by some proxies.\n",
            "sessions",
            "signed cookies",
        ),
    ],
    // 1: an `Edit` of a README.
    [
        (
            "README.md",
            "## Running locally\n\nRun `make dev`: it starts the API on port 8081 and the worker beside it.\n",
            "make dev",
            "8081",
        ),
        (
            "docs/README.md",
            "## Configuration\n\nThe service reads `SHOP_CONFIG`, which defaults to `/etc/shop/config.yaml`.\n",
            "SHOP_CONFIG",
            "/etc/shop/config.yaml",
        ),
        (
            "README.md",
            "## Releases\n\nA release is cut from the `stable` branch only, never from main.\n",
            "release",
            "stable",
        ),
    ],
    // 2: Codex's `apply_patch` tool adding a document.
    [
        (
            "docs/troubleshooting.md",
            "# Troubleshooting\n\n## Blank page after login\nThe cause was the service worker caching `index.html`; the fix bumps `CACHE_VERSION` to 7.\n",
            "CACHE_VERSION",
            "7",
        ),
        (
            "docs/deploy.md",
            "# Deploying\n\nDeploys go through `scripts/deploy.sh --env prod`, which tags the image with the commit hash.\n",
            "deploy",
            "scripts/deploy.sh --env prod",
        ),
        (
            "docs/decisions/0004-queue.md",
            "# 4. Queue\n\nStatus: accepted.\n\nWe use NATS JetStream for the job queue; RabbitMQ was dropped because nobody runs it here.\n",
            "queue",
            "NATS JetStream",
        ),
    ],
    // 3: a patch applied by a shell command (`apply_patch <<'EOF'`), updating a document.
    [
        (
            "CONTRIBUTING.md",
            "## Tests\n\nEvery pull request runs `npm run test:ci`, which needs Node 20.11 or newer.\n",
            "test:ci",
            "Node 20.11",
        ),
        (
            "docs/architecture.md",
            "## Storage\n\nUploads are written to the `media-prod-eu` bucket and expire after 30 days.\n",
            "bucket",
            "media-prod-eu",
        ),
        (
            "notes/meeting.md",
            "## Agreed\n\n- The beta opens to the waitlist first, the public a week later.\n",
            "beta",
            "waitlist first",
        ),
    ],
    // 4: pi's `write` of a notes file.
    [
        (
            "notes/perf.txt",
            "Profiling results.\nThe slow query is `SELECT * FROM orders WHERE status = $1`, taking 1.8 s without an index.\nAdding an index on orders(status) brings it to 12 ms.\n",
            "index",
            "12 ms",
        ),
        (
            "notes/env.txt",
            "Environment.\nThe staging database lives at db-staging.internal:6432 behind PgBouncer.\n",
            "staging",
            "db-staging.internal:6432",
        ),
        (
            "notes/naming.txt",
            "Naming.\nPublic handlers are prefixed with handle, internal ones are not exported at all.\n",
            "handlers",
            "prefixed with handle",
        ),
    ],
    // 5: an `edits` list on a changelog or a design note.
    [
        (
            "CHANGELOG.md",
            "## 2.4.0\n\n- The `--since` flag now takes a duration such as 36h.\n- Exports are gzip-compressed by default.\n",
            "--since",
            "36h",
        ),
        (
            "docs/design.rst",
            "Caching\n=======\n\nResponses are cached for 90 seconds in the `edge` tier.\n",
            "cached",
            "90 seconds",
        ),
        (
            "CHANGELOG.md",
            "## Unreleased\n\n- Logins from a new device now ask for the emailed code.\n",
            "new device",
            "emailed code",
        ),
    ],
];

/// The messages that write `text` into `path`, the way family `family` does.
fn write_calls(family: usize, id: &str, path: &str, text: &str) -> Vec<AgentMessage> {
    let added: String = text.lines().map(|line| format!("+{line}\n")).collect();
    let (tool, arguments) = match family {
        0 => ("Write", json!({ "file_path": path, "content": text })),
        1 => ("Edit", json!({ "file_path": path, "old_string": "", "new_string": text })),
        2 => (
            "apply_patch",
            json!({ "input": format!("*** Begin Patch\n*** Add File: {path}\n{added}*** End Patch") }),
        ),
        3 => (
            "shell",
            json!({ "command": format!(
                "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: {path}\n@@\n{added}*** End Patch\nEOF"
            ) }),
        ),
        4 => ("write", json!({ "path": path, "content": text })),
        _ => (
            "MultiEdit",
            json!({ "file_path": path, "edits": [
                { "old_string": "", "new_string": text },
            ] }),
        ),
    };
    vec![assistant("", &[(id, tool, arguments)]), result(id, tool, "Done.", false)]
}

/// Every instance: the request, the write, a reply that does not repeat the fact, then
/// unrelated turns.
pub(super) fn documents_written() -> Vec<Instance> {
    let mut out = Vec::new();
    for (family, cases) in FAMILIES.iter().enumerate() {
        for (index, (path, text, subject, expected)) in cases.iter().enumerate() {
            let id = format!("d{family}_{index}");
            let mut messages = vec![user("Write it down in the docs so we don't lose it.")];
            messages.extend(write_calls(family, &id, path, text));
            messages.push(assistant("Written.", &[]));
            messages.extend(super::families::filler(3, family));
            out.push(Instance::new(CLASS, family, messages).expect(&[subject], expected));
        }
    }
    out
}
