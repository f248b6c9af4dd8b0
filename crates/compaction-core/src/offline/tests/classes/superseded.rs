//! The "change of mind" families beyond the first three: a value or choice that stopped
//! being current in one of the ways a coding session replaces it. The user replaces a
//! decision (in several languages and forms), the assistant corrects what it found, a tool
//! call edits a setting, a file is moved or deleted after a turn said where it lives, a
//! port or branch changes, a plan step is dropped, a test count changes, a decision is
//! reverted with its reason; files moved several at a time or by PowerShell and cmd; a
//! choice whose old wording the summary may not repeat anywhere. Family indices continue
//! the class's own (3 on); a family is in the test part iff its index is 2 modulo 3.
//!
//! A stale value is graded as `compaction eval` grades a must-not: stated on any line of
//! the sections given (the whole summary with its file lists when none), unless an arrow
//! follows it.

use super::super::*;
use super::Instance;

const CLASS: &str = "change of mind";
const KEY_DECISIONS: &str = "Key Decisions";
const NEXT_STEPS: &str = "Next Steps";
const IN_PROGRESS: &str = "In Progress";
const BLOCKED: &str = "Blocked";
const MODIFIED: &str = "modified-files";
const READ: &str = "read-files";
/// Where a summary states what holds now.
const CURRENT: [&str; 3] = [KEY_DECISIONS, NEXT_STEPS, IN_PROGRESS];

fn call(id: &str, tool: &str, arguments: Value) -> AgentMessage {
    assistant("", &[(id, tool, arguments)])
}

/// A pi `edit` call and its result.
fn edit(id: &str, path: &str, old: &str, new: &str) -> [AgentMessage; 2] {
    [
        call(id, "edit", json!({ "path": path, "oldText": old, "newText": new })),
        result(id, "edit", &format!("Successfully replaced text in {path}."), false),
    ]
}

/// A pi `bash` call and its (passing) result.
fn bash(id: &str, command: &str, output: &str) -> [AgentMessage; 2] {
    [call(id, "bash", json!({ "command": command })), result(id, "bash", output, false)]
}

/// A pi `read` call and its result.
fn read(id: &str, path: &str, text: &str) -> [AgentMessage; 2] {
    [call(id, "read", json!({ "path": path })), result(id, "read", text, false)]
}

/// Work between the choice and its replacement that neither repeats nor settles it.
fn filler(turns: usize, seed: usize) -> Vec<AgentMessage> {
    let mut out = Vec::new();
    for turn in 0..turns {
        let n = seed * 10 + turn;
        out.push(user(&format!("Add a unit test for formatPrice{n} in src/price{n}.ts")));
        out.extend(edit(&format!("g{n}"), &format!("src/price{n}.test.ts"), "", "it('x')"));
        out.push(assistant(&format!("Added the test for formatPrice{n}."), &[]));
    }
    out
}

pub(super) fn all() -> Vec<Instance> {
    let mut out = Vec::new();
    out.extend(user_replaces());
    out.extend(other_languages());
    out.extend(terse_answers());
    out.extend(found_wrong());
    out.extend(edited_settings());
    out.extend(version_bumps());
    out.extend(moved_and_deleted());
    out.extend(patch_moves());
    out.extend(renamed_settings());
    out.extend(dropped_steps());
    out.extend(test_counts());
    out.extend(reverted());
    out.extend(questions_and_lists());
    out.extend(more_moves());
    out.extend(restated_choices());
    out
}

/// The messages of a choice the assistant makes (`decided`), works on, and the user later
/// replaces with `change`; `ack` is the assistant's reply to the change.
fn replaced_choice(
    seed: usize,
    request: &str,
    decided: &str,
    change: &str,
    ack: &str,
) -> Vec<AgentMessage> {
    let mut messages = vec![user(request), assistant(decided, &[])];
    messages.extend(edit("c1", "src/app.ts", "// setup", "// setup done"));
    messages.push(assistant("Done with the first version of the setup.", &[]));
    messages.extend(filler(2, seed));
    messages.push(user(change));
    messages.push(assistant(ack, &[]));
    messages.extend(edit("c2", "src/app.ts", "// setup done", "// setup replaced"));
    messages.extend(filler(1, seed + 1));
    messages
}

