//! The class "a refusal names what it refused": a compaction is refused when the context
//! after it would not be smaller than before, and what makes it so is usually the user's
//! own pins (every pin is carried in the summary's pinned section and in the pins message
//! after it). Each instance pins text of one size, one way, in a session long enough to be
//! compacted, and runs one command:
//!
//! - the pinned text's size (innermost): 2,000 to 95,000 characters in all;
//! - how it is pinned: one `pin --text`, three `pin --text` of a third each, `pin --entry`
//!   of an early user message holding the text, one `pin --text` in a shorter session;
//! - the command: `run FILE --offline`, `run --json`, `run -o OUT`, `summarize --offline`,
//!   `plan`, `plan --json` (each plan compared with what `run --json` did on a copy).
//!
//! Holds when a command that compacts either succeeds (exit 0) or refuses saying so and
//! naming the pin that is the largest (its id, as `pin` printed it, and the word `pin`),
//! with every file byte-identical and no output file made; and when `run` refused, `plan`
//! said beforehand: its text names the largest pin and says the compaction would be
//! refused, its JSON estimates an after no smaller than before.
//!
//! `cargo test -p compaction-cli --test cli hostile_round21::refusals -- --nocapture`

use std::collections::HashMap;

use serde_json::Value;

use super::split_tally;
use crate::hostile_round19::{Rng, run_in, turns, user};
use crate::hostile_round20::{Item, session_text};

/// How many characters are pinned in all.
const SIZES: [usize; 6] = [2_000, 8_000, 14_000, 24_000, 50_000, 95_000];

/// How the text is pinned.
const SETUPS: [&str; 4] = ["one pin", "three pins", "pinned entry", "short session"];

const COMMANDS: [&str; 6] = ["run", "run --json", "run -o", "summarize", "plan", "plan --json"];

const KEEP_RECENT: &str = "1500";

/// Lowercase made-up words (nothing a redaction takes for a secret), `chars` long.
fn pin_text(rng: &mut Rng, chars: usize) -> String {
    let mut text = String::from("Always keep these notes: ");
    while text.len() < chars {
        let len = 3 + (rng.next() % 6) as usize;
        text.push_str(&rng.chars(len, "bcdfghjklmnprstvz"));
        text.push(' ');
    }
    text.truncate(chars);
    text.trim_end().to_owned()
}

/// A session set up with pins; the pins' ids and sizes as `pin --json` gave them, largest
/// first.
struct Prepared {
    text: String,
    pins: Vec<(String, usize)>,
}

fn prepare(setup: &str, size: usize, rng: &mut Rng) -> Result<Prepared, String> {
    let work = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let file = work.path().join("session.jsonl");
    let turn_count = if setup == "short session" { 12 } else { 24 };
    let big = pin_text(rng, size);
    let mut items = vec![Item::Message(user("Set up the deploy of the billing service."))];
    if setup == "pinned entry" {
        items.push(Item::Message(user(&big)));
    }
    items.extend(turns(0, turn_count).into_iter().map(Item::Message));
    std::fs::write(&file, session_text(&items)).unwrap();
    let texts: Vec<String> = match setup {
        "three pins" => (0..3).map(|_| pin_text(rng, size / 3)).collect(),
        "pinned entry" => Vec::new(),
        _ => vec![big],
    };
    let mut runs: Vec<Vec<String>> = texts
        .iter()
        .map(|text| vec!["pin".into(), "session.jsonl".into(), "--text".into(), text.clone()])
        .collect();
    if setup == "pinned entry" {
        runs.push(["pin", "session.jsonl", "--entry", "e0002"].map(String::from).to_vec());
    }
    let mut pins = Vec::new();
    for mut args in runs {
        args.push("--json".into());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let ran = run_in(work.path(), home.path(), &args);
        if ran.code != 0 {
            return Err(format!("pin: exit {}: {}", ran.code, ran.stderr.trim()));
        }
        let printed: Value = serde_json::from_str(&ran.stdout).map_err(|e| format!("pin: {e}"))?;
        let id = printed["entryId"].as_str().unwrap_or_default().to_owned();
        let chars = printed["activePins"]
            .as_array()
            .and_then(|pins| pins.iter().find(|pin| pin["id"] == id.as_str()))
            .and_then(|pin| pin["text"].as_str())
            .map_or(0, |text| text.chars().count());
        pins.push((id, chars));
    }
    pins.sort_by_key(|pin| std::cmp::Reverse(pin.1));
    Ok(Prepared { text: std::fs::read_to_string(&file).unwrap(), pins })
}

