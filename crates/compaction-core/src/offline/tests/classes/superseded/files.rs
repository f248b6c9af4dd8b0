//! Files that stop being where a turn said they live: moved or deleted by the shell, by
//! a patch, several at a time, or by PowerShell and cmd.

use super::*;

/// 15, 16: a file moved (`git mv`, `mv`) or deleted (`rm`, `git rm`) after a turn named it
/// as where something lives: the old path is no current file.
pub(super) fn moved_and_deleted() -> Vec<Instance> {
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
pub(super) fn patch_moves() -> Vec<Instance> {
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
pub(super) fn more_moves() -> Vec<Instance> {
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