/// 3, 4, 5: the user replaces a choice in English: "switch to", "replace X with Y", "scrap
/// that, let's not".
fn user_replaces() -> Vec<Instance> {
    let mut out = Vec::new();
    // 3: "switch to".
    for (subject, old, new) in [
        ("HTTP client", "axios", "ky"),
        ("state store", "Redux", "Zustand"),
        ("test runner", "Jest", "Vitest"),
    ] {
        let messages = replaced_choice(
            3,
            &format!("Set up the {subject} for the web app."),
            &format!("I'll use {old} for the {subject} since the team already knows it."),
            &format!("Let's switch the {subject} to {new}, it is lighter."),
            &format!("Switching the {subject} to {new}."),
        );
        out.push(
            Instance::new(CLASS, 3, messages)
                .expect(&[subject], new)
                .never_current(&[&format!("use {old} for the {subject}")], &CURRENT),
        );
    }
    // 4: "replace X with Y".
    for (subject, old, new) in [
        ("logger", "winston", "pino"),
        ("date library", "moment", "date-fns"),
        ("ORM", "Sequelize", "Prisma"),
    ] {
        let messages = replaced_choice(
            4,
            &format!("Add a {subject} to the API service."),
            &format!("Going with {old} for the {subject} because it has the most plugins."),
            &format!("Replace {old} with {new} in the {subject} setup please."),
            &format!("Replaced {old} with {new}."),
        );
        out.push(
            Instance::new(CLASS, 4, messages)
                .expect(&[subject, "Replace"], new)
                .never_current(&[&format!("going with {old} for the {subject}")], &CURRENT),
        );
    }
    // 5: "scrap that" / "let's not": a planned addition the user drops.
    for (plan, dropped, keep) in [
        (
            "I'll add a Redis cache in front of the catalog API, then add request metrics.",
            "Redis cache",
            "Scrap that, let's not add a Redis cache; the catalog is small. Just add the request metrics.",
        ),
        (
            "I'll add a retry queue for failed webhooks, then write the webhook docs.",
            "retry queue",
            "Let's not do the retry queue, the provider already retries. Only write the webhook docs.",
        ),
        (
            "I'll add a GraphQL gateway over the REST endpoints, then update the client SDK.",
            "GraphQL gateway",
            "Forget the GraphQL gateway, we stay on REST. Just update the client SDK.",
        ),
    ] {
        let mut messages = vec![
            user("Make the API faster and easier to use."),
            assistant(plan, &[]),
            user(keep),
            assistant("Understood, doing only that.", &[]),
        ];
        messages.extend(edit("s1", "src/api.ts", "// api", "// api v2"));
        messages.extend(filler(2, 5));
        let first: String = plan.split(',').next().unwrap_or(plan).to_owned();
        out.push(
            Instance::new(CLASS, 5, messages)
                .never_current(&[dropped], &[NEXT_STEPS, IN_PROGRESS])
                .never_current(&[&first], &[KEY_DECISIONS]),
        );
    }
    out
}

/// A subject, its old and new choice, and the user's words that replace the old one.
type Choice = (&'static str, &'static str, &'static str, &'static str);

