//! The class "a must-keep fact shown or written as the session has it": the facts a summary
//! must keep are copied from the session (a constraint in the user's words, the latest
//! request, the last failing command and its error line). Each instance plants one secret of
//! a known family in one such fact, in a session long enough to be compacted, and runs one
//! command with the offline summarizer (which quotes the session, redacted):
//!
//! - `run FILE` (text): what it appends to the file, its stdout and stderr;
//! - `run FILE -o OUT --json`: what `OUT` holds beyond the input's bytes, stdout, stderr;
//! - `plan FILE` (text): stdout and stderr, the file unchanged.
//!
//! The oracle knows the secret by construction: an instance misses when any 12 characters
//! in a row of the secret's random part are in what it looks at, or when the command did
//! not do its work (exit 0, a compaction appended, the input's bytes kept).
//!
//! `cargo test -p compaction-cli --test cli hostile_round19::facts -- --nocapture`

use serde_json::{Value, json};

use super::{
    FAMILIES, Rng, Secret, assistant, run_in, secret, session_text, split_tally, turns, user,
};

/// Where the secret stands in the session.
const PLACES: [&str; 5] =
    ["constraint-always", "constraint-never", "latest-request", "error-line", "failing-command"];

/// The commands each session is given.
const COMMANDS: [&str; 3] = ["run", "run -o --json", "plan"];

/// Tokens kept verbatim: the later turns; the planted fact is in the summarized part.
const KEEP_RECENT: &str = "1500";

/// A bash call and its failed result.
fn failed_call(id: &str, command: &str, output: &str) -> [Value; 2] {
    [
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": "bash",
            "arguments": {"command": command}}], "timestamp": 1}),
        json!({"role": "toolResult", "toolCallId": id, "toolName": "bash",
            "content": [{"type": "text", "text": output}], "isError": true, "timestamp": 1}),
    ]
}

/// The session with `secret` planted at `place`.
fn session(place: &str, secret: &Secret) -> String {
    let value = secret.value();
    let mut messages = Vec::new();
    match place {
        "constraint-always" => messages
            .push(user(&format!("Always deploy with token {value} and never push to main."))),
        "constraint-never" => messages
            .push(user(&format!("Never paste the credential {value} into a commit message."))),
        _ => messages.push(user("Set up the deploy of the billing service.")),
    }
    messages.push(assistant("Understood."));
    messages.extend(turns(0, 16));
    match place {
        "latest-request" => {
            messages.push(user(&format!("Now push the release with the token {value} please.")))
        }
        "error-line" => messages.extend(failed_call(
            "c1",
            "npm run deploy",
            &format!(
                "Error: authentication failed for token {value}\n\nCommand exited with code 1"
            ),
        )),
        "failing-command" => messages.extend(failed_call(
            "c1",
            &format!("curl -fsS -H 'Authorization: Bearer {value}' https://api.example.com/deploy"),
            "curl: (22) The requested URL returned error: 401\n\nCommand exited with code 22",
        )),
        _ => messages.push(user("Carry on.")),
    }
    messages.push(assistant("On it."));
    messages.extend(turns(16, 24));
    session_text(&messages, &[])
}

/// What one command shows or writes of `secret`; `None` when it holds.
fn attack(command: &str, place: &str, secret: &Secret) -> Option<String> {
    let work = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let original = session(place, secret);
    let file = work.path().join("session.jsonl");
    std::fs::write(&file, &original).unwrap();
    let (args, written): (Vec<&str>, Option<&str>) = match command {
        "run" => (vec!["run", "session.jsonl", "--offline", "--keep-recent", KEEP_RECENT], None),
        "run -o --json" => (
            vec![
                "run",
                "session.jsonl",
                "-o",
                "out.jsonl",
                "--offline",
                "--keep-recent",
                KEEP_RECENT,
                "--json",
            ],
            Some("out.jsonl"),
        ),
        _ => (vec!["plan", "session.jsonl", "--keep-recent", KEEP_RECENT], None),
    };
    let ran = run_in(work.path(), home.path(), &args);
    if ran.code != 0 {
        return Some(format!("exit {}: {}", ran.code, ran.stderr.trim()));
    }
    let after = std::fs::read_to_string(&file).unwrap();
    let added = match (command, written) {
        ("plan", _) => {
            if after != original {
                return Some("plan changed the file".to_owned());
            }
            String::new()
        }
        (_, output) => {
            let output = output
                .map_or(after, |name| std::fs::read_to_string(work.path().join(name)).unwrap());
            let Some(added) = output.strip_prefix(&original) else {
                return Some("the output does not start with the session's bytes".to_owned());
            };
            if !added.contains("\"type\":\"compaction\"") {
                return Some("no compaction was appended".to_owned());
            }
            added.to_owned()
        }
    };
    let mut shown = Vec::new();
    for (what, text) in [("the file", &added), ("stdout", &ran.stdout), ("stderr", &ran.stderr)] {
        if secret.shown_in(text) {
            shown.push(what);
        }
    }
    (!shown.is_empty()).then(|| format!("the secret is in {}", shown.join(", ")))
}

#[test]
fn a_must_keep_fact_is_never_shown_or_written_with_its_secret() {
    let mut rng = Rng(19);
    let mut tally = split_tally();
    let mut index = 0;
    // Families innermost: every command and place has instances in both parts.
    for command in COMMANDS {
        for place in PLACES {
            for family in FAMILIES {
                let secret = secret(family, &mut rng);
                let miss = attack(command, place, &secret)
                    .map(|miss| format!("{} in the {place} × {command}: {miss}", secret.family));
                tally.count(index, miss);
                index += 1;
            }
        }
    }
    tally.report("must-keep facts");
}
