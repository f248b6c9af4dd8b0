//! The template families of each class, with their instances. A family's index within its
//! class decides its part (see the module above); the parameters vary the wording, the
//! ecosystem and the language.

use super::super::*;
use super::Instance;

pub(super) const BLOCKED: &str = "### Blocked";
const DECISIONS: &str = "## Key Decisions";
pub(super) const NEXT: &str = "## Next Steps";
const IN_PROGRESS: &str = "### In Progress";
const CONSTRAINTS: &str = "## Constraints & Preferences";

pub(super) fn call(id: &str, tool: &str, arguments: Value) -> AgentMessage {
    assistant("", &[(id, tool, arguments)])
}

pub(super) fn shell(id: &str, command: &str) -> AgentMessage {
    call(id, "Bash", json!({ "command": command }))
}

pub(super) fn edit(id: &str, path: &str, old: &str, new: &str) -> [AgentMessage; 2] {
    [
        call(id, "Edit", json!({ "file_path": path, "old_string": old, "new_string": new })),
        result(id, "Edit", &format!("The file {path} has been updated."), false),
    ]
}

/// Filler turns: work that neither settles nor repeats the fact under test.
pub(super) fn filler(turns: usize, seed: usize) -> Vec<AgentMessage> {
    let mut out = Vec::new();
    for turn in 0..turns {
        let n = seed * 10 + turn;
        out.push(user(&format!("Now add a docstring to helper{n} in src/util{n}.py")));
        out.extend(edit(&format!("f{n}"), &format!("src/util{n}.py"), "def h", "def h  # doc"));
        out.push(assistant(&format!("Added the docstring to helper{n}."), &[]));
    }
    out
}

pub(super) fn all() -> Vec<Instance> {
    let mut out = Vec::new();
    out.extend(super::statuses::statuses());
    out.extend(changes_of_mind());
    out.extend(errors_with_fixes());
    out.extend(open_problems());
    out.extend(numbers());
    out.extend(output_facts());
    out.extend(rules());
    out.extend(invented_names());
    out.extend(super::created::command_results());
    out.extend(super::documents::documents_written());
    out.extend(super::confirmed::proposals_confirmed());
    out.extend(super::settled::settled_after_the_cut());
    out.extend(super::reported::errors_the_user_reported());
    out.extend(super::coloured::coloured_outputs());
    out.extend(super::setting::settings_changed_in_place());
    out.extend(super::lists::lists_that_report());
    out.extend(super::wrapped::commands_a_shell_runs());
    out.extend(super::setup::runs_behind_setup_steps());
    out.extend(super::replies::replies_shown_with_their_requests());
    out.extend(super::instructions::instruction_file_sections());
    out.extend(super::done_by_edit::requests_answered_by_edits());
    out.extend(super::not_rejected::noes_that_reject_nothing());
    out
}

fn changes_of_mind() -> Vec<Instance> {
    let class = "change of mind";
    let mut out = Vec::new();
    // 0: a design replaced twice.
    for (subject, first, second, third) in [
        ("cache", "Redis", "an in-memory LRU", "SQLite"),
        ("queue", "RabbitMQ", "Kafka", "a Postgres table with SKIP LOCKED"),
        ("auth", "JWT", "server sessions", "OAuth with Keycloak"),
    ] {
        let messages = vec![
            user(&format!("Use {first} for the {subject}.")),
            assistant(&format!("Going with {first} for the {subject}."), &[]),
            user(&format!("Actually, use {second} for the {subject} instead of {first}.")),
            assistant(&format!("Going with {second} for the {subject} rather than {first}."), &[]),
            user(&format!(
                "No, let's go with {third} for the {subject} after all, it must survive restarts."
            )),
            assistant(
                &format!("Going with {third} for the {subject} because it survives restarts."),
                &[],
            ),
        ];
        out.push(
            Instance::new(class, 0, messages)
                .expect(&[subject], third)
                .absent(&format!("Going with {first} for"), &[DECISIONS])
                .absent(&format!("Going with {second} for"), &[DECISIONS]),
        );
    }
    // 1: a guess the user corrected.
    for (thing, guess, actual) in [
        ("dev server port", "8080", "3001"),
        ("Node version", "18", "22.11"),
        ("database name", "app_dev", "orders_local"),
    ] {
        let messages = vec![
            user(&format!("What is the {thing}?")),
            assistant(&format!("The {thing} is {guess}, because that is the default."), &[]),
            user(&format!("no, it's {actual}, not {guess}")),
            assistant(&format!("Right, the {thing} is {actual}; I'll use that."), &[]),
        ];
        out.push(
            Instance::new(class, 1, messages)
                .expect(&[thing, actual], actual)
                .absent(&format!("The {thing} is {guess}"), &[DECISIONS]),
        );
    }
    // 2: a tool call the user rejected.
    for (command, instead) in [
        ("git push --force origin main", "open a PR instead"),
        ("rm -rf node_modules package-lock.json", "just run npm ci instead"),
        ("docker system prune -af", "only remove the dangling images instead"),
    ] {
        let messages = vec![
            user("Get this onto the remote / clean up."),
            assistant(
                &format!("I'll run `{command}`."),
                &[("r1", "Bash", json!({"command": command}))],
            ),
            result(
                "r1",
                "Bash",
                "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.",
                true,
            ),
            user(&format!("don't do that, {instead}")),
        ];
        out.push(
            Instance::new(class, 2, messages)
                .absent(command, &[NEXT, IN_PROGRESS])
                .expect(&["user", "rejected"], instead),
        );
    }
    // 3 on: the other ways a value stops being current.
    out.extend(super::superseded::all());
    out
}