/// 6, 7, 8, 9, 10: the user replaces a choice in French, German, Chinese, Korean and
/// Spanish.
fn other_languages() -> Vec<Instance> {
    let mut out = Vec::new();
    let families: [(usize, [Choice; 3]); 5] = [
        (
            6,
            [
                (
                    "HTTP client",
                    "axios",
                    "fetch",
                    "Finalement, utilise fetch au lieu de axios pour le client HTTP.",
                ),
                (
                    "build tool",
                    "webpack",
                    "Vite",
                    "Non, on passe à Vite pour le build tool, plus de webpack.",
                ),
                (
                    "database",
                    "MySQL",
                    "PostgreSQL",
                    "Change d'avis : prends PostgreSQL plutôt que MySQL pour la database.",
                ),
            ],
        ),
        (
            7,
            [
                (
                    "package manager",
                    "npm",
                    "pnpm",
                    "Nimm doch lieber pnpm statt npm als package manager.",
                ),
                (
                    "CSS framework",
                    "Bootstrap",
                    "Tailwind",
                    "Bitte wechsle zum CSS framework Tailwind, kein Bootstrap mehr.",
                ),
                ("queue", "RabbitMQ", "NATS", "Ersetze RabbitMQ durch NATS für die queue."),
            ],
        ),
        (
            8,
            [
                (
                    "state store",
                    "MobX",
                    "Zustand",
                    "还是用 Zustand 做 state store 吧，不用 MobX 了。",
                ),
                (
                    "chart library",
                    "ECharts",
                    "Recharts",
                    "chart library 换成 Recharts，别用 ECharts 了。",
                ),
                ("logger", "log4js", "pino", "logger 改用 pino，log4js 不要了。"),
            ],
        ),
        (
            9,
            [
                ("ORM", "TypeORM", "Drizzle", "ORM은 TypeORM 말고 Drizzle로 바꿔 주세요."),
                (
                    "form library",
                    "Formik",
                    "React Hook Form",
                    "form library는 Formik 대신 React Hook Form으로 가죠.",
                ),
                (
                    "test runner",
                    "Mocha",
                    "Vitest",
                    "test runner를 Vitest로 교체해 주세요. Mocha는 이제 안 써요.",
                ),
            ],
        ),
        (
            10,
            [
                (
                    "router",
                    "React Router",
                    "TanStack Router",
                    "Mejor cambia el router a TanStack Router; ya no uses React Router.",
                ),
                ("linter", "ESLint", "Biome", "Usa Biome como linter en lugar de ESLint."),
                (
                    "cache",
                    "Memcached",
                    "Redis",
                    "Al final vamos con Redis para el cache, nada de Memcached.",
                ),
            ],
        ),
    ];
    for (family, cases) in families {
        for (subject, old, new, change) in cases {
            let messages = replaced_choice(
                family,
                &format!("Set up the {subject}."),
                &format!("I'll use {old} for the {subject} because it is the usual choice."),
                change,
                &format!("OK: the {subject} is now {new}."),
            );
            out.push(
                Instance::new(CLASS, family, messages)
                    .expect(&[subject], new)
                    .never_current(&[&format!("use {old} for the {subject}")], &CURRENT),
            );
        }
    }
    out
}

/// 11: a terse "no, Y" answer to a choice the assistant proposed as a question.
fn terse_answers() -> Vec<Instance> {
    let mut out = Vec::new();
    for (subject, old, new) in [
        ("deploy target", "Vercel", "Fly.io"),
        ("auth provider", "Auth0", "Clerk"),
        ("image host", "Cloudinary", "S3"),
    ] {
        let mut messages = vec![
            user(&format!("Wire up the {subject}.")),
            assistant(
                &format!("I'll use {old} for the {subject}. Shall I go ahead with {old}?"),
                &[],
            ),
            user(&format!("no, {new}")),
            assistant(&format!("Got it, {new} then."), &[]),
        ];
        messages.extend(edit(
            "t1",
            "deploy/config.yml",
            "provider: none",
            &format!("provider: {new}"),
        ));
        messages.extend(filler(2, 11));
        out.push(
            Instance::new(CLASS, 11, messages)
                .expect(&[subject, "answered", "provider"], new)
                .never_current(&[&format!("use {old} for the {subject}")], &CURRENT),
        );
    }
    out
}

