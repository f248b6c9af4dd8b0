//! The class "status": a command's status as its evidence gives it (a search that found
//! its answer and exited non-zero, an environment check, a listing after a deletion, a
//! failure a later run fixed, a crash a pipe hid), never a failure or a pass the
//! transcript does not show. Split from `families.rs`, where the other early classes are.

use super::super::*;
use super::Instance;
use super::families::{BLOCKED, NEXT, call, edit, shell};

pub(super) fn statuses() -> Vec<Instance> {
    let class = "status";
    let mut out = Vec::new();
    // 0: a search that found the answer but exited non-zero.
    for (find, found, process) in [
        (
            "find / -name libcudart.so 2>/dev/null; pgrep -f jupyter",
            "/usr/local/cuda/lib64/libcudart.so",
            "4121",
        ),
        ("find ~ -name '*.pem' -newer setup.cfg; pgrep nginx", "/home/me/certs/site.pem", "988"),
        (
            "find /opt -maxdepth 3 -name java; pgrep -a java",
            "/opt/jdk-21/bin/java",
            "30177 java -jar app.jar",
        ),
    ] {
        let messages = vec![
            user("Where is the library installed and is the server still running?"),
            shell("s1", find),
            result(
                "s1",
                "Bash",
                &format!("{found}\nfind: '/proc/1/task': Permission denied\n{process}"),
                true,
            ),
            assistant(&format!("It is at `{found}`."), &[]),
        ];
        out.push(Instance::new(class, 0, messages).absent(find, &[BLOCKED, NEXT]));
    }
    // 1: an environment check that answers by failing.
    for (check, error) in [
        (
            "python3 -c \"import torch; print(torch.__version__)\"",
            "ModuleNotFoundError: No module named 'torch'",
        ),
        ("node --version && pnpm --version", "bash: pnpm: command not found"),
        (
            "go version && which golangci-lint",
            "which: no golangci-lint in (/usr/local/bin:/usr/bin)",
        ),
    ] {
        let messages = vec![
            user("Check what the environment has before we start."),
            shell("e1", check),
            result("e1", "Bash", &format!("{error}\nExit code 1"), true),
            assistant("Noted what is missing.", &[]),
            user("OK, write the plan to PLAN.md"),
            call("w1", "Write", json!({"file_path": "PLAN.md", "content": "# Plan"})),
            result("w1", "Write", "File created successfully at: PLAN.md", false),
            assistant("Wrote PLAN.md.", &[]),
        ];
        let word = error
            .split([':', '\''])
            .find(|w| w.contains("torch") || w.contains("pnpm") || w.contains("golangci"))
            .unwrap_or(error);
        out.push(
            Instance::new(class, 1, messages)
                .absent(check, &[BLOCKED, NEXT])
                .expect(&[check, word.trim()], error.split(':').next().unwrap_or(error)),
        );
    }
    // 2: a deliberate listing after deleting files.
    for (paths, dir) in [
        ("tests/test_legacy.py tests/test_old_api.py", "tests/legacy"),
        ("src/__mocks__/fs.js", "src/__mocks__"),
        ("docs/draft-1.md docs/draft-2.md", "docs/drafts"),
    ] {
        let command = format!("rm {paths} && ls {dir}");
        let messages = vec![
            user(&format!("Delete {paths}, they are obsolete.")),
            shell("d1", &command),
            result(
                "d1",
                "Bash",
                &format!("ls: cannot access '{dir}': No such file or directory\nExit code 2"),
                true,
            ),
            assistant("Deleted; the folder is gone too.", &[]),
        ];
        let first = paths.split(' ').next().unwrap_or(paths);
        out.push(
            Instance::new(class, 2, messages)
                .absent(&command, &[BLOCKED, NEXT])
                .absent("unresolved", &["## Critical Context"])
                .expect(&["Deleted", "rm "], first),
        );
    }
    // 3: an error fixed, then a wider test run passes.
    for (narrow, error, wide, counts) in [
        (
            "python -m pytest tests/test_models.py::test_save -x",
            "AttributeError: 'Order' object has no attribute 'total_cents'",
            "python -m pytest tests/ -q",
            "536 passed in 41.2s",
        ),
        (
            "npx vitest run src/cart.test.ts",
            "TypeError: Cannot read properties of undefined (reading 'qty')",
            "npx vitest run",
            "Tests  212 passed (212)",
        ),
        (
            "go test ./internal/store -run TestPut",
            "--- FAIL: TestPut (0.01s)",
            "go test ./...",
            "ok  	example.com/app/internal/store	0.412s",
        ),
    ] {
        let mut messages = vec![
            user("Fix the failing test."),
            shell("t1", narrow),
            result("t1", "Bash", &format!("{error}\nFAILED\nExit code 1"), true),
        ];
        messages.extend(edit("t2", "src/models.py", "self.total = 0", "self.total_cents = 0"));
        messages.push(shell("t3", wide));
        messages.push(result("t3", "Bash", counts, false));
        messages.push(assistant("All green now.", &[]));
        let key = error.split(':').next().unwrap_or(error);
        out.push(
            Instance::new(class, 3, messages)
                .absent(narrow, &[BLOCKED, NEXT])
                .absent("unresolved", &["## Critical Context"])
                .expect(&[key], key),
        );
    }
    // 4: a crashing script piped to tail: the exit code is tail's.
    for (script, crash) in [
        (
            "python scripts/train.py --epochs 3 2>&1 | tail -30",
            "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB",
        ),
        ("node scripts/migrate.js 2>&1 | tail -20", "Error: connect ECONNREFUSED 127.0.0.1:5432"),
        (
            "./gradlew run 2>&1 | head -40",
            "Exception in thread \"main\" java.lang.NullPointerException",
        ),
    ] {
        let messages = vec![
            user("Run it and tell me what happens."),
            shell("p1", script),
            result(
                "p1",
                "Bash",
                &format!("Traceback (most recent call last):\n  File \"x\", line 3\n{crash}"),
                false,
            ),
            assistant("Let me look at the output.", &[]),
        ];
        out.push(
            Instance::new(class, 4, messages)
                .absent(&format!("`{script}` (passed)"), &["## Critical Context"])
                .absent(&format!("Ran `{script}`"), &["### Done"])
                .expect(&[script, "output"], crash.split('.').next().unwrap_or(crash)),
        );
    }
    // 5: a real failure stays a failure.
    for (command, error) in [
        ("cargo build", "error[E0308]: mismatched types"),
        ("npm run build", "error TS2322: Type 'string' is not assignable to type 'number'."),
        ("mvn -q package", "[ERROR] COMPILATION ERROR : cannot find symbol"),
    ] {
        let messages = vec![
            user("Build the project."),
            shell("b1", command),
            result("b1", "Bash", &format!("{error}\nExit code 1"), true),
            assistant("The build fails; I'll look into it.", &[]),
        ];
        out.push(
            Instance::new(class, 5, messages)
                .expect(&[command], error.split(':').next().unwrap_or(error)),
        );
    }
    out
}
