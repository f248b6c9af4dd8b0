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
//!
//! Stages: [`words`] holds choices the user replaces in words, [`values`] values a later
//! step changes, [`files`] files that move or go, [`plans`] plans and decisions that stop
//! being current; this file holds the message builders they share.

mod files;
mod plans;
mod values;
mod words;

use super::super::*;
use super::Instance;
use files::*;
use plans::*;
use values::*;
use words::*;

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