/// 12: a value the assistant found and later found to be wrong.
fn found_wrong() -> Vec<Instance> {
    let mut out = Vec::new();
    for (subject, old, new, why) in [
        (
            "API base URL",
            "http://localhost:8000",
            "http://localhost:8081",
            "8000 is the docs server",
        ),
        (
            "config file",
            "config/default.yaml",
            "config/app.local.yaml",
            "the default one is never loaded",
        ),
        ("cron schedule", "0 3 * * *", "30 1 * * *", "the old line is commented out"),
    ] {
        let mut messages = vec![user(&format!("What is the {subject} the app uses?"))];
        messages.extend(read("r1", "README.md", &format!("The {subject} is {old}.")));
        messages.push(assistant(&format!("The {subject} is {old}."), &[]));
        messages.extend(filler(1, 12));
        messages.push(user("Use it to write the smoke test."));
        messages.extend(read("r2", "src/settings.ts", &format!("// {subject}: {new}")));
        messages.push(assistant(
            &format!("I was wrong earlier: the {subject} is {new}, not {old}; {why}. I'll write the smoke test against {new}."),
            &[],
        ));
        messages.extend(edit("w1", "tests/smoke.test.ts", "", &format!("// uses {new}")));
        messages.extend(filler(1, 13));
        out.push(
            Instance::new(CLASS, 12, messages)
                .expect(&[subject], new)
                .never_current(&[&format!("{subject} is {old}")], &[]),
        );
    }
    out
}

/// 13: a setting an edit changed after the assistant stated its old value.
fn edited_settings() -> Vec<Instance> {
    let mut out = Vec::new();
    for (file, key, old, new) in [
        ("config/server.yaml", "request_timeout", "30s", "60s"),
        ("settings.toml", "max_workers", "4", "16"),
        (".env.example", "LOG_LEVEL", "debug", "warn"),
    ] {
        let mut messages = vec![user(&format!("What is {key} set to?"))];
        messages.extend(read("r1", file, &format!("{key}: {old}\n")));
        messages.push(assistant(&format!("`{key}` is currently `{old}` in {file}."), &[]));
        messages.push(user(&format!("Set {key} to {new}.")));
        messages.extend(edit("e1", file, &format!("{key}: {old}"), &format!("{key}: {new}")));
        messages.push(assistant(&format!("Set `{key}` to `{new}` in {file}."), &[]));
        messages.extend(filler(2, 13));
        out.push(
            Instance::new(CLASS, 13, messages)
                .expect(&[key], new)
                .never_current(&[&format!("`{key}` is currently `{old}`")], &[]),
        );
    }
    out
}

/// 14: a version bumped by a shell edit (`sed -i`) or an edit of a manifest.
fn version_bumps() -> Vec<Instance> {
    let mut out = Vec::new();
    for (manifest, package, old, new, by_sed) in [
        ("package.json", "react", "17.0.2", "18.3.1", true),
        ("Cargo.toml", "tokio", "1.28.0", "1.41.1", false),
        ("pyproject.toml", "pydantic", "1.10.13", "2.9.2", true),
    ] {
        let mut messages = vec![user(&format!("Which {package} version do we pin?"))];
        messages.extend(read("r1", manifest, &format!("{package} = \"{old}\"")));
        messages.push(assistant(&format!("The project pins {package} {old} in {manifest}."), &[]));
        messages.push(user(&format!("Bump {package} to {new}.")));
        if by_sed {
            messages.extend(bash(
                "b1",
                &format!("sed -i 's/{old}/{new}/' {manifest} && grep {package} {manifest}"),
                &format!("{package} = \"{new}\""),
            ));
        } else {
            messages.extend(edit("b1", manifest, &format!("\"{old}\""), &format!("\"{new}\"")));
        }
        messages.push(assistant(&format!("Bumped {package} to {new}."), &[]));
        messages.extend(filler(2, 14));
        out.push(
            Instance::new(CLASS, 14, messages)
                .expect(&[package], new)
                .never_current(&[&format!("pins {package} {old}")], &[]),
        );
    }
    out
}

