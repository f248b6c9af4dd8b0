//! A generated corpus of made-up secrets, for measuring redaction.
//!
//! [`corpus`] makes [`SECRETS_PER_FAMILY`] secrets of each family ([`family_names`]: commands of
//! common tools, config directives, connection strings, key material, provider-like tokens,
//! secrets inside JSON, encodings in `families.rs`; more found by context in `by_context.rs`,
//! by shape or through an encoding in `by_shape.rs`; and in `by_principle.rs` tokens with no
//! known prefix or name, names in other casings, syntaxes and human languages, and further
//! encodings; and in `by_tool.rs`, round 4's formats no rule was written for: config languages
//! of other tools, config literals of other languages, passwords on stdin, fresh token
//! prefixes, other URL schemes, two encodings at once; and in `round9/`, round 9's credentials
//! in tools, configs and languages of 2024–2026 no earlier family covered; and in `round10/`,
//! round 10's config languages, code, tool outputs, logs, diffs and text shapes no earlier
//! family covered; and in `round11/` to `round23/`, the same for rounds 11 to 23), and plants
//! each in
//! several shapes: a chat message, a tool
//! result, a config file, a tool call's JSON arguments and an encoded form. [`claude_transcript`]
//! and [`codex_transcript`] put samples into transcripts to import.
//!
//! The corpus is split by family, once, by a rule fixed before any redaction rule was written
//! against it: the families are ordered by the SHA-256 of `secret-family:<name>`, and the first
//! third (rounded up) is the **test** part; the rest is **dev**. Rules are written against
//! dev; test measures whether they generalize. Families added later are split by the same
//! rule (the test part is the first third of all of them).
//!
//! Invariant: the same build gives the same corpus (every value comes from a seeded sequence).

mod by_context;
mod by_principle;
mod by_shape;
mod by_tool;
mod families;
mod report;
mod round10;
mod round11;
mod round12;
mod round13;
mod round14;
mod round15;
mod round16;
mod round17;
mod round18;
mod round19;
mod round20;
mod round21;
mod round22;
mod round23;
mod round9;
mod splits;
mod values;

use base64::Engine as _;
use serde_json::{Value, json};

use families::{B64, B64URL, Carrier, Family, url_encode};

use crate::random::Rng;

pub use report::{ReportPart, report_parts};
pub use splits::{
    before_round9_test_families, before_round10_test_families, before_round11_test_families,
    before_round12_test_families, before_round13_test_families, before_round14_test_families,
    before_round15_test_families, before_round16_test_families, before_round17_test_families,
    before_round18_test_families, before_round19_test_families, before_round20_test_families,
    before_round21_test_families, before_round22_test_families, before_round23_test_families,
    earlier_test_families, family_names, round4_family_names, round9_family_names,
    round10_family_names, round11_family_names, round12_family_names, round13_family_names,
    round14_family_names, round15_family_names, round16_family_names, round17_family_names,
    round18_family_names, round19_family_names, round20_family_names, round21_family_names,
    round22_family_names, round23_family_names, test_families,
};

/// How many secrets each family makes.
pub const SECRETS_PER_FAMILY: usize = 6;

/// Where a sample sits.
#[derive(Debug, Clone, PartialEq)]
pub enum Plant {
    /// A text: a message, a tool result, a file's content, a command.
    Text(String),
    /// A tool call's JSON arguments.
    Arguments(Value),
    /// The base64 `data` of an image block.
    Image(String),
}

/// One planted secret in one shape.
#[derive(Debug, Clone)]
pub struct Sample {
    /// The family's name.
    pub family: &'static str,
    /// Whether the family is in the test part.
    pub test: bool,
    /// The shape: `chat`, `tool-result`, `config-file`, `tool-call-json`, `encoded-…`, `image`.
    pub shape: String,
    /// The secret.
    pub secret: String,
    /// Every form of the secret that must not survive in this shape.
    pub needles: Vec<String>,
    /// What is planted.
    pub plant: Plant,
}