/// A prepared session and what `run --json` did on a copy of it.
type Run = (Prepared, Option<String>);

/// What `run --json` does on a copy: `None` when it compacted, the refusal otherwise.
fn reference_refusal(prepared: &Prepared) -> Option<String> {
    let work = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("session.jsonl"), &prepared.text).unwrap();
    let ran = run_in(
        work.path(),
        home.path(),
        &["run", "session.jsonl", "--offline", "--keep-recent", KEEP_RECENT, "--json"],
    );
    (ran.code != 0).then(|| format!("{}{}", ran.stdout, ran.stderr))
}

fn attack(command: &str, prepared: &Prepared, refused: Option<&str>) -> Option<String> {
    let work = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let file = work.path().join("session.jsonl");
    std::fs::write(&file, &prepared.text).unwrap();
    let mut args = match command {
        "summarize" => vec!["summarize", "session.jsonl", "--offline"],
        "plan" | "plan --json" => vec!["plan", "session.jsonl"],
        _ => vec!["run", "session.jsonl", "--offline"],
    };
    args.extend(["--keep-recent", KEEP_RECENT]);
    if command.ends_with("--json") {
        args.push("--json");
    }
    if command == "run -o" {
        args.extend(["-o", "out.jsonl"]);
    }
    let ran = run_in(work.path(), home.path(), &args);
    let after = std::fs::read_to_string(&file).unwrap();
    let (largest, _) = prepared.pins.first()?;
    let mut problems = Vec::new();
    if command.starts_with("plan") {
        if ran.code != 0 {
            return Some(format!("exit {}: {}", ran.code, ran.stderr.trim()));
        }
        if after != prepared.text {
            problems.push("`plan` changed the session".to_owned());
        }
        if refused.is_some() {
            if command == "plan --json" {
                let plan: Value = serde_json::from_str(&ran.stdout).unwrap_or_default();
                let (before, estimated) =
                    (&plan["estimatedTokensBefore"], &plan["estimatedTokensAfter"]);
                if !(before.as_u64().is_some() && estimated.as_u64() >= before.as_u64()) {
                    problems.push(format!(
                        "`run` refused, but the plan estimates {estimated} after, {before} before"
                    ));
                }
            } else {
                let warned = ran.stdout.lines().any(|line| {
                    line.contains(largest.as_str())
                        && (line.contains("refuse") || line.contains("grow"))
                });
                if !warned {
                    problems.push(format!(
                        "`run` refused, but the plan says not that it would, naming pin {largest}"
                    ));
                }
            }
        }
    } else if ran.code == 0 {
        if command == "run" && after == prepared.text {
            problems.push("exit 0 and nothing appended".to_owned());
        }
    } else {
        let message = format!("{}{}", ran.stdout, ran.stderr);
        if !(message.contains(largest.as_str()) && message.contains("pin")) {
            problems.push(format!(
                "refused (exit {}) without naming pin {largest}: {}",
                ran.code,
                message.trim()
            ));
        }
        if after != prepared.text {
            problems.push("the session changed".to_owned());
        }
        if work.path().join("out.jsonl").exists() {
            problems.push("an output file was made".to_owned());
        }
    }
    (!problems.is_empty()).then(|| problems.join("; "))
}

#[test]
fn a_refused_compaction_names_the_pin_and_plan_tells_beforehand() {
    let mut rng = Rng(2121);
    let mut tally = split_tally();
    let mut index = 0;
    // Each session is set up once (and run once on a copy) and given every command.
    let mut prepared: HashMap<(&str, usize), Result<Run, String>> = HashMap::new();
    for setup in SETUPS {
        for size in SIZES {
            let made = prepare(setup, size, &mut rng).map(|made| {
                let refused = reference_refusal(&made);
                (made, refused)
            });
            prepared.insert((setup, size), made);
        }
    }
    let refused = prepared.values().filter(|made| matches!(made, Ok((_, Some(_))))).count();
    println!("sessions `run` refused: {refused} of {}", prepared.len());
    // Sizes innermost: every command and setup has instances in both parts.
    for command in COMMANDS {
        for setup in SETUPS {
            for size in SIZES {
                let miss = match &prepared[&(setup, size)] {
                    Err(problem) => Some(problem.clone()),
                    Ok((made, refused)) => attack(command, made, refused.as_deref()),
                }
                .map(|miss| format!("{size} characters × {setup} × {command}: {miss}"));
                tally.count(index, miss);
                index += 1;
            }
        }
    }
    tally.report("a refusal names what it refused");
}