/// 15, 16: a file moved (`git mv`, `mv`) or deleted (`rm`, `git rm`) after a turn named it
/// as where something lives: the old path is no current file.
fn moved_and_deleted() -> Vec<Instance> {
    let mut out = Vec::new();
    // 15: moved.
    for (what, old, new, command) in [
        ("request handlers", "src/handlers.ts", "src/api/handlers.ts", "git mv"),
        ("database models", "app/models.py", "app/db/models.py", "mv"),
        ("CLI entry point", "cmd/main.go", "cmd/tool/main.go", "git mv"),
    ] {
        let mut messages = vec![user(&format!("Where do the {what} live?"))];
        messages.extend(read("r1", old, "export {}"));
        messages.push(assistant(&format!("The {what} live in `{old}`."), &[]));
        messages.push(user(&format!("Add logging to the {what}.")));
        messages.extend(edit("e1", old, "export {}", "export {} // logged"));
        messages.push(assistant(&format!("Added logging to `{old}`."), &[]));
        messages.push(user(&format!("Move them to {new}.")));
        messages.extend(bash("m1", &format!("{command} {old} {new}"), ""));
        messages.push(assistant(&format!("Moved the {what} to `{new}`."), &[]));
        messages.extend(filler(2, 15));
        out.push(
            Instance::new(CLASS, 15, messages)
                .expect(&[what, "Moved", MODIFIED], new)
                .never_current(&[old], &[MODIFIED, READ, NEXT_STEPS, IN_PROGRESS])
                .never_current(&[&format!("live in `{old}`")], &[]),
        );
    }
    // 16: deleted.
    for (what, old, command) in [
        ("old parser", "src/legacy/parser.py", "rm"),
        ("mock server", "test/mock-server.js", "git rm"),
        ("migration script", "scripts/migrate_v1.sh", "rm -f"),
    ] {
        let mut messages = vec![user(&format!("Where is the {what}?"))];
        messages.extend(read("r1", old, "# code"));
        messages.push(assistant(&format!("The {what} is in `{old}`."), &[]));
        messages.push(user("Fix its header comment."));
        messages.extend(edit("e1", old, "# code", "# the code"));
        messages.push(assistant("Fixed the header comment.", &[]));
        messages.push(user(&format!("Actually we don't need the {what} at all, delete it.")));
        messages.extend(bash("d1", &format!("{command} {old}"), ""));
        messages.push(assistant(&format!("Deleted the {what}."), &[]));
        messages.extend(filler(2, 16));
        out.push(
            Instance::new(CLASS, 16, messages)
                .expect(&[what], "Deleted")
                .never_current(&[old], &[MODIFIED, READ, NEXT_STEPS, IN_PROGRESS])
                .never_current(&[&format!("is in `{old}`")], &[]),
        );
    }
    out
}

/// 17: a Codex `apply_patch` that moves a file (`*** Move to:`) an earlier turn named.
fn patch_moves() -> Vec<Instance> {
    let mut out = Vec::new();
    for (what, old, new) in [
        ("price formatter", "src/utils/price.ts", "src/format/price.ts"),
        ("settings page", "web/pages/settings.tsx", "web/pages/account/settings.tsx"),
        ("retry helper", "lib/retry.rb", "lib/net/retry.rb"),
    ] {
        let patch = format!(
            "*** Begin Patch\n*** Update File: {old}\n*** Move to: {new}\n@@\n-// v1\n+// v2\n*** End Patch"
        );
        let mut messages = vec![user(&format!("Find the {what}."))];
        messages.extend(read("r1", old, "// v1"));
        messages.push(assistant(&format!("The {what} is `{old}`."), &[]));
        messages.push(user(&format!("Move the {what} to {new} and bump its header.")));
        messages.push(call("p1", "apply_patch", json!({ "input": patch })));
        messages.push(result(
            "p1",
            "apply_patch",
            &format!("Success. Updated the following files:\nM {new}"),
            false,
        ));
        messages.push(assistant(&format!("Moved the {what} to `{new}`."), &[]));
        messages.extend(filler(2, 17));
        out.push(
            Instance::new(CLASS, 17, messages)
                .expect(&[what, "Moved", MODIFIED], new)
                .never_current(&[old], &[MODIFIED, READ, NEXT_STEPS, IN_PROGRESS])
                .never_current(&[&format!("{what} is `{old}`")], &[]),
        );
    }
    out
}