impl Sample {
    /// The planted text (a JSON rendering for arguments, the data for an image).
    pub fn text(&self) -> String {
        match &self.plant {
            Plant::Text(text) | Plant::Image(text) => text.clone(),
            Plant::Arguments(value) => value.to_string(),
        }
    }

    /// Whether any form of the secret survives in `output`.
    pub fn leaks_into(&self, output: &str) -> bool {
        self.needles.iter().any(|needle| leaks(output, needle))
    }
}

/// Every family, in the generator's order: the first ones, then those found by context, then
/// those found by shape or through an encoding.
fn all_families() -> Vec<Family> {
    let mut all = families::families();
    all.extend_from_slice(by_context::FAMILIES);
    all.extend_from_slice(by_shape::FAMILIES);
    all.extend_from_slice(by_principle::FAMILIES);
    all.extend_from_slice(by_tool::FAMILIES);
    all.extend(round9::families());
    all.extend(round10::families());
    all.extend(round11::families());
    all.extend(round12::families());
    all.extend(round13::families());
    all.extend(round14::families());
    all.extend(round15::families());
    all.extend(round16::families());
    all.extend(round17::families());
    all.extend(round18::families());
    all.extend(round19::families());
    all.extend(round20::families());
    all.extend(round21::families());
    all.extend(round22::families());
    all.extend(round23::families());
    all
}

