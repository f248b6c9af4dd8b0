//! Values a later step changes: what the assistant found wrong, a setting a tool call
//! edits or renames, a version bumped, a test count that changes.

use super::*;

/// 12: a value the assistant found and later found to be wrong.
pub(super) fn found_wrong() -> Vec<Instance> {
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
pub(super) fn edited_settings() -> Vec<Instance> {
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
pub(super) fn version_bumps() -> Vec<Instance> {
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

/// 18: a port, URL, branch or environment the user changed.
pub(super) fn renamed_settings() -> Vec<Instance> {
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

/// 20: a test count that changed between runs: the earlier count is no current status.
pub(super) fn test_counts() -> Vec<Instance> {
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