/// 18: a port, URL, branch or environment the user changed.
fn renamed_settings() -> Vec<Instance> {
    let mut out = Vec::new();
    for (subject, old, new) in [
        ("dev server port", "5173", "4000"),
        ("deploy branch", "release/1.2", "main"),
        ("staging URL", "https://staging.example.com", "https://stage2.example.com"),
    ] {
        let mut messages = vec![
            user(&format!("The {subject} is {old}. Configure the scripts for it.")),
            assistant(&format!("I'll use {old} as the {subject} in the scripts."), &[]),
        ];
        messages.extend(edit("p1", "scripts/dev.sh", "# target", &format!("# target {old}")));
        messages.extend(filler(2, 18));
        messages.push(user(&format!("We changed the {subject} to {new}, update everything.")));
        messages.extend(edit(
            "p2",
            "scripts/dev.sh",
            &format!("# target {old}"),
            &format!("# target {new}"),
        ));
        messages.push(assistant(&format!("Updated the {subject} to {new} everywhere."), &[]));
        messages.extend(filler(1, 19));
        out.push(
            Instance::new(CLASS, 18, messages)
                .expect(&[subject], new)
                .never_current(&[&format!("use {old} as the {subject}")], &[])
                .never_current(&[&format!("{subject} is {old}")], &[]),
        );
    }
    out
}

/// 19: a step of the assistant's plan the user drops.
fn dropped_steps() -> Vec<Instance> {
    let mut out = Vec::new();
    for (steps, dropped, words) in [
        (
            [
                "Add input validation to the signup form",
                "Add an admin audit log",
                "Write the signup docs",
            ],
            "Add an admin audit log",
            "Skip the admin audit log, it is out of scope.",
        ),
        (
            ["Migrate the users table", "Backfill the legacy avatars", "Remove the old columns"],
            "Backfill the legacy avatars",
            "Drop the avatar backfill step; nobody uses those avatars.",
        ),
        (
            [
                "Extract the pricing module",
                "Add a pricing feature flag",
                "Delete the old pricing code",
            ],
            "Add a pricing feature flag",
            "No feature flag please, ship it directly.",
        ),
    ] {
        let plan = format!(
            "Plan:\n1. {}\n2. {}\n3. {}\n\nI'll start with step 1.",
            steps[0], steps[1], steps[2]
        );
        let mut messages = vec![
            user("Plan the next piece of work."),
            assistant(&plan, &[]),
            user(words),
            assistant(&format!("OK, I'll do: {} and then {}.", steps[0], steps[2]), &[]),
        ];
        messages.extend(edit("d1", "src/work.ts", "// todo", "// step 1"));
        out.push(
            Instance::new(CLASS, 19, messages)
                .never_current(&[dropped], &[NEXT_STEPS, IN_PROGRESS]),
        );
    }
    out
}

/// 20: a test count that changed between runs: the earlier count is no current status.
fn test_counts() -> Vec<Instance> {
    let mut out = Vec::new();
    for (command, first, last, file) in [
        ("pytest -q", "3 failed, 41 passed", "44 passed in 2.31s", "app/cart.py"),
        (
            "npx vitest run",
            "Tests  2 failed | 58 passed (60)",
            "Tests  60 passed (60)",
            "src/cart.ts",
        ),
        (
            "go test ./...",
            "FAIL\tshop/cart\t0.21s\n--- FAIL: TestTotal (0.00s)",
            "ok  \tshop/cart\t0.19s",
            "cart/total.go",
        ),
    ] {
        let mut messages = vec![user("Run the tests and fix what fails.")];
        messages.push(call("t1", "bash", json!({ "command": command })));
        messages.push(result("t1", "bash", &format!("{first}\nExit code 1"), true));
        messages.extend(edit("t2", file, "total = sum", "total = round(sum)"));
        messages.extend(bash("t3", command, last));
        messages.push(assistant(&format!("All tests pass now ({last})."), &[]));
        messages.extend(filler(2, 20));
        let failing: String = first.lines().next().unwrap_or(first).to_owned();
        out.push(
            Instance::new(CLASS, 20, messages)
                .expect(&[command], last.split('\t').next().unwrap_or(last))
                .never_current(&[&failing], &[BLOCKED, IN_PROGRESS, NEXT_STEPS]),
        );
    }
    out
}