/// The parts of `needle` whose presence in an output means a leak (see [`leaks`]).
fn telling_parts(needle: &str) -> Vec<String> {
    let mut parts = vec![needle.to_owned()];
    if needle.contains(' ') && needle.chars().all(|c| c.is_ascii_lowercase() || c == ' ') {
        let words: Vec<&str> = needle.split(' ').collect();
        parts.extend(words.windows(4).map(|run| run.join(" ")));
        return parts;
    }
    let chars: Vec<char> = needle.chars().collect();
    if chars.len() > 10 {
        for window in chars.windows(10) {
            let run: String = window.iter().collect();
            if run.chars().any(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
                && !run.contains("PRIVATE KEY")
                && !run.contains("-----")
            {
                parts.push(run);
            }
        }
    }
    parts
}

/// For each sample, whether it leaks into `output` (as [`Sample::leaks_into`]), found in one
/// pass over a large output that holds every sample. A part shared by the forms of two
/// different secrets (the hex of `password=` in two hex dumps, `Tulip-orbi` in two made-up
/// passwords) tells neither apart, so it is not counted: in one output holding every
/// sample, it would charge one secret's leak to the other.
pub fn leaked(samples: &[Sample], output: &str) -> Vec<bool> {
    let mut secrets_of: std::collections::HashMap<String, std::collections::HashSet<&str>> =
        std::collections::HashMap::new();
    for sample in samples {
        for needle in &sample.needles {
            for part in telling_parts(needle) {
                secrets_of.entry(part).or_default().insert(sample.secret.as_str());
            }
        }
    }
    // Each telling part once, with every sample it belongs to (the shapes of one secret
    // share their needles, so the same part comes from several samples): the automaton is
    // built over distinct patterns, and a match marks every owner, as one pattern per
    // owner did.
    let mut patterns = Vec::new();
    let mut owners: Vec<Vec<usize>> = Vec::new();
    let mut pattern_of: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (index, sample) in samples.iter().enumerate() {
        for needle in &sample.needles {
            for part in telling_parts(needle) {
                if secrets_of.get(&part).is_some_and(|secrets| secrets.len() > 1) {
                    continue;
                }
                let at = *pattern_of.entry(part).or_insert_with_key(|part| {
                    patterns.push(part.clone());
                    owners.push(Vec::new());
                    patterns.len() - 1
                });
                if owners[at].last() != Some(&index) {
                    owners[at].push(index);
                }
            }
        }
    }
    let mut out = vec![false; samples.len()];
    let Ok(automaton) = aho_corasick::AhoCorasick::new(&patterns) else { return out };
    for found in automaton.find_overlapping_iter(output) {
        for &index in &owners[found.pattern().as_usize()] {
            out[index] = true;
        }
    }
    out
}

/// Every string of a JSON value (object keys too), one per line: what a reader of the
/// document sees, escapes undone. Leaks are looked for in this text.
pub fn strings_of(value: &Value) -> String {
    fn walk(value: &Value, out: &mut String) {
        match value {
            Value::String(text) => {
                out.push_str(text);
                out.push('\n');
            }
            Value::Array(items) => items.iter().for_each(|item| walk(item, out)),
            Value::Object(fields) => {
                for (key, item) in fields {
                    out.push_str(key);
                    out.push('\n');
                    walk(item, out);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
    let mut out = String::new();
    walk(value, &mut out);
    out
}

/// Whether `needle` (or, for a long one, a telling part of it) is in `output`: the whole
/// needle; for a phrase of words, any 4 consecutive words; otherwise any 10-character run
/// holding a digit or a capital (a run of plain letters may be an ordinary word).
pub fn leaks(output: &str, needle: &str) -> bool {
    telling_parts(needle).iter().any(|part| output.contains(part.as_str()))
}

/// The encoded shape of a text: one of base64, base64url, hex, URL encoding, JSON escaping,
/// PHP's `\/` escaping and double JSON escaping, by `which`. Returns the shape's name, the
/// planted text, and the encoded forms of `needles`.
fn encoded(which: usize, text: &str, needles: &[String]) -> (String, String, Vec<String>) {
    let json_string = |text: &str| serde_json::to_string(text).unwrap_or_default();
    let (name, planted, forms): (&str, String, Vec<String>) = match which % 7 {
        0 => {
            let blob = B64.encode(text);
            ("base64", format!("echo {blob} | base64 -d"), vec![blob])
        }
        1 => {
            let blob = B64URL.encode(text);
            ("base64url", format!("state={blob}"), vec![blob])
        }
        2 => {
            let hex: String = text.bytes().map(|b| format!("{b:02x}")).collect();
            ("hex", format!("hexdump: {hex}"), vec![hex])
        }
        3 => (
            "url",
            format!("https://app.example.com/share?text={}", url_encode(text)),
            needles.iter().map(|n| url_encode(n)).collect(),
        ),
        4 => (
            "json",
            format!("{{\"stdin\": {}}}", json_string(text)),
            needles.iter().map(|n| json_string(n).trim_matches('"').to_owned()).collect(),
        ),
        5 => {
            let escaped = json_string(text).replace('/', "\\/");
            (
                "php",
                format!("{{\"payload\":{escaped}}}"),
                needles
                    .iter()
                    .map(|n| json_string(n).trim_matches('"').replace('/', "\\/"))
                    .collect(),
            )
        }
        _ => {
            let twice = json_string(&json_string(text));
            (
                "double-json",
                format!("{{\"raw\": {twice}}}"),
                needles
                    .iter()
                    .map(|n| json_string(&json_string(n)).trim_matches('"').to_owned())
                    .collect(),
            )
        }
    };
    let mut all = needles.to_vec();
    all.extend(forms);
    (format!("encoded-{name}"), planted, all)
}

/// The corpus: every family's secrets, each in every shape.
pub fn corpus() -> Vec<Sample> {
    let test = test_families();
    let mut samples = Vec::new();
    for (family_index, (family, make)) in all_families().into_iter().enumerate() {
        let is_test = test.contains(&family);
        for index in 0..SECRETS_PER_FAMILY {
            let mut rng = Rng(0x5EC2_E75E_ED00_0000 ^ ((family_index as u64) << 16 | index as u64));
            let made = make(&mut rng);
            let mut add = |shape: String, needles: Vec<String>, plant: Plant| {
                samples.push(Sample {
                    family,
                    test: is_test,
                    shape,
                    secret: made.secret.clone(),
                    needles,
                    plant,
                });
            };
            let needles = made.needles.clone();
            match &made.carrier {
                Carrier::Text(line) => {
                    add(
                        "chat".into(),
                        needles.clone(),
                        Plant::Text(format!("Here is what I have:\n{line}\nWhy does it fail?")),
                    );
                    add(
                        "tool-result".into(),
                        needles.clone(),
                        Plant::Text(format!("$ cat settings\n# generated\n{line}\n# end\n")),
                    );
                    add(
                        "config-file".into(),
                        needles.clone(),
                        Plant::Text(format!("# app settings\nname: shop\n{line}\nport: 8080\n")),
                    );
                    let arguments = match index % 3 {
                        0 => json!({"command": line, "timeout": 60}),
                        1 => json!({"server": "ops", "tool": "run", "input": {"text": line}}),
                        _ => json!({"path": "notes/setup.md", "content": line}),
                    };
                    add("tool-call-json".into(), needles.clone(), Plant::Arguments(arguments));
                    let (shape, planted, forms) = encoded(family_index + index, line, &needles);
                    add(shape, forms, Plant::Text(planted));
                }
                Carrier::Json(value) => {
                    add("tool-call-json".into(), needles.clone(), Plant::Arguments(value.clone()));
                    let pretty = serde_json::to_string_pretty(value).unwrap_or_default();
                    add(
                        "chat".into(),
                        needles.clone(),
                        Plant::Text(format!("The input:\n{pretty}")),
                    );
                    add("tool-result".into(), needles.clone(), Plant::Text(value.to_string()));
                    let (shape, planted, forms) =
                        encoded(family_index + index, &value.to_string(), &needles);
                    add(shape, forms, Plant::Text(planted));
                }
                Carrier::Image(data) => {
                    add("image".into(), needles.clone(), Plant::Image(data.clone()));
                    add(
                        "chat".into(),
                        needles.clone(),
                        Plant::Text(format!("![config](data:text/plain;base64,{data})")),
                    );
                }
            }
        }
    }
    samples
}

/// A Claude Code transcript holding every sample: texts as user messages and tool results
/// (alternately), arguments as a tool's input, images as a tool result's image block. Each
/// sample's content starts with `marker(i)` where it is text.
pub fn claude_transcript(samples: &[&Sample]) -> String {
    let session = "5b1c0f3e-cc11-4a8e-9d57-0d3d3f1a2b10";
    let mut lines = Vec::new();
    let mut parent = Value::Null;
    let mut push = |kind: &str, message: Value, lines: &mut Vec<String>| {
        let uuid = format!("u{}", lines.len() + 1);
        lines.push(
            json!({"parentUuid": parent, "isSidechain": false, "userType": "external",
                "cwd": "/home/dev/app", "sessionId": session, "version": "2.0.14",
                "type": kind, "message": message, "uuid": uuid,
                "timestamp": format!("2025-10-01T10:{:02}:{:02}.000Z", lines.len() / 60 % 60, lines.len() % 60)})
            .to_string(),
        );
        parent = Value::String(uuid);
    };
    push("user", json!({"role": "user", "content": "Help me fix the deployment."}), &mut lines);
    for (index, sample) in samples.iter().enumerate() {
        let id = format!("toolu_{index:04}");
        let assistant = |content: Value| {
            json!({"id": format!("msg_{index}"), "type": "message", "role": "assistant",
                "model": "claude-sonnet-4-5", "content": content, "stop_reason": "tool_use",
                "usage": {"input_tokens": 10, "output_tokens": 5}})
        };
        match &sample.plant {
            Plant::Text(text) if index % 2 == 0 => {
                push("user", json!({"role": "user", "content": text}), &mut lines);
                push(
                    "assistant",
                    assistant(json!([{"type": "text", "text": "Looking."}])),
                    &mut lines,
                );
            }
            Plant::Text(text) => {
                push(
                    "assistant",
                    assistant(json!([{"type": "tool_use", "id": id, "name": "Bash",
                        "input": {"command": "cat settings"}}])),
                    &mut lines,
                );
                push(
                    "user",
                    json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id,
                        "content": text}]}),
                    &mut lines,
                );
            }
            Plant::Arguments(arguments) => {
                push(
                    "assistant",
                    assistant(json!([{"type": "tool_use", "id": id, "name": "mcp__ops__call",
                        "input": arguments}])),
                    &mut lines,
                );
                push(
                    "user",
                    json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id,
                        "content": "ok"}]}),
                    &mut lines,
                );
            }
            Plant::Image(data) => {
                push(
                    "assistant",
                    assistant(json!([{"type": "tool_use", "id": id, "name": "Read",
                        "input": {"file_path": "/home/dev/app/shot.png"}}])),
                    &mut lines,
                );
                push(
                    "user",
                    json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id,
                        "content": [{"type": "image", "source": {"type": "base64",
                            "media_type": "image/png", "data": data}}]}]}),
                    &mut lines,
                );
            }
        }
    }
    push(
        "assistant",
        json!({"id": "msg_end", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn",
            "usage": {"input_tokens": 10, "output_tokens": 5}}),
        &mut lines,
    );
    lines.join("\n") + "\n"
}