fn errors_with_fixes() -> Vec<Instance> {
    let class = "error with fix";
    let mut out = Vec::new();
    // 0, 1, 2: a failure, a diagnosis, an edit, a pass (three ecosystems per family).
    let cases = [
        [
            (
                "cargo test",
                "error[E0599]: no method named `len` found for enum `Option`",
                "src/parse.rs",
                "The problem is that `tokens` is an `Option`; the fix is to unwrap it with `unwrap_or_default()`.",
                "unwrap_or_default",
            ),
            (
                "pytest -q",
                "KeyError: 'customer_id'",
                "app/orders.py",
                "The cause is that the CSV header is `customerId`, so I'll map it to `customer_id` on load.",
                "customerId",
            ),
            (
                "npm test",
                "TypeError: fetch is not a function",
                "src/client.ts",
                "The root cause is Node 16 has no global fetch; I'll import `undici` instead.",
                "undici",
            ),
        ],
        [
            (
                "go build ./...",
                "./main.go:14:2: undefined: NewServer",
                "main.go",
                "The issue is that `NewServer` was renamed to `NewHTTPServer` in server.go.",
                "NewHTTPServer",
            ),
            (
                "make",
                "ld: library not found for -lssl",
                "Makefile",
                "The fix is to add `-L/opt/homebrew/opt/openssl/lib` to LDFLAGS because OpenSSL is keg-only.",
                "openssl/lib",
            ),
            (
                "bundle exec rspec",
                "NameError: uninitialized constant Billing::Invoice",
                "app/models/billing/invoice.rb",
                "The problem is the file is named `invoices.rb`, so I'll rename the class file to `invoice.rb`.",
                "invoice.rb",
            ),
        ],
        [
            (
                "dotnet build",
                "error CS0246: The type or namespace name 'JsonSerializer' could not be found",
                "Api/Program.cs",
                "The fix is to add `using System.Text.Json;` because the namespace was not imported.",
                "System.Text.Json",
            ),
            (
                "python manage.py migrate",
                "django.db.utils.OperationalError: no such column: shop_item.sku",
                "shop/migrations/0004_item_sku.py",
                "The cause is a missing migration for `sku`; I'll add migration 0004.",
                "0004",
            ),
            (
                "flutter test",
                "Error: The getter 'title' isn't defined for the class 'Todo'.",
                "lib/todo.dart",
                "The problem is that `Todo` has `name`, not `title`; I'll rename the field to `title`.",
                "title",
            ),
        ],
    ];
    for (family, group) in cases.iter().enumerate() {
        for (command, error, file, diagnosis, fix_word) in group {
            let mut messages = vec![
                user("Make the build green."),
                shell("x1", command),
                result("x1", "Bash", &format!("{error}\nExit code 1"), true),
                assistant(diagnosis, &[]),
            ];
            messages.extend(edit("x2", file, "old line", &format!("new line with {fix_word}")));
            messages.push(shell("x3", command));
            messages.push(result("x3", "Bash", "ok", false));
            messages.push(assistant("Passing now.", &[]));
            messages.extend(filler(2, family));
            let key = error.split(':').next().unwrap_or(error).trim();
            out.push(
                Instance::new(class, family, messages).expect(&[key, command], fix_word).absent(
                    &format!("Last error (unresolved, `{command}`"),
                    &["## Critical Context"],
                ),
            );
        }
    }
    out
}