/// 21: a decision reverted with a reason ("go back to X because …").
fn reverted() -> Vec<Instance> {
    let mut out = Vec::new();
    for (subject, old, new, reason) in [
        ("data fetching", "React Query", "SWR", "SWR has no mutation helpers"),
        ("serializer", "msgpack", "protobuf", "the mobile client can't read protobuf"),
        ("bundler", "esbuild", "Rollup", "Rollup breaks our CSS modules"),
    ] {
        let messages = vec![
            user(&format!("Use {old} for {subject}.")),
            assistant(&format!("I'll use {old} for {subject} across the app."), &[]),
            user(&format!("Try {new} for {subject} instead.")),
            assistant(&format!("I'll use {new} for {subject} instead of {old}."), &[]),
            user(&format!("Revert that and go back to {old}, {reason}.")),
            assistant(&format!("Reverted to {old} for {subject}."), &[]),
        ];
        let mut messages = messages;
        messages.extend(filler(2, 21));
        let word = reason.split_whitespace().last().unwrap_or(reason);
        out.push(
            Instance::new(CLASS, 21, messages)
                .expect(&[old], word)
                .never_current(&[&format!("use {new} for {subject}")], &CURRENT),
        );
    }
    out
}

/// 22, 23: the change asked as a question, or given as a list of changes.
fn questions_and_lists() -> Vec<Instance> {
    let mut out = Vec::new();
    // 22: a question.
    for (subject, old, new) in [
        ("database", "MySQL", "Postgres"),
        ("message broker", "Kafka", "Redis Streams"),
        ("icon set", "Font Awesome", "Lucide"),
    ] {
        let messages = replaced_choice(
            22,
            &format!("Add the {subject} to the stack."),
            &format!("We'll use {old} for the {subject}; it is already installed."),
            &format!("Can we use {new} for the {subject} instead of {old}?"),
            &format!("Yes, the {subject} is {new} now."),
        );
        out.push(
            Instance::new(CLASS, 22, messages)
                .expect(&[subject], new)
                .never_current(&[&format!("use {old} for the {subject}")], &CURRENT),
        );
    }
    // 23: a list of changes.
    for (subject, old, new, other) in [
        ("package manager", "npm", "pnpm", "drop the Docker build step"),
        ("formatter", "Prettier", "dprint", "stop running the e2e suite on every push"),
        ("CI provider", "CircleCI", "GitHub Actions", "remove the nightly job"),
    ] {
        let messages = replaced_choice(
            23,
            &format!("Set up the {subject} for the repo."),
            &format!("I'll use {old} for the {subject} as before."),
            &format!("Changes:\n- use {new} for the {subject}, not {old}\n- {other}"),
            &format!("Done: {new} is the {subject}, and I'll {other}."),
        );
        out.push(
            Instance::new(CLASS, 23, messages)
                .expect(&[subject], new)
                .never_current(&[&format!("use {old} for the {subject}")], &CURRENT),
        );
    }
    out
}

/// A file an earlier turn named, then moved or deleted by `command`; `gone` is the old path,
/// `now` the new one (none for a deletion). The old path is never part of the new one, so
/// naming the new path does not state the old.
fn moved_by(family: usize, what: &str, gone: &str, now: Option<&str>, command: &str) -> Instance {
    let mut messages = vec![user(&format!("Where is the {what}?"))];
    messages.extend(read("r1", gone, "// code"));
    messages.push(assistant(&format!("The {what} is in `{gone}`."), &[]));
    messages.push(user(&format!("Tidy up the {what}.")));
    messages.extend(edit("e1", gone, "// code", "// tidy code"));
    messages.push(assistant("Tidied it.", &[]));
    messages.push(user("Now reorganize the files as we discussed."));
    messages.extend(bash("m1", command, ""));
    messages.push(assistant("Reorganized the files.", &[]));
    messages.extend(filler(2, family));
    let mut instance = Instance::new(CLASS, family, messages)
        .never_current(&[gone], &[MODIFIED, READ, NEXT_STEPS, IN_PROGRESS])
        .never_current(&[&format!("is in `{gone}`")], &[]);
    if let Some(now) = now {
        instance = instance.expect(&[MODIFIED, "Moved", what], now);
    }
    instance
}