/// A Codex rollout holding every sample: texts as user messages and function call outputs
/// (alternately), arguments as a function call's JSON-encoded arguments, images as an input
/// image.
pub fn codex_transcript(samples: &[&Sample]) -> String {
    let mut lines = Vec::new();
    let mut push = |kind: &str, payload: Value| {
        lines.push(
            json!({"timestamp": format!("2025-10-01T10:{:02}:{:02}.000Z", lines.len() / 60 % 60, lines.len() % 60),
                "type": kind, "payload": payload})
            .to_string(),
        );
    };
    push(
        "session_meta",
        json!({"id": "0199a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b", "timestamp": "2025-10-01T10:00:00.000Z",
            "cwd": "/work/app", "originator": "codex_cli_rs", "cli_version": "0.46.0",
            "instructions": null, "model_provider": "openai"}),
    );
    push("turn_context", json!({"cwd": "/work/app", "model": "gpt-5-codex"}));
    for (index, sample) in samples.iter().enumerate() {
        let call = format!("call_{index}");
        match &sample.plant {
            Plant::Text(text) if index % 2 == 0 => {
                push(
                    "response_item",
                    json!({"type": "message", "role": "user",
                        "content": [{"type": "input_text", "text": text}]}),
                );
                push(
                    "response_item",
                    json!({"type": "message", "role": "assistant",
                        "content": [{"type": "output_text", "text": "Looking."}]}),
                );
            }
            Plant::Text(text) => {
                push(
                    "response_item",
                    json!({"type": "function_call", "name": "shell", "call_id": call,
                        "arguments": json!({"command": ["bash", "-lc", "cat settings"]}).to_string()}),
                );
                push(
                    "response_item",
                    json!({"type": "function_call_output", "call_id": call,
                        "output": json!({"output": text, "metadata": {"exit_code": 0}}).to_string()}),
                );
            }
            Plant::Arguments(arguments) => {
                push(
                    "response_item",
                    json!({"type": "function_call", "name": "ops__call", "call_id": call,
                        "arguments": arguments.to_string()}),
                );
                push(
                    "response_item",
                    json!({"type": "function_call_output", "call_id": call, "output": "ok"}),
                );
            }
            Plant::Image(data) => {
                push(
                    "response_item",
                    json!({"type": "message", "role": "user", "content": [
                        {"type": "input_text", "text": "see the screenshot"},
                        {"type": "input_image", "image_url": format!("data:image/png;base64,{data}")}]}),
                );
                push(
                    "response_item",
                    json!({"type": "message", "role": "assistant",
                        "content": [{"type": "output_text", "text": "Looking."}]}),
                );
            }
        }
    }
    lines.join("\n") + "\n"
}

#[cfg(test)]
mod tests;