fn open_problems() -> Vec<Instance> {
    let class = "open problem";
    let mut out = Vec::new();
    let reports = [
        [
            "The login button does nothing on mobile Safari.",
            "Also the export to CSV drops the last row.",
            "The dark mode toggle resets after a reload.",
        ],
        [
            "모바일에서 로그인 버튼이 눌리지 않아요.",
            "CSV 내보내기에서 마지막 행이 빠져요.",
            "새로고침하면 다크 모드가 풀려요.",
        ],
        [
            "Le bouton de connexion ne marche pas sur mobile.",
            "El export a CSV pierde la última fila.",
            "Der Dark-Mode-Schalter funktioniert nach dem Neuladen nicht.",
        ],
    ];
    for (family, group) in reports.iter().enumerate() {
        for (index, report) in group.iter().enumerate() {
            let mut messages = vec![
                user("Refactor the header component and move the nav links into their own file."),
                assistant("I'll refactor the header first.", &[]),
                user(&format!(
                    "Keep the props the same and add a story for the nav links in Storybook. {report}"
                )),
            ];
            messages.extend(edit("h1", "src/Header.tsx", "class Header", "function Header"));
            messages.push(assistant("The header is a function component now.", &[]));
            messages.extend(filler(2 + index, family));
            let subject: String = report.chars().take(8).collect();
            out.push(Instance::new(class, family, messages).expect(&[&subject], report));
        }
    }
    out
}

fn numbers() -> Vec<Instance> {
    let class = "numbers";
    let mut out = Vec::new();
    let settings = [
        ("cooldown", "10 s after the first failure and 3 s after each later one"),
        ("thumbnails", "30% bigger than now, but never wider than 480 px"),
        ("retries", "5 attempts with a 250 ms base delay, doubling up to 8 s"),
        ("cache TTL", "15 minutes for search results and 24 h for the catalogue"),
        ("batch size", "512 rows per insert and at most 4 inserts in flight"),
        ("timeouts", "connect 2 s, read 30 s, and the whole request 45 s"),
    ];
    for (family, chunk) in settings.chunks(2).enumerate() {
        for (subject, value) in chunk {
            let long = "We talked about the structure of the module for a while, and I think the layout is fine as it is, the naming too, the tests are fine, and the docs can wait until the end of the week. ";
            let messages = vec![
                user(&format!("{long}For the {subject}, make it {value}. Then update the README.")),
                assistant(&format!("I'll set the {subject} as asked."), &[]),
            ];
            let mut messages = messages;
            messages.extend(filler(3, family));
            out.push(Instance::new(class, family, messages).expect(&[subject], value));
        }
    }
    out
}

fn output_facts() -> Vec<Instance> {
    let class = "output fact";
    let mut out = Vec::new();
    let cases = [
        [
            (
                "gh run list --limit 3",
                "in_progress  CI  main  push  12876543210  2m",
                "12876543210",
                "I'll watch run 12876543210 until it finishes.",
            ),
            (
                "kubectl apply -f jobs/migrate.yaml",
                "job.batch/migrate-7f9c2 created",
                "migrate-7f9c2",
                "I'll follow the logs of migrate-7f9c2.",
            ),
        ],
        [
            (
                "sbatch train.slurm",
                "Submitted batch job 4417209",
                "4417209",
                "Job 4417209 is queued; I'll check its status later.",
            ),
            (
                "aws s3 ls s3://reports-prod/2024/ | wc -l",
                "1893",
                "1893",
                "There are 1893 report files, so I'll process them in batches of 100.",
            ),
        ],
        [
            (
                "docker run -d -p 5433:5432 postgres:16",
                "f3a9c1b2e7d4",
                "f3a9c1b2e7d4",
                "The database container f3a9c1b2e7d4 is up; I'll point DATABASE_URL at port 5433.",
            ),
            (
                "npm view react version",
                "18.3.1",
                "18.3.1",
                "The latest React is 18.3.1, so I'll pin ^18.3.1 in package.json.",
            ),
        ],
    ];
    for (family, group) in cases.iter().enumerate() {
        for (command, output, token, use_) in group {
            let mut messages = vec![
                user("Start it and keep track of it."),
                shell("o1", command),
                result("o1", "Bash", output, false),
                assistant(use_, &[]),
            ];
            messages.extend(filler(3, family));
            out.push(Instance::new(class, family, messages).expect(&[token], token));
        }
    }
    out
}

