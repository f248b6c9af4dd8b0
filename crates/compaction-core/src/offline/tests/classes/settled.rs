//! The class "settled after the cut": what the summarized part ends on is settled by the
//! messages kept verbatim after it. The user asks for something new, a failing command
//! passes, an edit that failed is made, a value is changed or a file is moved, all after
//! the cut. The summary sits before those messages in the context, so nothing it states
//! as current may contradict them: the earlier request is not the latest one, the failure
//! is not blocking, the old value and the old path are not current. Each family is one
//! kind of settling, in one wording, with three instances.

use super::super::*;
use super::Instance;
use super::families::{call, edit, shell};

const CLASS: &str = "settled after the cut";

/// A request the kept messages follow with a newer one: (the old request, the words of it
/// a probe checks, the newer request).
type Requests = [(&'static str, &'static str, &'static str); 3];

/// A command failing before the cut and passing after it: (the command, its error line, the
/// file the fix edits, the runner's summary when it passes).
type Runs = [(&'static str, &'static str, &'static str, &'static str); 3];

fn tool_run(id: &str, command: &str, output: &str, failed: bool) -> [AgentMessage; 2] {
    [shell(id, command), result(id, "Bash", output, failed)]
}

fn requests(family: usize, cases: Requests, reply: &str) -> Vec<Instance> {
    let mut out = Vec::new();
    for (index, (old, words, newer)) in cases.into_iter().enumerate() {
        let id = format!("r{family}{index}");
        let mut messages = vec![user(old)];
        messages.extend(tool_run(&id, "git status --short", " M README.md", false));
        messages.push(assistant(reply, &[]));
        let kept = vec![user(newer), assistant("On it.", &[])];
        out.push(
            Instance::new(CLASS, family, messages)
                .kept(kept)
                .expect(&[words], words)
                .never_current(&["Latest request", words], &["goal"]),
        );
    }
    out
}

fn runs(family: usize, cases: Runs, again: &str) -> Vec<Instance> {
    let mut out = Vec::new();
    for (index, (command, error, file, passed)) in cases.into_iter().enumerate() {
        let id = format!("c{family}{index}");
        let mut messages = vec![user("Run the test suite and fix what fails.")];
        messages.extend(tool_run(&id, command, &format!("{error}\nExit code 1"), true));
        messages.extend(edit(&format!("{id}e"), file, "old_value", "new_value"));
        messages.push(assistant(&format!("I changed `{file}`; the failure should be gone."), &[]));
        let mut kept = vec![user(again)];
        kept.extend(tool_run(&format!("{id}k"), command, passed, false));
        kept.push(assistant("It passes.", &[]));
        out.push(
            Instance::new(CLASS, family, messages)
                .kept(kept)
                .expect(&[file], file)
                .never_current(&[command], &["blocked"])
                .never_current(&[command], &["next steps"]),
        );
    }
    out
}

pub(super) fn settled_after_the_cut() -> Vec<Instance> {
    let mut out = Vec::new();
    // 0: English requests, a newer one after the cut.
    out.extend(requests(
        0,
        [
            (
                "Add a `--dry-run` flag to the deploy script that prints the commands instead of running them.",
                "--dry-run",
                "Now bump the chart version to 2.4.0.",
            ),
            (
                "Make the CSV export include the `created_at` column, formatted as ISO 8601.",
                "created_at",
                "Next, add pagination to the orders endpoint.",
            ),
            (
                "Switch the logger to JSON output when `LOG_FORMAT=json` is set.",
                "LOG_FORMAT=json",
                "Please also rotate the log files daily.",
            ),
        ],
        "Done: the change is in and the status is clean.",
    ));
    // 1: pytest failing, then passing after the cut.
    out.extend(runs(
        1,
        [
            (
                "pytest tests/test_billing.py",
                "FAILED tests/test_billing.py::test_invoice_total - AssertionError: 105 != 100",
                "billing/invoice.py",
                "==== 14 passed in 0.81s ====",
            ),
            (
                "python -m pytest -q tests/api",
                "E   KeyError: 'customer_id'",
                "api/serializers.py",
                "32 passed in 2.10s",
            ),
            (
                "pytest -x tests/test_parser.py",
                "FAILED tests/test_parser.py::test_nested - ValueError: unexpected token ']'",
                "parser/lexer.py",
                "9 passed in 0.12s",
            ),
        ],
        "Run it again.",
    ));
    // 2: Spanish requests, a newer one after the cut.
    out.extend(requests(
        2,
        [
            (
                "Agrega validación del correo en el formulario de registro con un mensaje `Correo inválido`.",
                "Correo inválido",
                "Ahora traduce los textos del pie de página.",
            ),
            (
                "Cambia el color del botón principal a `#1E88E5` en todo el sitio.",
                "#1E88E5",
                "Ahora sube los cambios a la rama `staging`.",
            ),
            (
                "Quiero que el caché de productos expire cada 10 minutos.",
                "10 minutos",
                "Luego revisa por qué tarda tanto el checkout.",
            ),
        ],
        "Listo, el cambio está hecho.",
    ));
    // 3: cargo failing, then passing after the cut.
    out.extend(runs(
        3,
        [
            (
                "cargo test -p ledger",
                "error[E0308]: mismatched types --> ledger/src/entry.rs:42:17",
                "ledger/src/entry.rs",
                "test result: ok. 58 passed; 0 failed; 0 ignored",
            ),
            (
                "cargo build --release",
                "error[E0425]: cannot find value `max_retries` in this scope",
                "src/client.rs",
                "Finished `release` profile [optimized] target(s) in 41.2s",
            ),
            (
                "cargo clippy -- -D warnings",
                "error: this `if` has identical blocks --> src/plan.rs:88:9",
                "src/plan.rs",
                "Finished `dev` profile [unoptimized + debuginfo] target(s) in 3.4s",
            ),
        ],
        "Try the build again now.",
    ));
    // 4: a value set before the cut, changed by an edit after it.
    for (index, (file, key, old, new, sentence)) in [
        ("config/server.yaml", "request_timeout", "30s", "90s", "the request timeout"),
        ("deploy/values.yaml", "replicaCount", "2", "5", "the replica count"),
        ("settings.toml", "max_connections", "64", "256", "the connection limit"),
    ]
    .into_iter()
    .enumerate()
    {
        let id = format!("v4{index}");
        let mut messages = vec![user(&format!("Set {sentence} in `{file}`."))];
        messages.extend(edit(&id, file, &format!("{key}: 10"), &format!("{key}: {old}")));
        messages.push(assistant(&format!("I set `{key}: {old}` in `{file}`."), &[]));
        let mut kept = vec![user(&format!("{old} is not enough, use {new}."))];
        kept.extend(edit(
            &format!("{id}k"),
            file,
            &format!("{key}: {old}"),
            &format!("{key}: {new}"),
        ));
        kept.push(assistant(&format!("Changed it to {new}."), &[]));
        out.push(
            Instance::new(CLASS, 4, messages)
                .kept(kept)
                .expect(&[file], key)
                .never_current(&[key, old], &["done", "key decisions", "in progress"]),
        );
    }
    // 5: npm failing, then passing after the cut.
    out.extend(runs(
        5,
        [
            (
                "npm test -- --runInBand",
                "● Cart › applies the coupon › expected 90, received 100",
                "src/cart/coupon.ts",
                "Tests:       48 passed, 48 total",
            ),
            (
                "npx tsc --noEmit",
                "src/routes/user.ts(17,5): error TS2322: Type 'string' is not assignable to type 'number'.",
                "src/routes/user.ts",
                "(no output)",
            ),
            (
                "npm run lint",
                "src/App.tsx:12:7  error  'unused' is assigned a value but never used  no-unused-vars",
                "src/App.tsx",
                "✔ No problems found",
            ),
        ],
        "Check again please.",
    ));
    // 6: Chinese and Korean requests, a newer one after the cut.
    out.extend(requests(
        6,
        [
            (
                "把首页的轮播图改成每 5 秒切换一次。",
                "每 5 秒切换一次",
                "再把页脚的版权年份更新一下。",
            ),
            ("给导出接口加上 `X-Request-Id` 响应头。", "X-Request-Id", "然后把接口文档也改一下。"),
            (
                "로그인 실패 시 `잠시 후 다시 시도하세요` 메시지를 보여 주세요.",
                "잠시 후 다시 시도하세요",
                "이제 회원가입 화면도 같은 스타일로 바꿔 주세요.",
            ),
        ],
        "完成了。",
    ));
    // 7: a file written before the cut, moved after it.
    for (index, (from, to)) in [
        ("src/utils/date.ts", "src/lib/date.ts"),
        ("scripts/seed_db.py", "tools/seed_db.py"),
        ("docs/setup.md", "docs/guides/setup.md"),
    ]
    .into_iter()
    .enumerate()
    {
        let id = format!("m7{index}");
        let messages = vec![
            user(&format!("Create `{from}` with the helper we discussed.")),
            call(&id, "Write", json!({ "file_path": from, "content": "export {};\n" })),
            result(&id, "Write", &format!("File created successfully at: {from}"), false),
            assistant(&format!("Created `{from}`."), &[]),
        ];
        let mut kept = vec![user(&format!("Move it to `{to}`."))];
        kept.extend(tool_run(&format!("{id}k"), &format!("git mv {from} {to}"), "", false));
        kept.push(assistant("Moved.", &[]));
        out.push(
            Instance::new(CLASS, 7, messages)
                .kept(kept)
                .expect(&[from], from)
                .never_current(&[from], &["done", "in progress", "next steps"]),
        );
    }
    // 8: an edit failing before the cut, made after it.
    for (index, (file, old, new)) in [
        ("app/models/user.rb", "validates :email", "validates :email, presence: true"),
        ("internal/cache/lru.go", "size int", "size int64"),
        ("web/src/store.js", "count: 0", "count: initialCount"),
    ]
    .into_iter()
    .enumerate()
    {
        let id = format!("x8{index}");
        let messages = vec![
            user(&format!("In `{file}`, change `{old}` to `{new}`.")),
            call(&id, "Edit", json!({ "file_path": file, "old_string": old, "new_string": new })),
            result(&id, "Edit", "String to replace not found in file.", true),
            assistant("The text differs from what I expected; I'll read the file first.", &[]),
        ];
        let mut kept = vec![user("The file was reformatted, try again.")];
        kept.extend(edit(&format!("{id}k"), file, old, new));
        kept.push(assistant("Edited it.", &[]));
        out.push(
            Instance::new(CLASS, 8, messages)
                .kept(kept)
                .expect(&[file], file)
                .never_current(&[file], &["blocked"])
                .never_current(&[file], &["next steps"]),
        );
    }
    out
}
