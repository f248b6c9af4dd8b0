//! The class "a URL's password": `scheme://user:PASSWORD@host` names a credential whatever
//! the password looks like. Each instance writes one made-up password in one URL, in one
//! way, into a session long enough to be compacted (an early message and the latest request
//! hold it), beside an ordinary URL that holds no password, and runs one command:
//!
//! - the password's shape (innermost): mixed-case letters (`HunterGatherer`), a lowercase
//!   word, words joined by `-`, `.` or `_`, a word and a year, digits, percent-encoded with
//!   `%40` (`@`) and `%3A` (`:`) inside, letters and digits with symbols, random letters and
//!   digits; the scheme, user and host drawn per instance (`https`, `postgres`, `mysql`,
//!   `amqps`, `redis`, `mongodb+srv`, `git+ssh`, `ftp`, …; a name, a port, IPv4, IPv6, an
//!   empty user);
//! - how it is written: in prose, in quotes, in a JSON object, as a `.env` assignment, in a
//!   shell command (a `bash` call's arguments);
//! - the command: `run FILE --offline` (what it appends, stdout, stderr), `run -o OUT
//!   --offline --json`, `plan`, `context`, `recall ID`, `recall ID --json`, `branch --to ID
//!   --summarize --offline`, `import` of a Claude Code transcript holding the same text,
//!   `export --format claude-code -o OUT`.
//!
//! Holds when the command does its work (exit 0), the password is nowhere in what it wrote
//! or printed (any 12 characters in a row of it, any case; all of it when shorter), and,
//! for the commands that print or write a message whole (`context`, `recall`, `import`,
//! `export`), the ordinary URL is there word for word.
//!
//! `cargo test -p compaction-cli --test cli hostile_round21::urls -- --nocapture`

use serde_json::{Value, json};

use super::split_tally;
use crate::hostile_round19::{ALNUM, Rng, Secret, run_in};
use crate::hostile_round19::{assistant, turns, user};
use crate::hostile_round20::{Item, entries, session_text};

/// The password's shapes.
const SHAPES: [&str; 8] = [
    "letters",
    "lowercase-word",
    "words-dash",
    "words-dot",
    "word-year",
    "digits",
    "percent",
    "symbols",
];

/// How the URL is written.
const FORMS: [&str; 5] = ["prose", "quoted", "json", "env", "shell"];

/// The commands each session is given.
pub(crate) const COMMANDS: [&str; 9] = [
    "run",
    "run -o --json",
    "plan",
    "context",
    "recall",
    "recall --json",
    "branch",
    "import",
    "export",
];

pub(crate) const SCHEMES: [&str; 12] = [
    "https",
    "postgres",
    "postgresql",
    "mysql",
    "amqps",
    "redis",
    "rediss",
    "mongodb+srv",
    "git+ssh",
    "ftp",
    "smtp",
    "http",
];

const USERS: [&str; 7] = ["deploy", "app", "svc_billing", "", "first.last", "ci-bot", "admin"];

const HOSTS: [&str; 6] = [
    "db.internal:5432/billing",
    "git.example.com/team/repo.git",
    "[2001:db8::7]:6379/0",
    "10.0.0.7:5672/%2F",
    "cache",
    "mq.example.com:5671",
];

/// Ordinary URLs: no password, each of which must stay as written.
const CONTROLS: [&str; 9] = [
    "https://alice@example.com/docs/setup",
    "ssh://git@git.example.com:2222/team/repo.git",
    "git@github.com:team/repo.git",
    "postgres://app@db.internal:5432/billing",
    "https://mirror.example.com:8443/team/repo.git",
    "http://[::1]:8080/health",
    "postgres://app:${DB_PASSWORD}@db.internal/billing",
    "https://user:<password>@git.example.com/repo.git",
    "redis://cache.internal:6379/0",
];

const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const LETTERS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// A made-up word: a consonant and a vowel, in turn.
pub(crate) fn word(rng: &mut Rng, len: usize) -> String {
    (0..len)
        .map(|i| {
            let set = if i % 2 == 0 { "bcdfghjklmnprstvz" } else { "aeiou" };
            rng.chars(1, set)
        })
        .collect()
}

pub(crate) fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
}