/// 24, 25, 26: moves of several files at once, and moves and deletions by PowerShell and
/// cmd.exe.
fn more_moves() -> Vec<Instance> {
    let mut out = Vec::new();
    // 24: several sources into a directory.
    for (what, gone, now, command) in [
        (
            "date helper",
            "lib/dates.ts",
            "src/utils/dates.ts",
            "mv lib/dates.ts lib/money.ts src/utils/",
        ),
        (
            "schema file",
            "sql/schema.sql",
            "db/schema.sql",
            "git mv sql/schema.sql sql/seed.sql db/",
        ),
        (
            "style sheet",
            "styles/main.css",
            "assets/css/main.css",
            "mv -v styles/reset.css styles/main.css assets/css",
        ),
    ] {
        out.push(moved_by(24, what, gone, Some(now), command));
    }
    // 25: PowerShell.
    for (what, gone, now, command) in [
        (
            "report script",
            "scripts/report.ps1",
            Some("tools/report.ps1"),
            "Move-Item -Path scripts/report.ps1 -Destination tools/report.ps1",
        ),
        ("temp config", "config/temp.json", None, "Remove-Item -Force config/temp.json"),
        (
            "old readme",
            "docs/README-old.md",
            Some("docs/HISTORY.md"),
            "Rename-Item -Path docs/README-old.md -NewName HISTORY.md",
        ),
    ] {
        out.push(moved_by(25, what, gone, now, command));
    }
    // 26: other spellings (a target directory first, cmd.exe, short aliases).
    for (what, gone, now, command) in [
        ("seed script", "tools/seed.py", Some("scripts/seed.py"), "mv -t scripts tools/seed.py"),
        ("build log", "build/output.log", None, "del build\\output.log"),
        (
            "icon set",
            "icons/old.svg",
            Some("icons/legacy/old.svg"),
            "move icons/old.svg icons/legacy/old.svg",
        ),
    ] {
        out.push(moved_by(26, what, gone, now, command));
    }
    out
}

/// 27, 28, 29: a choice the user replaces whose old wording (not a distinctive value) the
/// summary may not state anywhere, the way a probe forbids "kernel in Go": a decision, an
/// assistant's recommendation, and an approach of a plan.
fn restated_choices() -> Vec<Instance> {
    let mut out = Vec::new();
    // 27: a decision.
    for (subject, old, new) in [
        ("kernel", "Go", "Rust"),
        ("theme", "light", "dark"),
        ("indentation", "tabs", "two spaces"),
    ] {
        let messages = replaced_choice(
            27,
            &format!("Set up the {subject}."),
            &format!("I'll write the {subject} in {old} because it is simple."),
            &format!("Let's switch the {subject} to {new}; {old} does not fit the project."),
            &format!("OK, the {subject} is {new} now."),
        );
        out.push(
            Instance::new(CLASS, 27, messages)
                .expect(&[subject], new)
                .never_current(&[&format!("{subject} in {old}")], &[]),
        );
    }
    // 28: a recommendation the user overrides.
    for (subject, old, new) in [
        ("sessions", "Redis", "Postgres"),
        ("uploads", "local disk", "S3"),
        ("emails", "SMTP", "Postmark"),
    ] {
        let messages = replaced_choice(
            28,
            &format!("How should we store the {subject}?"),
            &format!("I recommend keeping the {subject} in {old} because it is the simplest."),
            &format!("No, keep the {subject} in {new} instead."),
            &format!("Understood, the {subject} go to {new}."),
        );
        out.push(
            Instance::new(CLASS, 28, messages)
                .expect(&[subject], new)
                .never_current(&[&format!("{subject} in {old}")], &[]),
        );
    }
    // 29: an approach the assistant took, replaced by the user's.
    for (subject, old, new) in [
        ("pagination", "offset pages", "cursors"),
        ("search", "LIKE queries", "full-text indexes"),
        ("retries", "a fixed delay", "exponential backoff"),
    ] {
        let messages = replaced_choice(
            29,
            &format!("Implement the {subject}."),
            &format!("Going with {old} for the {subject} because they are easy to test."),
            &format!("Change the {subject} to {new}, {old} will not scale."),
            &format!("Done, the {subject} uses {new}."),
        );
        out.push(
            Instance::new(CLASS, 29, messages)
                .expect(&[subject], new)
                .never_current(&[&format!("{old} for the {subject}")], &[]),
        );
    }
    out
}