fn rules() -> Vec<Instance> {
    let class = "rule";
    let mut out = Vec::new();
    // 0, 1, 2: the user's own rules in several languages and forms.
    let said = [
        [
            "커밋 메시지는 반드시 한국어로 작성해 주세요.",
            "Ne modifie jamais le schéma de la base sans me demander.",
            "Nunca uses any en TypeScript.",
        ],
        [
            "不要修改 package-lock.json。",
            "Bitte keine neuen Abhängigkeiten hinzufügen.",
            "テストは必ず日本語で書いてください。",
        ],
        [
            "I'd rather you didn't touch the CI config.",
            "Tabs, not spaces.",
            "Keep every function under 40 lines",
        ],
    ];
    for (family, group) in said.iter().enumerate() {
        for rule in group {
            let mut messages = vec![
                user("Add the invoice endpoint."),
                assistant("I'll add the endpoint.", &[]),
                user(&format!("Looks good. {rule} Now add pagination to the invoice list.")),
                assistant("I'll add pagination.", &[]),
            ];
            messages.extend(filler(4, family));
            let subject: String = rule.chars().take(6).collect();
            out.push(Instance::new(class, family, messages).expect(&[&subject], rule));
        }
    }
    // 3, 4: rules of an instruction file the work read.
    let files = [
        (
            "CONTRIBUTING.md",
            "- 이슈를 먼저 만들고 브랜치를 만든 뒤 PR을 엽니다 (issue → branch → PR).\n- 머지는 merge commit만 사용합니다. squash 금지.",
            "merge commit",
        ),
        (
            "AGENTS.md",
            "## Rules\n- Never commit directly to main.\n- Run `make lint` before every commit.",
            "make lint",
        ),
        (
            "CLAUDE.md",
            "# Project\n- Toujours écrire les tests avant le code.\n- N'utilisez pas de dépendances externes.",
            "Toujours écrire les tests",
        ),
    ];
    for (index, (file, text, key)) in files.iter().enumerate() {
        let numbered: String =
            text.lines().enumerate().map(|(n, line)| format!("{:>6}→{line}\n", n + 1)).collect();
        let mut messages = vec![
            user("Follow the project's contribution rules and add the feature."),
            call("c1", "Read", json!({"file_path": format!("/repo/{file}")})),
            result("c1", "Read", &numbered, false),
            assistant("I'll follow the rules in the file.", &[]),
        ];
        messages.extend(filler(4, index));
        out.push(Instance::new(class, 3 + index % 2, messages).expect(&[key], key));
    }
    // 5: text a tool printed (or the user pasted from a tool) is never a rule.
    for printed in [
        "Error: You must be logged in to perform this action.",
        "WARNING: You should not run pip as root.",
        "npm WARN deprecated: always-auth must be set in .npmrc",
    ] {
        let messages = vec![
            user(&format!("I get this in the web UI:\n\n{printed}\n\nwhat now?")),
            assistant("That message comes from the server; I'll check the session cookie.", &[]),
        ];
        out.push(Instance::new(class, 5, messages).absent(printed, &[CONSTRAINTS]));
    }
    out
}

fn invented_names() -> Vec<Instance> {
    let class = "invented name";
    let mut out = Vec::new();
    let commands = [
        [
            "python -c \"print(1 if 7 > 5 else 0)\"",
            "awk '$3 > 15 {print $1}' data.csv",
            "echo done > /dev/null",
        ],
        [
            "grep -n foo src/a.py | head -5 > 5:",
            "node -e 'if (a > 2) console.log(a)'",
            "printf '%s\\n' x >&2",
        ],
        [
            "cat <<EOF > notes.txt\nline > \\\nEOF",
            "[ $n -gt 3 ] && echo big > echo",
            "sed -n '1,5p' a.txt > \\",
        ],
    ];
    for (family, group) in commands.iter().enumerate() {
        for command in group {
            let messages = vec![
                user("Run the checks."),
                shell("n1", command),
                result("n1", "Bash", "ok", false),
                assistant("Checked.", &[]),
            ];
            let mut instance = Instance::new(class, family, messages);
            for word in ["`5`", "`15`", "`2`", "`5:`", "`\\`", "`echo`", "`0`", "`a`"] {
                instance =
                    instance.absent(&format!("Modified files: {word}"), &["## Critical Context"]);
            }
            out.push(instance);
        }
    }
    out
}