/// A password of `shape`.
fn password(shape: &str, rng: &mut Rng) -> String {
    match shape {
        "letters" => {
            // Mixed case only, like `HunterGatherer`, or random like `iDsrHdLhtLzgqDuoZR`.
            if rng.next().is_multiple_of(2) {
                format!("{}{}", capitalized(&word(rng, 7)), capitalized(&word(rng, 8)))
            } else {
                rng.chars(16, LETTERS)
            }
        }
        "lowercase-word" => format!("{}{}", word(rng, 8), rng.chars(6, LOWER)),
        "words-dash" => {
            format!("{}-{}-{}", capitalized(&word(rng, 5)), word(rng, 6), word(rng, 5))
        }
        "words-dot" => format!("{}.{}_{}", word(rng, 6), word(rng, 5), word(rng, 6)),
        "word-year" => format!("{}{}", capitalized(&word(rng, 10)), 1990 + rng.next() % 40),
        "digits" => rng.chars(12, "0123456789"),
        "percent" => {
            format!("{}%40{}%3A{}", rng.chars(6, ALNUM), rng.chars(5, ALNUM), rng.chars(6, ALNUM))
        }
        _ => format!("{}!{}*{}$", rng.chars(6, ALNUM), rng.chars(5, ALNUM), rng.chars(5, ALNUM)),
    }
}

/// The text of a message holding `url` and `control`, written as `form`.
fn message_text(form: &str, url: &str, control: &str) -> String {
    match form {
        "prose" => format!("Connect with {url} and keep {control} as the mirror."),
        "quoted" => format!("Set the remote to \"{url}\" (the mirror stays '{control}')."),
        "json" => format!(
            "Use this config: {}",
            json!({"database_url": url, "mirror": control, "pool": 5})
        ),
        "env" => format!("Put this in .env:\nDATABASE_URL={url}\nMIRROR_URL={control}\n"),
        _ => format!("Run `git clone '{url}' repo && git remote add mirror {control}` again."),
    }
}

/// The session of an instance and the id of the early entry that holds the URL.
fn pi_session(form: &str, url: &str, control: &str) -> (String, String) {
    let mut items = vec![Item::Message(user("Set up the deploy of the billing service."))];
    if form == "shell" {
        let command = format!("git clone '{url}' repo && git remote add mirror {control}");
        items.push(Item::Message(json!({"role": "assistant", "content": [{"type": "toolCall",
            "id": "c1", "name": "bash", "arguments": {"command": command}}], "timestamp": 1})));
        items.push(Item::Message(json!({"role": "toolResult", "toolCallId": "c1",
            "toolName": "bash", "content": [{"type": "text", "text": "Cloning into 'repo'...\ndone"}],
            "isError": false, "timestamp": 1})));
    } else {
        items.push(Item::Message(user(&message_text(form, url, control))));
        items.push(Item::Message(assistant("Understood, I will use it.")));
    }
    items.extend(turns(0, 24).into_iter().map(Item::Message));
    items.push(Item::Message(user(&message_text(form, url, control))));
    (session_text(&items), "e0002".to_owned())
}

/// A Claude Code transcript holding the same messages (a `Bash` call for the shell form).
fn transcript(form: &str, url: &str, control: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut parent: Option<String> = None;
    let mut push = |fields: Value, lines: &mut Vec<String>| {
        let uuid = format!("u{}", lines.len() + 1);
        let mut line = json!({"uuid": uuid, "parentUuid": parent, "sessionId": "round21",
            "cwd": "/work", "isSidechain": false, "timestamp": "2025-07-15T05:07:22.709Z"});
        line.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
        lines.push(line.to_string());
        parent = Some(uuid);
    };
    let user_line =
        |text: &str| json!({"type": "user", "message": {"role": "user", "content": text}});
    let assistant_line = |id: String, text: &str| {
        json!({"type": "assistant", "message": {"id": id, "role": "assistant",
            "model": "claude-x", "content": [{"type": "text", "text": text}]}})
    };
    push(user_line("Set up the deploy of the billing service."), &mut lines);
    if form == "shell" {
        let command = format!("git clone '{url}' repo && git remote add mirror {control}");
        push(
            json!({"type": "assistant", "message": {"id": "m1", "role": "assistant",
            "model": "claude-x", "content": [{"type": "tool_use", "id": "toolu_1",
            "name": "Bash", "input": {"command": command}}]}}),
            &mut lines,
        );
        push(
            json!({"type": "user", "message": {"role": "user", "content": [{"type":
            "tool_result", "tool_use_id": "toolu_1", "content": "done"}]}}),
            &mut lines,
        );
    } else {
        push(user_line(&message_text(form, url, control)), &mut lines);
        push(assistant_line("m1".into(), "Understood, I will use it."), &mut lines);
    }
    for (turn, message) in turns(0, 6).iter().enumerate() {
        let text = message["content"].as_str().map_or_else(
            || message["content"][0]["text"].as_str().unwrap().to_owned(),
            str::to_owned,
        );
        let fields = if turn.is_multiple_of(2) {
            user_line(&text)
        } else {
            assistant_line(format!("m{}", turn + 2), &text)
        };
        push(fields, &mut lines);
    }
    push(user_line(&message_text(form, url, control)), &mut lines);
    lines.join("\n") + "\n"
}

