//! The class "a file whose path the redaction changed", through `run --restore-files`: a
//! compaction stores the files the summarized part modified (`modifiedFiles`) redacted, so a
//! path holding a secret (a token of a known family as a folder or a file name) is stored as
//! `keys/[REDACTED]/app.conf`, and the restore re-reads the files it names from the session's
//! folder. Each instance writes a session whose summarized part writes or edits one such
//! file, in a project folder that holds the file (or no longer does), and sometimes a second
//! file named as the redaction names the first (`keys/[REDACTED]/app.conf`, a decoy: a name
//! the user never gave a tool in this session):
//!
//! - the secret's family (innermost): round 19's eight (GitHub, AWS, Slack, Stripe,
//!   Anthropic, Google, OpenAI, a JSON Web Token), as a folder, a file name or part of one;
//! - the folder: the file is there (`kept`), the file and a decoy at the redacted name
//!   (`decoy`), only the decoy (`gone`);
//! - the tool that modified it: pi's `write` or `edit`;
//! - the command: `run FILE --offline --restore-files` (text), with `--json`, with `-o OUT`.
//!
//! Holds when the command exits 0; the secret is in nothing it printed or appended; the
//! decoy's text is in nothing it printed or appended (a file the session never named is not
//! read); when the file is there, its text is restored (the file the user modified comes back,
//! as any other file would); and every file of the folder but the session and the output is
//! byte-identical afterwards.
//!
//! `cargo test -p compaction-cli --test cli hostile_round22::restore -- --nocapture`

use std::collections::BTreeMap;
use std::path::Path;

use compaction_core::redact::Redactor;
use serde_json::json;

use super::split_tally;
use crate::hostile_round19::{FAMILIES, Rng, assistant, run_in, secret, turns, user};
use crate::hostile_round20::{Item, session_text};

const LAYOUTS: [&str; 3] = ["kept", "decoy", "gone"];

const TOOLS: [&str; 2] = ["write", "edit"];

const COMMANDS: [&str; 3] = ["run", "run --json", "run -o"];

/// Where the secret sits in the path.
const TEMPLATES: [&str; 4] =
    ["keys/{}/app.conf", "config/{}.txt", "deploy/token-{}/notes.md", "src/{}"];

/// Every file under `root` but `skip`, with its bytes.
fn files(root: &Path, skip: &[&str]) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let name = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                stack.push(path);
            } else if !skip.contains(&name.as_str()) {
                out.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// The session: the summarized part modifies `path` with `tool`, then ordinary turns.
fn session(work: &Path, tool: &str, path: &str, text: &str) -> String {
    let arguments = if tool == "write" {
        json!({"path": path, "content": text})
    } else {
        json!({"path": path, "oldText": "placeholder", "newText": text})
    };
    let mut items = vec![Item::Message(user("Fix the deploy configuration."))];
    items.push(Item::Message(json!({"role": "assistant", "content": [{"type": "toolCall",
        "id": "c1", "name": tool, "arguments": arguments}], "timestamp": 1})));
    items.push(Item::Message(json!({"role": "toolResult", "toolCallId": "c1",
        "toolName": tool, "content": [{"type": "text", "text": "Done."}], "isError": false,
        "timestamp": 1})));
    items.push(Item::Message(assistant("I updated the configuration.")));
    items.extend(turns(0, 24).into_iter().map(Item::Message));
    let cwd = serde_json::to_string(&work.to_string_lossy()).unwrap();
    session_text(&items).replacen("\"cwd\":\"/work\"", &format!("\"cwd\":{cwd}"), 1)
}

struct Instance<'a> {
    family: &'static str,
    layout: &'a str,
    tool: &'a str,
    command: &'a str,
}

/// What one command does wrong, or `None` when it holds.
fn attack(instance: &Instance, rng: &mut Rng) -> Option<String> {
    let work = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let secret = secret(instance.family, rng);
    let template = TEMPLATES[(rng.next() % TEMPLATES.len() as u64) as usize];
    let path = template.replace("{}", &secret.value());
    let redacted = Redactor::default().redact(&path).into_owned();
    if redacted == path {
        return Some(format!("the redaction keeps the path {path} (no instance)"));
    }
    let real_text = format!("restored text {}\n", rng.chars(16, "abcdefghijklmnop"));
    let decoy_text = format!("decoy text {}\n", rng.chars(16, "abcdefghijklmnop"));
    let put = |name: &str, text: &str| {
        let full = work.path().join(name);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    };
    if instance.layout != "gone" {
        put(&path, &real_text);
    }
    if instance.layout != "kept" {
        put(&redacted, &decoy_text);
    }
    let file = work.path().join("session.jsonl");
    // The tool wrote other text than the file holds now (changed since, by hand): what the
    // restore brings back can only come from the file.
    let original = session(work.path(), instance.tool, &path, "text the tool wrote\n");
    std::fs::write(&file, &original).unwrap();
    let before = files(work.path(), &["session.jsonl", "out.jsonl"]);
    let mut args =
        vec!["run", "session.jsonl", "--offline", "--keep-recent", "1500", "--restore-files"];
    match instance.command {
        "run --json" => args.push("--json"),
        "run -o" => args.extend(["-o", "out.jsonl"]),
        _ => {}
    }
    let ran = run_in(work.path(), home.path(), &args);
    if ran.code != 0 {
        return Some(format!("exit {}: {}", ran.code, ran.stderr.trim()));
    }
    let written = if instance.command == "run -o" {
        std::fs::read_to_string(work.path().join("out.jsonl")).unwrap_or_default()
    } else {
        std::fs::read_to_string(&file).unwrap()
    };
    let Some(added) = written.strip_prefix(&original) else {
        return Some("the output does not start with the session's bytes".into());
    };
    let mut problems = Vec::new();
    if instance.command == "run -o" && std::fs::read_to_string(&file).unwrap() != original {
        problems.push("`run -o` changed the session".to_owned());
    }
    let printed = format!("{}{}", ran.stdout, ran.stderr);
    if secret.shown_in(added) || secret.shown_in(&printed) {
        problems.push("the secret is shown or stored".to_owned());
    }
    if added.contains(decoy_text.trim()) || printed.contains(decoy_text.trim()) {
        problems.push(format!("the decoy {redacted} (a name no tool was given) was read"));
    }
    let restored: String = added
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|entry| entry["customType"] == "compaction.restored-files")
        .map(|entry| entry["content"].as_str().unwrap_or_default().to_owned())
        .collect();
    if instance.layout != "gone" && !restored.contains(real_text.trim()) {
        let said = ran.stdout.lines().find(|line| line.contains("restored")).unwrap_or_default();
        problems.push(format!("the file was not restored ({})", said.trim()));
    }
    if files(work.path(), &["session.jsonl", "out.jsonl"]) != before {
        problems.push("a file of the folder changed".to_owned());
    }
    (!problems.is_empty()).then(|| problems.join("; "))
}

#[test]
fn a_file_whose_path_the_redaction_changed_is_restored_and_no_other_file_is_read() {
    let mut rng = Rng(2022);
    let mut tally = split_tally();
    let mut index = 0;
    // Families innermost: every command, tool and layout has instances in both parts.
    for command in COMMANDS {
        for tool in TOOLS {
            for layout in LAYOUTS {
                for family in FAMILIES {
                    let instance = Instance { family, layout, tool, command };
                    let miss = attack(&instance, &mut rng)
                        .map(|miss| format!("{family} × {layout} × {tool} × {command}: {miss}"));
                    tally.count(index, miss);
                    index += 1;
                }
            }
        }
    }
    tally.report("a file whose path the redaction changed");
}
