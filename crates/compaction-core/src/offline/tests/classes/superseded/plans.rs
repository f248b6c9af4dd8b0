//! Plans and decisions that stop being current: a dropped step, a decision reverted
//! with its reason, questions and lists, and choices whose old wording may not be repeated.

use super::*;

/// 19: a step of the assistant's plan the user drops.
pub(super) fn dropped_steps() -> Vec<Instance> {
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

/// 21: a decision reverted with a reason ("go back to X because …").
pub(super) fn reverted() -> Vec<Instance> {
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
pub(super) fn questions_and_lists() -> Vec<Instance> {
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

/// 27, 28, 29: a choice the user replaces whose old wording (not a distinctive value) the
/// summary may not state anywhere, the way a probe forbids "kernel in Go": a decision, an
/// assistant's recommendation, and an approach of a plan.
pub(super) fn restated_choices() -> Vec<Instance> {
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