/// What one command shows or writes of the password, or how it fails; `None` when it holds.
pub(crate) fn attack(
    command: &str,
    form: &str,
    secret: &Secret,
    url: &str,
    control: &str,
) -> Option<String> {
    let work = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let file = work.path().join("session.jsonl");
    let (original, target) = pi_session(form, url, control);
    std::fs::write(&file, &original).unwrap();
    let first_user = entries(&original)[0]["id"].as_str().unwrap().to_owned();
    let args: Vec<&str> = match command {
        "run" => vec!["run", "session.jsonl", "--offline", "--keep-recent", "1500"],
        "run -o --json" => vec![
            "run",
            "session.jsonl",
            "--offline",
            "--keep-recent",
            "1500",
            "-o",
            "out.jsonl",
            "--json",
        ],
        "plan" => vec!["plan", "session.jsonl", "--keep-recent", "1500"],
        "context" => vec!["context", "session.jsonl"],
        "recall" => vec!["recall", "session.jsonl", &target],
        "recall --json" => vec!["recall", "session.jsonl", &target, "--json"],
        "branch" => {
            vec!["branch", "session.jsonl", "--to", &first_user, "--summarize", "--offline"]
        }
        "import" => {
            std::fs::write(work.path().join("transcript.jsonl"), transcript(form, url, control))
                .unwrap();
            vec!["import", "transcript.jsonl", "-o", "imported.jsonl"]
        }
        _ => vec!["export", "session.jsonl", "--format", "claude-code", "-o", "out.jsonl"],
    };
    let ran = run_in(work.path(), home.path(), &args);
    if ran.code != 0 {
        return Some(format!("exit {}: {}", ran.code, ran.stderr.trim()));
    }
    let after = std::fs::read_to_string(&file).unwrap();
    let written = match command {
        // What was appended: the session's own bytes hold the password as given.
        "run" | "branch" | "run -o --json" => {
            let out = if command == "run -o --json" {
                std::fs::read_to_string(work.path().join("out.jsonl")).unwrap_or_default()
            } else {
                after.clone()
            };
            match out.strip_prefix(&original) {
                Some(added) => added.to_owned(),
                None => return Some("the output does not start with the session's bytes".into()),
            }
        }
        "export" => std::fs::read_to_string(work.path().join("out.jsonl")).unwrap_or_default(),
        "import" => std::fs::read_to_string(work.path().join("imported.jsonl")).unwrap_or_default(),
        _ => String::new(),
    };
    if !matches!(command, "run" | "branch") && after != original {
        return Some(format!("`{command}` changed the session"));
    }
    let mut problems = Vec::new();
    if matches!(command, "run" | "branch" | "run -o --json") && written.is_empty() {
        problems.push("nothing was appended".to_owned());
    }
    let mut shown = Vec::new();
    for (what, text) in
        [("the file written", &written), ("stdout", &ran.stdout), ("stderr", &ran.stderr)]
    {
        if secret.shown_in(text) {
            shown.push(what);
        }
    }
    if !shown.is_empty() {
        problems.push(format!("the password is in {}", shown.join(", ")));
    }
    if matches!(command, "context" | "recall" | "recall --json" | "import" | "export") {
        let output = format!("{}{written}", ran.stdout);
        // The JSON forms escape nothing of these URLs but `/` may be written `\/`.
        if !output.contains(control) && !output.replace("\\/", "/").contains(control) {
            problems.push(format!("the ordinary URL {control} is not shown as written"));
        }
    }
    (!problems.is_empty()).then(|| problems.join("; "))
}

#[test]
fn a_urls_password_is_never_stored_or_shown_and_an_ordinary_url_stays() {
    let mut rng = Rng(21);
    let mut tally = split_tally();
    let mut index = 0;
    // Shapes innermost: every command and form has instances in both parts.
    for command in COMMANDS {
        for form in FORMS {
            for shape in SHAPES {
                let pass = password(shape, &mut rng);
                let scheme = SCHEMES[(rng.next() % SCHEMES.len() as u64) as usize];
                let user = USERS[(rng.next() % USERS.len() as u64) as usize];
                let host = HOSTS[(rng.next() % HOSTS.len() as u64) as usize];
                let control = CONTROLS[(rng.next() % CONTROLS.len() as u64) as usize];
                let url = format!("{scheme}://{user}:{pass}@{host}");
                let secret = Secret { family: shape, prefix: String::new(), body: pass };
                let miss = attack(command, form, &secret, &url, control)
                    .map(|miss| format!("{shape} in {url} × {form} × {command}: {miss}"));
                tally.count(index, miss);
                index += 1;
            }
        }
    }
    tally.report("a URL's password");
}
