//! Deterministic generator of realistic pi v3 sessions, for fixtures and benchmarks.
//!
//! A [`SessionGenerator`] simulates a coding session the way pi 0.73.1 writes it: a header,
//! then turns of user prompts, assistant replies with thinking and `read`/`edit`/`write`/
//! `bash` tool calls, sizeable tool results, user shell commands, model and thinking-level
//! changes, labels, extension entries, branches with branch summaries and compactions.
//! Objects keep pi's key order, so generated lines look like lines pi wrote.
//!
//! Invariants: the output depends only on [`GenerateOptions`]; there are exactly
//! `entries` entry lines after the header; ids are unique 8-digit lowercase hex; entry
//! timestamps strictly increase; every `parentId` names an earlier entry; every tool result
//! directly follows the assistant message holding its call (or a sibling result of that
//! call batch); a compaction's `firstKeptEntryId` names a user message on its own path,
//! after the previous compaction on that path.

use std::collections::{BTreeSet, HashSet, VecDeque};

use base64::Engine as _;
use serde_json::{Map, Value, json};

/// What to generate.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerateOptions {
    /// Seed of the pseudo-random sequence; the same options give the same bytes.
    pub seed: u64,
    /// Number of entry lines after the header.
    pub entries: usize,
    /// Whether the session branches (with and without branch summaries).
    pub branches: bool,
    /// Whether compactions are appended when the context grows past
    /// `compaction_threshold_tokens`.
    pub compactions: bool,
    /// Target mean size of an entry line in bytes; tool outputs are scaled to reach it.
    pub average_entry_bytes: usize,
    /// Estimated context tokens above which a compaction is appended.
    pub compaction_threshold_tokens: u64,
    /// Multiplies the chance of every event between turns (branches, labels, model and
    /// thinking-level changes, extension entries, user shell commands); 1.0 is the default
    /// mix, higher values pack more variety into small fixtures.
    pub event_scale: f64,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions {
            seed: 1,
            entries: 1000,
            branches: true,
            compactions: true,
            average_entry_bytes: DEFAULT_AVERAGE_ENTRY_BYTES,
            compaction_threshold_tokens: 120_000,
            event_scale: 1.0,
        }
    }
}

/// Default mean entry size: a 100 000-entry session is about 290 MB.
pub const DEFAULT_AVERAGE_ENTRY_BYTES: usize = 2900;

/// Generates a whole session as JSONL text (header and entries, each line ending in `\n`).
pub fn generate_session(options: &GenerateOptions) -> String {
    let mut text = String::new();
    for line in SessionGenerator::new(options.clone()) {
        text.push_str(&line);
        text.push('\n');
    }
    text
}

/// Small, fast, well-distributed PRNG (SplitMix64). Not for cryptography.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() >> 11) % (n.max(1) as u64)) as usize
    }

    /// Uniform in `low..=high`.
    fn range(&mut self, low: usize, high: usize) -> usize {
        low + self.below(high - low + 1)
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn chance(&mut self, probability: f64) -> bool {
        self.unit() < probability
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// A size around `mean`: exponentially distributed, clamped to `[mean/20, mean*6]`.
    fn size_around(&mut self, mean: usize) -> usize {
        let factor = -(1.0 - self.unit()).ln();
        ((mean as f64) * factor.clamp(0.05, 6.0)) as usize
    }

    fn hex(&mut self, digits: usize) -> String {
        let mut out = String::with_capacity(digits);
        for _ in 0..digits {
            out.push(char::from(b"0123456789abcdef"[self.below(16)]));
        }
        out
    }

    fn alphanumeric(&mut self, length: usize) -> String {
        const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        (0..length).map(|_| char::from(CHARS[self.below(CHARS.len())])).collect()
    }
}

/// A model the simulated user talks to, with its prices per million tokens.
struct Model {
    api: &'static str,
    provider: &'static str,
    id: &'static str,
    prices: [f64; 4],
}

const MODELS: &[Model] = &[
    Model {
        api: "anthropic-messages",
        provider: "anthropic",
        id: "claude-sonnet-4-5",
        prices: [3.0, 15.0, 0.3, 3.75],
    },
    Model {
        api: "anthropic-messages",
        provider: "anthropic",
        id: "claude-opus-4-1",
        prices: [15.0, 75.0, 1.5, 18.75],
    },
    Model {
        api: "openai-responses",
        provider: "openai",
        id: "gpt-5",
        prices: [1.25, 10.0, 0.125, 0.0],
    },
    Model {
        api: "google-generative-ai",
        provider: "google",
        id: "gemini-2.5-pro",
        prices: [1.25, 10.0, 0.31, 0.0],
    },
];

const THINKING_LEVELS: &[&str] = &["off", "minimal", "low", "medium", "high"];

const MODULES: &[&str] = &[
    "session", "parser", "config", "tokens", "store", "cache", "render", "client", "lexer",
    "index", "retry", "plan", "budget", "schema", "writer",
];

const WORDS: &[&str] = &[
    "entry", "value", "buffer", "index", "state", "path", "node", "line", "cursor", "limit",
    "total", "count", "offset", "window", "summary", "request", "reply", "token", "record",
    "header", "parent", "child", "branch", "model", "budget", "report", "error", "result",
];

const TYPES: &[&str] = &[
    "Session", "Entry", "Config", "Parser", "Store", "Budget", "Request", "Reply", "Index",
    "Cursor", "Window", "Report",
];

const VERBS: &[&str] = &[
    "load", "parse", "split", "merge", "check", "build", "flush", "render", "resolve", "count",
    "trim", "apply", "collect", "estimate",
];

const PROMPTS: &[&str] = &[
    "Can you look at {file} and fix the failing test?",
    "The {module} module is getting slow on large inputs. Find out why and speed it up.",
    "Add a unit test for the edge case where the {word} is empty.",
    "Refactor {file} so the {word} handling lives in one function.",
    "Run the test suite and tell me what breaks.",
    "Why does `{verb}_{word}` return an error when the input has a trailing newline?",
    "Rename `{word}` to `{word}_count` everywhere in {file} and keep the tests green.",
    "Please review the last change to {file}; I think the {word} limit is off by one.",
    "Add documentation comments to the public functions in {file}.",
    "Make the {module} errors say which line they came from.",
];

const PROMPTS_CJK: &[&str] = &[
    "请帮我看一下 {file} 里的测试为什么失败，并修复它。",
    "{module} 模块在大文件上太慢了，能优化一下吗？",
    "把 {file} 中关于 {word} 的逻辑整理到一个函数里。",
    "このテストが失敗する理由を調べて、{file} を直してください。",
    "{module} のエラーメッセージに行番号を含めてください。",
    "코드 리뷰 부탁합니다: {file} 의 {word} 처리가 맞나요?",
];

const REPLIES: &[&str] = &[
    "I'll start by reading {file} to see how {word} is handled.",
    "Let me run the tests first to see the current state.",
    "The failure comes from `{verb}_{word}`: it assumes the {word} is never empty. I'll guard that case.",
    "Now I'll update {file} with the fix.",
    "Let me check the callers of `{verb}_{word}` before changing its signature.",
    "The tests pass now. Let me also run clippy to be sure nothing else regressed.",
];

const FINAL_REPLIES: &[&str] = &[
    "Done. `{verb}_{word}` in {file} now handles an empty {word}, and I added a regression test. All tests pass.",
    "The slowdown came from re-reading the {word} on every call; it is now cached in the {module} struct. The suite passes.",
    "I renamed the field and updated every use in {file}. `cargo test` is green and clippy has no warnings.",
    "Summary of the change:\n\n- {file}: the {word} limit is now inclusive\n- added `test_{word}_at_limit`\n\nAll tests pass.",
    "The error now carries the line number: `{module}::Error::{Type}` has a `line` field, shown in the message.",
];

const THOUGHTS: &[&str] = &[
    "The user wants the {word} handling fixed. I should read {file} first, then find where `{verb}_{word}` is called.",
    "The test output shows a panic in `{verb}_{word}`. Probably an index out of bounds when the {word} is empty.",
    "If I change the signature, the callers in the {module} module break too. Better keep it and add a helper.",
    "Clippy complained about a needless clone; I can borrow the {word} instead.",
    "The failing assertion compares the {word} count with the expected total; the off-by-one is in the loop bound.",
];

const CUSTOM_TYPES: &[&str] = &["todo-state", "plan-mode", "git-checkpoint", "permissions"];

const LABELS: &[&str] = &[
    "checkpoint",
    "before refactor",
    "tests green",
    "good state",
    "try again from here",
    "bug reproduced",
];

/// Fills a template's placeholders with random domain words.
fn fill(rng: &mut Rng, template: &str, file: &str) -> String {
    let mut out = template.replace("{file}", file);
    let lists: [(&str, &[&str]); 4] =
        [("{module}", MODULES), ("{word}", WORDS), ("{verb}", VERBS), ("{Type}", TYPES)];
    for (key, words) in lists {
        while let Some(at) = out.find(key) {
            let word = rng.pick(words);
            out.replace_range(at..at + key.len(), word);
        }
    }
    out
}

/// Rust-like source text of about `bytes` bytes.
fn code(rng: &mut Rng, bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 80);
    while out.len() < bytes {
        let word = *rng.pick(WORDS);
        let verb = *rng.pick(VERBS);
        let ty = *rng.pick(TYPES);
        let line = match rng.below(9) {
            0 => format!("pub fn {verb}_{word}(input: &{ty}) -> Result<{ty}, Error> {{\n"),
            1 => format!("    let {word} = input.{verb}_{word}()?;\n"),
            2 => format!(
                "    if {word}.is_empty() {{\n        return Err(Error::Empty{ty});\n    }}\n"
            ),
            3 => format!(
                "    for {word} in &self.{word}s {{\n        total += {word}.len();\n    }}\n"
            ),
            4 => format!("    Ok({ty}::new({word}))\n}}\n\n"),
            5 => format!("/// {} the {word} of a {ty}.\n", capitalize(verb)),
            6 => format!("    self.{word} = self.{word}.saturating_add({});\n", rng.below(64)),
            7 => format!("#[derive(Debug, Clone)]\npub struct {ty} {{\n    {word}: usize,\n}}\n\n"),
            _ => format!("    debug_assert!(self.{word} <= self.limit, \"{word} over limit\");\n"),
        };
        out.push_str(&line);
    }
    out
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `cargo test` output of about `bytes` bytes; failing when `failed` > 0.
fn test_output(rng: &mut Rng, bytes: usize, failed: usize) -> String {
    let mut out = String::from(
        "   Compiling compaction-core v0.1.0 (/home/dev/project/crates/compaction-core)\n    \
         Finished `test` profile [unoptimized + debuginfo] target(s) in 4.21s\n     \
         Running unittests src/lib.rs (target/debug/deps/compaction_core-3f9a1c2b7d4e5f60)\n\n",
    );
    let mut names = Vec::new();
    while out.len() < bytes.saturating_sub(300) || names.len() < 3 {
        let name = format!("{}::tests::{}_{}", rng.pick(MODULES), rng.pick(VERBS), rng.pick(WORDS));
        out.push_str(&format!("test {name} ... ok\n"));
        names.push(name);
    }
    let failures: Vec<&String> = names.iter().take(failed).collect();
    for name in &failures {
        out.push_str(&format!("test {name} ... FAILED\n"));
    }
    if failed > 0 {
        out.push_str("\nfailures:\n\n");
        for name in &failures {
            out.push_str(&format!(
                "---- {name} stdout ----\nthread '{name}' panicked at src/{}.rs:{}:{}:\nassertion `left == right` failed\n  left: {}\n right: {}\n\n",
                rng.pick(MODULES),
                rng.range(10, 900),
                rng.range(5, 40),
                rng.below(50),
                rng.below(50) + 50,
            ));
        }
        out.push_str(&format!(
            "\ntest result: FAILED. {} passed; {failed} failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.{:02}s\n",
            names.len(),
            rng.below(99)
        ));
    } else {
        out.push_str(&format!(
            "\ntest result: ok. {} passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.{:02}s\n",
            names.len(),
            rng.below(99)
        ));
    }
    out
}

/// `cargo build` errors of about `bytes` bytes.
fn compiler_errors(rng: &mut Rng, bytes: usize, file: &str) -> String {
    let mut out = String::new();
    let mut count = 0;
    while out.len() < bytes || count == 0 {
        let line = rng.range(10, 700);
        let word = *rng.pick(WORDS);
        let ty = *rng.pick(TYPES);
        out.push_str(&format!(
            "error[E0308]: mismatched types\n  --> {file}:{line}:{col}\n   |\n{line:>3} |     let {word}: usize = self.{word}.clone();\n   |                  -----   ^^^^^^^^^^^^^^^^^^ expected `usize`, found `{ty}`\n   |                  |\n   |                  expected due to this\n\n",
            col = rng.range(5, 40),
        ));
        count += 1;
    }
    out.push_str(&format!(
        "error: could not compile `compaction-core` (lib) due to {count} previous error{}\n",
        if count == 1 { "" } else { "s" }
    ));
    out
}

/// Any other shell output of about `bytes` bytes.
fn listing(rng: &mut Rng, bytes: usize) -> String {
    let mut out = String::new();
    while out.len() < bytes || out.is_empty() {
        out.push_str(&format!(
            "src/{}/{}_{}.rs:{}:    let {} = {}_{}(&{});\n",
            rng.pick(MODULES),
            rng.pick(VERBS),
            rng.pick(WORDS),
            rng.range(1, 900),
            rng.pick(WORDS),
            rng.pick(VERBS),
            rng.pick(WORDS),
            rng.pick(WORDS),
        ));
    }
    out
}

/// A valid RGB PNG of the given size, with a simple gradient, uncompressed (stored) IDAT.
fn png(rng: &mut Rng, width: u32, height: u32) -> Vec<u8> {
    let mut raw = Vec::with_capacity(((width * 3 + 1) * height) as usize);
    let tint = [rng.below(256) as u8, rng.below(256) as u8, rng.below(256) as u8];
    for y in 0..height {
        raw.push(0); // filter: none
        for x in 0..width {
            raw.push(tint[0].wrapping_add((x * 4) as u8));
            raw.push(tint[1].wrapping_add((y * 4) as u8));
            raw.push(tint[2]);
        }
    }
    // zlib stream made of stored deflate blocks.
    let mut zlib = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = raw.chunks(65_535).collect();
    for (index, block) in blocks.iter().enumerate() {
        zlib.push(u8::from(index + 1 == blocks.len()));
        let length = block.len() as u16;
        zlib.extend_from_slice(&length.to_le_bytes());
        zlib.extend_from_slice(&(!length).to_le_bytes());
        zlib.extend_from_slice(block);
    }
    zlib.extend_from_slice(&adler32(&raw).to_be_bytes());
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    let mut out = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
    for (kind, data) in [(b"IHDR", &ihdr), (b"IDAT", &zlib), (b"IEND", &Vec::new())] {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let start = out.len();
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        let crc = crc32(&out[start..]);
        out.extend_from_slice(&crc.to_be_bytes());
    }
    out
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in bytes {
        a = (a + u32::from(byte)) % 65_521;
        b = (b + a) % 65_521;
    }
    (b << 16) | a
}

/// Formats milliseconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn iso_timestamp(epoch_ms: u64) -> String {
    let millis = epoch_ms % 1000;
    let seconds = epoch_ms / 1000;
    let (days, day_seconds) = (seconds / 86_400, seconds % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 { month_index + 3 } else { month_index - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        day_seconds / 3600,
        day_seconds / 60 % 60,
        day_seconds % 60
    )
}

/// Approximate tokens of a text (pi's chars / 4, rounded up).
fn tokens_of(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4)
}

/// What a node on the current path is, for branching and compaction decisions.
#[derive(Debug, Clone, Copy, PartialEq)]
enum NodeKind {
    /// A user message: a valid first kept entry and a turn start.
    User,
    /// The final assistant reply of a turn: a place to branch from.
    TurnEnd,
    /// A compaction with the path position of its first kept entry.
    Compaction {
        first_kept: usize,
        summary_tokens: u64,
    },
    Other,
}

/// One entry on the current path.
#[derive(Debug, Clone)]
struct Node {
    id: String,
    kind: NodeKind,
    /// Estimated context tokens of this and all earlier path entries (compactions excluded).
    cumulative_tokens: u64,
    /// A compaction's `details` (its file lists), carried into the next compaction.
    details: Option<Value>,
}

/// A file the assistant read (`modified == false`) or changed, at a path position.
#[derive(Debug, Clone)]
struct FileOp {
    position: usize,
    file: String,
    modified: bool,
}

/// Streams the lines of a generated session (without line endings): the header, then
/// exactly `entries` entries.
#[derive(Debug)]
pub struct SessionGenerator {
    options: GenerateOptions,
    rng: Rng,
    header_done: bool,
    emitted: usize,
    queue: VecDeque<String>,
    used_ids: HashSet<u32>,
    path: Vec<Node>,
    file_ops: Vec<FileOp>,
    clock_ms: u64,
    model: usize,
    thinking: usize,
    turns: usize,
    tool_output_mean: usize,
    cwd: String,
    files: Vec<String>,
    named: bool,
}

/// Fixed bytes per entry of the default mix (envelope, prompts, replies, thinking), and the
/// share of one tool-output mean each entry carries on average. Calibrated by measuring
/// generated sessions (see the `average_entry_size_follows_the_option` test).
const FIXED_BYTES_PER_ENTRY: f64 = 838.0;
const TOOL_OUTPUT_SHARE: f64 = 0.301;

impl SessionGenerator {
    /// A generator drawing from `options` (deterministic for a seed).
    pub fn new(options: GenerateOptions) -> SessionGenerator {
        let mut rng = Rng(options.seed ^ 0x5EED_0F5E_5510_0000);
        let tool_output_mean = (((options.average_entry_bytes as f64) - FIXED_BYTES_PER_ENTRY)
            / TOOL_OUTPUT_SHARE)
            .max(120.0) as usize;
        let project = rng.pick(&["atlas", "ledger", "quill", "harbor", "lumen"]).to_owned();
        let files: Vec<String> = (0..rng.range(8, 16))
            .map(|_| match rng.below(6) {
                0 => format!("src/{}/mod.rs", rng.pick(MODULES)),
                1 => format!("tests/{}.rs", rng.pick(MODULES)),
                2 => "Cargo.toml".to_owned(),
                _ => format!("src/{}.rs", rng.pick(MODULES)),
            })
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        // 2025-01-01 plus up to a year, so different seeds start on different days.
        let clock_ms = 1_735_689_600_000 + (rng.next_u64() % 31_536_000) * 1000;
        SessionGenerator {
            model: rng.below(MODELS.len()),
            thinking: rng.range(1, THINKING_LEVELS.len() - 1),
            options,
            rng,
            header_done: false,
            emitted: 0,
            queue: VecDeque::new(),
            used_ids: HashSet::new(),
            path: Vec::new(),
            file_ops: Vec::new(),
            clock_ms,
            turns: 0,
            tool_output_mean,
            cwd: format!("/home/dev/{project}"),
            files,
            named: false,
        }
    }

    fn header(&mut self) -> String {
        let r = &mut self.rng;
        let id = format!(
            "{}-{}-4{}-{}{}-{}",
            r.hex(8),
            r.hex(4),
            r.hex(3),
            r.pick(&["8", "9", "a", "b"]),
            r.hex(3),
            r.hex(12)
        );
        let value = json!({
            "type": "session",
            "version": 3,
            "id": id,
            "timestamp": iso_timestamp(self.clock_ms),
            "cwd": self.cwd,
        });
        value.to_string()
    }

    fn new_id(&mut self) -> String {
        loop {
            let candidate = self.rng.next_u64() as u32;
            if self.used_ids.insert(candidate) {
                return format!("{candidate:08x}");
            }
        }
    }

    fn tick(&mut self, low_ms: usize, high_ms: usize) -> u64 {
        self.clock_ms += self.rng.range(low_ms.max(1), high_ms.max(1)) as u64;
        self.clock_ms
    }

    fn leaf_id(&self) -> Value {
        self.path.last().map_or(Value::Null, |node| Value::String(node.id.clone()))
    }

    /// Appends an entry as a child of the current leaf. `head` fields come before the
    /// envelope (pi writes `custom` and `custom_message` that way), `body` after it.
    fn push(
        &mut self,
        entry_type: &str,
        head: Map<String, Value>,
        body: Map<String, Value>,
        kind: NodeKind,
        tokens: u64,
    ) -> String {
        let id = self.new_id();
        let timestamp = iso_timestamp(self.tick(50, 900));
        let mut map = Map::new();
        map.insert("type".into(), entry_type.into());
        map.extend(head);
        map.insert("id".into(), Value::String(id.clone()));
        map.insert("parentId".into(), self.leaf_id());
        map.insert("timestamp".into(), Value::String(timestamp));
        map.extend(body);
        let cumulative_tokens = self.path.last().map_or(0, |n| n.cumulative_tokens) + tokens;
        self.path.push(Node { id: id.clone(), kind, cumulative_tokens, details: None });
        self.queue.push_back(Value::Object(map).to_string());
        id
    }

    fn push_message(&mut self, message: Value, kind: NodeKind, tokens: u64) -> String {
        let mut body = Map::new();
        body.insert("message".into(), message);
        self.push("message", Map::new(), body, kind, tokens)
    }

    fn cumulative_before(&self, position: usize) -> u64 {
        position.checked_sub(1).map_or(0, |p| self.path[p].cumulative_tokens)
    }

    fn last_compaction(&self) -> Option<usize> {
        self.path.iter().rposition(|node| matches!(node.kind, NodeKind::Compaction { .. }))
    }

    /// Estimated tokens of the context rebuilt at the current leaf.
    fn context_tokens(&self) -> u64 {
        let end = self.path.last().map_or(0, |n| n.cumulative_tokens);
        match self.last_compaction() {
            Some(at) => match self.path[at].kind {
                NodeKind::Compaction { first_kept, summary_tokens } => {
                    summary_tokens + self.cumulative_before(at) - self.cumulative_before(first_kept)
                        + end
                        - self.path[at].cumulative_tokens
                }
                NodeKind::User | NodeKind::TurnEnd | NodeKind::Other => end,
            },
            None => end,
        }
    }

    fn timestamp_ms(&mut self) -> Value {
        Value::from(self.tick(5, 60) - self.rng.range(1, 4) as u64)
    }

    fn random_file(&mut self) -> String {
        self.rng.pick(&self.files).clone()
    }

    /// Produces the entries of one turn (and any events before it) into the queue.
    fn turn(&mut self) {
        if self.turns == 0 {
            let model = &MODELS[self.model];
            let mut body = Map::new();
            body.insert("provider".into(), model.provider.into());
            body.insert("modelId".into(), model.id.into());
            self.push("model_change", Map::new(), body, NodeKind::Other, 0);
            let mut body = Map::new();
            body.insert("thinkingLevel".into(), THINKING_LEVELS[self.thinking].into());
            self.push("thinking_level_change", Map::new(), body, NodeKind::Other, 0);
        }
        self.turns += 1;
        self.side_events();
        let file = self.random_file();
        self.user_message(&file);
        let steps = self.rng.range(1, 5);
        for step in 0..steps {
            if self.rng.chance(0.015) {
                self.failed_reply();
                return;
            }
            self.tool_step(&file, step + 1 == steps);
        }
        self.final_reply(&file);
    }

    /// Whether an event of base probability `probability` happens now.
    fn event(&mut self, probability: f64) -> bool {
        self.rng.chance(probability * self.options.event_scale)
    }

    fn side_events(&mut self) {
        if !self.named && self.turns > 2 {
            self.named = true;
            let name = format!("Fix {} handling", self.rng.pick(WORDS));
            let mut body = Map::new();
            body.insert("name".into(), name.into());
            self.push("session_info", Map::new(), body, NodeKind::Other, 0);
        }
        if self.options.compactions
            && self.context_tokens() > self.options.compaction_threshold_tokens
        {
            self.compaction();
        }
        if self.options.branches && self.turns > 3 && self.event(0.04) {
            self.branch();
        }
        if self.event(0.03) {
            self.model = (self.model + 1 + self.rng.below(MODELS.len() - 1)) % MODELS.len();
            let model = &MODELS[self.model];
            let mut body = Map::new();
            body.insert("provider".into(), model.provider.into());
            body.insert("modelId".into(), model.id.into());
            self.push("model_change", Map::new(), body, NodeKind::Other, 0);
        }
        if self.event(0.03) {
            self.thinking = self.rng.below(THINKING_LEVELS.len());
            let mut body = Map::new();
            body.insert("thinkingLevel".into(), THINKING_LEVELS[self.thinking].into());
            self.push("thinking_level_change", Map::new(), body, NodeKind::Other, 0);
        }
        if self.event(0.04) {
            self.label();
        }
        if self.event(0.03) {
            let custom_type = *self.rng.pick(CUSTOM_TYPES);
            let items: Vec<Value> = (0..self.rng.range(1, 4))
                .map(|i| json!({"id": i + 1, "text": fill(&mut self.rng, "{verb} the {word}", ""), "done": i == 0}))
                .collect();
            let mut head = Map::new();
            head.insert("customType".into(), custom_type.into());
            head.insert("data".into(), json!({"items": items, "revision": self.turns}));
            self.push("custom", head, Map::new(), NodeKind::Other, 0);
        }
        if self.event(0.03) {
            let text = fill(
                &mut self.rng,
                "Reminder from the {module} extension: keep `{verb}_{word}` covered by tests.",
                "",
            );
            let tokens = tokens_of(&text);
            let mut head = Map::new();
            head.insert("customType".into(), "reminder".into());
            head.insert(
                "content".into(),
                if self.rng.chance(0.5) {
                    Value::String(text)
                } else {
                    json!([{"type": "text", "text": text}])
                },
            );
            head.insert("display".into(), self.rng.chance(0.7).into());
            head.insert("details".into(), json!({"source": "extension", "turn": self.turns}));
            self.push("custom_message", head, Map::new(), NodeKind::Other, tokens);
        }
        if self.event(0.04) {
            self.user_bash();
        }
    }

    fn label(&mut self) {
        if self.path.is_empty() {
            return;
        }
        let low = self.path.len().saturating_sub(40);
        let target = self.path[self.rng.range(low, self.path.len() - 1)].id.clone();
        let mut body = Map::new();
        body.insert("targetId".into(), target.into());
        // One label in eight is a removal: pi leaves `label` out.
        if !self.rng.chance(0.125) {
            body.insert("label".into(), (*self.rng.pick(LABELS)).into());
        }
        self.push("label", Map::new(), body, NodeKind::Other, 0);
    }

    fn user_bash(&mut self) {
        let (command, output, exit_code) = match self.rng.below(4) {
            0 => {
                let failed = usize::from(self.rng.chance(0.4));
                let size = self.rng.size_around(self.tool_output_mean / 2);
                (
                    "cargo test".to_owned(),
                    test_output(&mut self.rng, size, failed),
                    i64::from(failed > 0) * 101,
                )
            }
            1 => (
                "git status --short".to_owned(),
                format!(" M {}\n M {}\n?? notes.md\n", self.random_file(), self.random_file()),
                0,
            ),
            2 => {
                let size = self.rng.size_around(self.tool_output_mean / 3);
                (format!("rg -n {} src", self.rng.pick(WORDS)), listing(&mut self.rng, size), 0)
            }
            _ => ("ls".to_owned(), "Cargo.lock\nCargo.toml\nREADME.md\nsrc\ntests\n".into(), 0),
        };
        let truncated = output.len() > 30_000;
        let tokens = tokens_of(&command) + tokens_of(&output);
        let mut message = Map::new();
        message.insert("role".into(), "bashExecution".into());
        message.insert("command".into(), command.into());
        message.insert("output".into(), output.into());
        message.insert("exitCode".into(), exit_code.into());
        message.insert("cancelled".into(), false.into());
        message.insert("truncated".into(), truncated.into());
        if truncated {
            let path = format!("/tmp/pi-bash-{}.log", self.rng.hex(8));
            message.insert("fullOutputPath".into(), path.into());
        }
        message.insert("timestamp".into(), self.timestamp_ms());
        if self.rng.chance(0.15) {
            message.insert("excludeFromContext".into(), true.into());
        }
        self.push_message(Value::Object(message), NodeKind::Other, tokens);
    }

    fn user_message(&mut self, file: &str) {
        let template = if self.rng.chance(0.1) {
            *self.rng.pick(PROMPTS_CJK)
        } else {
            *self.rng.pick(PROMPTS)
        };
        let text = fill(&mut self.rng, template, file);
        let mut tokens = tokens_of(&text);
        let content = if self.rng.chance(0.75) {
            Value::String(text)
        } else {
            let mut blocks = vec![json!({"type": "text", "text": text})];
            if self.rng.chance(0.3) {
                let (width, height) = (self.rng.range(8, 48) as u32, self.rng.range(8, 32) as u32);
                let image = png(&mut self.rng, width, height);
                blocks.push(json!({
                    "type": "image",
                    "data": base64::engine::general_purpose::STANDARD.encode(image),
                    "mimeType": "image/png",
                }));
                tokens += 1200;
            } else {
                let extra = fill(
                    &mut self.rng,
                    "Context: the `{verb}_{word}` path in {file} is the hot one.",
                    file,
                );
                tokens += tokens_of(&extra);
                blocks.push(json!({"type": "text", "text": extra}));
            }
            Value::Array(blocks)
        };
        self.tick(20_000, 240_000);
        let message = json!({"role": "user", "content": content, "timestamp": self.timestamp_ms()});
        self.push_message(message, NodeKind::User, tokens);
    }

    fn thinking_block(&mut self, file: &str) -> Option<(Value, u64)> {
        if THINKING_LEVELS[self.thinking] == "off" {
            return None;
        }
        let mut text = String::new();
        for _ in 0..self.rng.range(1, 3 + self.thinking) {
            if !text.is_empty() {
                text.push(' ');
            }
            let template = *self.rng.pick(THOUGHTS);
            text.push_str(&fill(&mut self.rng, template, file));
        }
        let tokens = tokens_of(&text);
        let block = match MODELS[self.model].provider {
            "anthropic" => {
                let signature_length = self.rng.range(200, 600);
                json!({"type": "thinking", "thinking": text, "thinkingSignature": self.rng.alphanumeric(signature_length)})
            }
            "openai" => {
                let id = format!("rs_{}", self.rng.hex(48));
                json!({"type": "thinking", "thinking": text, "thinkingSignature": json!({"type": "reasoning", "id": id, "summary": []}).to_string()})
            }
            _ => json!({"type": "thinking", "thinking": text}),
        };
        Some((block, tokens))
    }

    fn tool_call_id(&mut self) -> String {
        match MODELS[self.model].provider {
            "anthropic" => format!("toolu_01{}", self.rng.alphanumeric(22)),
            "openai" => format!("call_{}|fc_{}", self.rng.alphanumeric(24), self.rng.hex(48)),
            _ => format!("tool_{}", self.rng.hex(12)),
        }
    }

    /// Usage of a reply: the context so far is read from cache, the new part is written.
    fn usage(&mut self, output_tokens: u64) -> Value {
        let context = self.context_tokens();
        let input = self.rng.range(1, 12) as u64;
        let cache_write = self.rng.range(50, 3000) as u64;
        let cache_read = context.saturating_sub(cache_write + input);
        let prices = MODELS[self.model].prices;
        let cost = |tokens: u64, price: f64| (tokens as f64) * price / 1_000_000.0;
        let costs = [
            cost(input, prices[0]),
            cost(output_tokens, prices[1]),
            cost(cache_read, prices[2]),
            cost(cache_write, prices[3]),
        ];
        json!({
            "input": input,
            "output": output_tokens,
            "cacheRead": cache_read,
            "cacheWrite": cache_write,
            "totalTokens": input + output_tokens + cache_read + cache_write,
            "cost": {
                "input": costs[0],
                "output": costs[1],
                "cacheRead": costs[2],
                "cacheWrite": costs[3],
                "total": costs.iter().sum::<f64>(),
            },
        })
    }

    fn assistant(
        &mut self,
        content: Vec<Value>,
        tokens: u64,
        stop_reason: &str,
        error: Option<&str>,
        kind: NodeKind,
    ) {
        let model = &MODELS[self.model];
        let mut message = Map::new();
        message.insert("role".into(), "assistant".into());
        message.insert("content".into(), Value::Array(content));
        message.insert("api".into(), model.api.into());
        message.insert("provider".into(), model.provider.into());
        message.insert("model".into(), model.id.into());
        let usage = if error.is_some() {
            json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                   "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}})
        } else {
            self.usage(tokens)
        };
        message.insert("usage".into(), usage);
        message.insert("stopReason".into(), stop_reason.into());
        self.tick(2_000, 40_000);
        message.insert("timestamp".into(), self.timestamp_ms());
        if model.provider == "anthropic" && error.is_none() {
            message
                .insert("responseId".into(), format!("msg_01{}", self.rng.alphanumeric(22)).into());
        }
        if let Some(error) = error {
            message.insert("errorMessage".into(), error.into());
        }
        self.push_message(Value::Object(message), kind, tokens);
    }

    fn failed_reply(&mut self) {
        if self.rng.chance(0.5) {
            self.assistant(
                Vec::new(),
                0,
                "error",
                Some("529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"),
                NodeKind::Other,
            );
        } else {
            let text = "Let me look at the".to_owned();
            self.assistant(
                vec![json!({"type": "text", "text": text})],
                5,
                "aborted",
                Some("Request was aborted"),
                NodeKind::Other,
            );
        }
    }

    /// One assistant reply with tool calls, followed by one result per call.
    fn tool_step(&mut self, file: &str, last: bool) {
        let mut content = Vec::new();
        let mut tokens = 0;
        if let Some((block, block_tokens)) = self.thinking_block(file) {
            content.push(block);
            tokens += block_tokens;
        }
        if self.rng.chance(0.6) {
            let template = *self.rng.pick(REPLIES);
            let text = fill(&mut self.rng, template, file);
            tokens += tokens_of(&text);
            content.push(json!({"type": "text", "text": text}));
        }
        let calls = if self.rng.chance(0.8) { 1 } else { self.rng.range(2, 3) };
        let mut results = Vec::new();
        for _ in 0..calls {
            let id = self.tool_call_id();
            let (name, arguments, result) = self.tool_call(file, last);
            tokens += tokens_of(name) + tokens_of(&arguments.to_string());
            content
                .push(json!({"type": "toolCall", "id": id, "name": name, "arguments": arguments}));
            results.push((id, name, result));
        }
        self.assistant(content, tokens, "toolUse", None, NodeKind::Other);
        for (id, name, (text, details, is_error)) in results {
            let tokens = tokens_of(&text);
            let mut message = Map::new();
            message.insert("role".into(), "toolResult".into());
            message.insert("toolCallId".into(), id.into());
            message.insert("toolName".into(), name.into());
            message.insert("content".into(), json!([{"type": "text", "text": text}]));
            if let Some(details) = details {
                message.insert("details".into(), details);
            }
            message.insert("isError".into(), is_error.into());
            self.tick(100, 20_000);
            message.insert("timestamp".into(), self.timestamp_ms());
            self.push_message(Value::Object(message), NodeKind::Other, tokens);
        }
    }

    /// A tool call's name, arguments and result (text, details, isError).
    fn tool_call(
        &mut self,
        file: &str,
        last: bool,
    ) -> (&'static str, Value, (String, Option<Value>, bool)) {
        // The assistant message holding this call is the next entry on the path.
        let position = self.path.len();
        let mean = self.tool_output_mean;
        match self.rng.below(10) {
            0..=3 => {
                let path = if self.rng.chance(0.7) { file.to_owned() } else { self.random_file() };
                self.file_ops.push(FileOp { position, file: path.clone(), modified: false });
                let size = self.rng.size_around(mean);
                let text = code(&mut self.rng, size);
                let arguments = if self.rng.chance(0.2) {
                    json!({"path": path, "offset": self.rng.range(1, 400), "limit": 200})
                } else {
                    json!({"path": path})
                };
                ("read", arguments, (text, None, false))
            }
            4 | 5 => {
                self.file_ops.push(FileOp { position, file: file.to_owned(), modified: true });
                let (old_size, new_size) = (self.rng.range(40, 300), self.rng.range(40, 400));
                let old_text = code(&mut self.rng, old_size);
                let new_text = code(&mut self.rng, new_size);
                let line = self.rng.range(1, 600);
                let diff = format!(
                    "{}\n{}",
                    old_text
                        .lines()
                        .map(|l| format!("-{line:>4} {l}"))
                        .collect::<Vec<_>>()
                        .join("\n"),
                    new_text
                        .lines()
                        .map(|l| format!("+{line:>4} {l}"))
                        .collect::<Vec<_>>()
                        .join("\n"),
                );
                if self.rng.chance(0.1) {
                    let text = format!(
                        "Could not find the exact text in {file}. The old text must match exactly including all whitespace and newlines."
                    );
                    let arguments = json!({"path": file, "edits": [{"oldText": old_text, "newText": new_text}]});
                    return ("edit", arguments, (text, None, true));
                }
                let arguments =
                    json!({"path": file, "edits": [{"oldText": old_text, "newText": new_text}]});
                let text = format!("Successfully replaced 1 block(s) in {file}.");
                let details = json!({"diff": diff, "firstChangedLine": line});
                ("edit", arguments, (text, Some(details), false))
            }
            6 => {
                let path = format!("tests/{}_{}.rs", self.rng.pick(MODULES), self.rng.pick(WORDS));
                self.file_ops.push(FileOp { position, file: path.clone(), modified: true });
                let size = self.rng.size_around(mean / 2);
                let content = code(&mut self.rng, size);
                let text = format!("Successfully wrote {} bytes to {path}", content.len());
                ("write", json!({"path": path, "content": content}), (text, None, false))
            }
            _ => {
                let size = self.rng.size_around(mean);
                let (command, mut text, failed) = match self.rng.below(4) {
                    0 | 1 => {
                        let failed = if last {
                            0
                        } else {
                            usize::from(self.rng.chance(0.35)) * self.rng.range(1, 3)
                        };
                        ("cargo test", test_output(&mut self.rng, size, failed), failed > 0)
                    }
                    2 => {
                        if self.rng.chance(0.4) {
                            ("cargo build", compiler_errors(&mut self.rng, size, file), true)
                        } else {
                            (
                                "cargo clippy --all-targets -- -D warnings",
                                "    Checking compaction-core v0.1.0\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 2.03s\n".to_owned(),
                                false,
                            )
                        }
                    }
                    _ => ("rg -n 'fn ' src", listing(&mut self.rng, size), false),
                };
                if failed {
                    text.push_str(&format!(
                        "\n\nCommand exited with code {}",
                        if command == "cargo test" { 101 } else { 1 }
                    ));
                }
                let arguments = if self.rng.chance(0.2) {
                    json!({"command": command, "timeout": 120})
                } else {
                    json!({"command": command})
                };
                ("bash", arguments, (text, None, failed))
            }
        }
    }

    fn final_reply(&mut self, file: &str) {
        let mut content = Vec::new();
        let mut tokens = 0;
        if let Some((block, block_tokens)) = self.thinking_block(file) {
            content.push(block);
            tokens += block_tokens;
        }
        let template = *self.rng.pick(FINAL_REPLIES);
        let text = fill(&mut self.rng, template, file);
        tokens += tokens_of(&text);
        content.push(json!({"type": "text", "text": text}));
        self.assistant(content, tokens, "stop", None, NodeKind::TurnEnd);
    }

    /// Read-only and modified files of the path from `start`, merged with `previous` lists.
    fn file_lists(&self, start: usize, previous: Option<&Value>) -> (Vec<String>, Vec<String>) {
        let mut read = BTreeSet::new();
        let mut modified = BTreeSet::new();
        if let Some(previous) = previous {
            for (key, set) in [("readFiles", &mut read), ("modifiedFiles", &mut modified)] {
                if let Some(list) = previous.get(key).and_then(Value::as_array) {
                    set.extend(list.iter().filter_map(Value::as_str).map(str::to_owned));
                }
            }
        }
        for op in self.file_ops.iter().filter(|op| op.position >= start) {
            if op.modified {
                modified.insert(op.file.clone());
            } else {
                read.insert(op.file.clone());
            }
        }
        let read_only = read.difference(&modified).cloned().collect();
        (read_only, modified.into_iter().collect())
    }

    fn summary_text(&mut self, heading: &str, read: &[String], modified: &[String]) -> String {
        let file = self.random_file();
        let mut text = format!("## {heading}\n");
        text.push_str(&fill(&mut self.rng, "Make `{verb}_{word}` in {file} handle an empty {word} and keep the {module} tests green.\n\n## Progress\n", &file));
        for _ in 0..self.rng.range(2, 6) {
            let line = fill(&mut self.rng, "- [x] {verb} the {word} in {file}\n", &file);
            text.push_str(&line);
        }
        text.push_str("\n## Next steps\n");
        text.push_str(&fill(
            &mut self.rng,
            "- re-run the {module} tests after the {word} change\n",
            &file,
        ));
        if !read.is_empty() {
            text.push_str(&format!("\n<read-files>\n{}\n</read-files>", read.join("\n")));
        }
        if !modified.is_empty() {
            text.push_str(&format!(
                "\n<modified-files>\n{}\n</modified-files>",
                modified.join("\n")
            ));
        }
        text
    }

    fn compaction(&mut self) {
        let region_start = match self.last_compaction() {
            Some(at) => at + 1,
            None => 0,
        };
        let users: Vec<usize> = (region_start..self.path.len())
            .filter(|&p| self.path[p].kind == NodeKind::User)
            .collect();
        if users.len() < 3 {
            return;
        }
        // Keep about 20 000 tokens of recent context, starting at a user message.
        let end = self.path.last().map_or(0, |n| n.cumulative_tokens);
        let first_kept = users
            .iter()
            .rev()
            .copied()
            .find(|&p| end - self.cumulative_before(p) >= 20_000)
            .unwrap_or(users[users.len() - 1]);
        let previous = self.last_compaction().and_then(|at| self.path[at].details.clone());
        let (read, modified) = self.file_lists(region_start, previous.as_ref());
        let summary = self.summary_text("Goal", &read, &modified);
        let summary_tokens = tokens_of(&summary);
        let mut body = Map::new();
        body.insert("summary".into(), summary.into());
        body.insert("firstKeptEntryId".into(), self.path[first_kept].id.clone().into());
        body.insert("tokensBefore".into(), self.context_tokens().into());
        let details = json!({"readFiles": read, "modifiedFiles": modified});
        body.insert("details".into(), details.clone());
        body.insert("fromHook".into(), false.into());
        self.push(
            "compaction",
            Map::new(),
            body,
            NodeKind::Compaction { first_kept, summary_tokens },
            0,
        );
        if let Some(node) = self.path.last_mut() {
            node.details = Some(details);
        }
    }

    /// Moves the leaf back to an earlier turn boundary, as pi's tree navigation does, and
    /// usually leaves a branch summary of the abandoned work there.
    fn branch(&mut self) {
        let low = self.last_compaction().map_or(1, |at| at + 1).max(1);
        let candidates: Vec<usize> = (low..self.path.len().saturating_sub(2))
            .filter(|&p| matches!(self.path[p].kind, NodeKind::User | NodeKind::TurnEnd))
            .collect();
        let Some(&target) = candidates.get(self.rng.below(candidates.len().max(1))) else {
            return;
        };
        // Navigating to a user message puts the leaf on its parent (the prompt goes back to
        // the editor); navigating to a reply keeps the reply.
        let new_leaf = if self.path[target].kind == NodeKind::User { target - 1 } else { target };
        let (read, modified) = self.file_lists(new_leaf + 1, None);
        self.path.truncate(new_leaf + 1);
        self.file_ops.retain(|op| op.position <= new_leaf);
        if self.rng.chance(0.7) {
            let summary = self.summary_text("Abandoned branch", &read, &modified);
            let tokens = tokens_of(&summary);
            let mut body = Map::new();
            // pi 0.73.1 records the entry the summary is attached to as `fromId`.
            body.insert("fromId".into(), self.path[new_leaf].id.clone().into());
            body.insert("summary".into(), summary.into());
            body.insert("details".into(), json!({"readFiles": read, "modifiedFiles": modified}));
            body.insert("fromHook".into(), false.into());
            let id = self.push("branch_summary", Map::new(), body, NodeKind::Other, tokens);
            if self.rng.chance(0.3) {
                let mut body = Map::new();
                body.insert("targetId".into(), id.into());
                body.insert("label".into(), (*self.rng.pick(LABELS)).into());
                self.push("label", Map::new(), body, NodeKind::Other, 0);
            }
        }
    }
}

impl Iterator for SessionGenerator {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        if !self.header_done {
            self.header_done = true;
            return Some(self.header());
        }
        if self.emitted >= self.options.entries {
            return None;
        }
        while self.queue.is_empty() {
            self.turn();
        }
        self.emitted += 1;
        self.queue.pop_front()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(seed: u64, entries: usize) -> GenerateOptions {
        GenerateOptions { seed, entries, ..GenerateOptions::default() }
    }

    #[test]
    fn emits_exactly_the_requested_entries_after_a_header() {
        for entries in [0, 1, 7, 250] {
            let lines: Vec<String> = SessionGenerator::new(options(3, entries)).collect();
            assert_eq!(lines.len(), entries + 1);
            assert!(lines[0].starts_with(r#"{"type":"session","version":3,"id":""#));
        }
    }

    #[test]
    fn iso_timestamps_match_known_dates() {
        assert_eq!(iso_timestamp(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_timestamp(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(iso_timestamp(1_735_689_599_999), "2024-12-31T23:59:59.999Z");
        assert_eq!(iso_timestamp(1_740_787_200_000), "2025-03-01T00:00:00.000Z");
    }

    #[test]
    fn checksums_match_reference_values() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
        let image = png(&mut Rng(1), 3, 2);
        assert_eq!(&image[..8], b"\x89PNG\r\n\x1a\n");
        assert!(image.ends_with(&[0xAE, 0x42, 0x60, 0x82]), "IEND CRC");
    }

    #[test]
    fn average_entry_size_follows_the_option() {
        for average in [1000, DEFAULT_AVERAGE_ENTRY_BYTES] {
            let opts = GenerateOptions { average_entry_bytes: average, ..options(11, 3000) };
            let text = generate_session(&opts);
            let measured = text.len() / opts.entries;
            let low = average * 80 / 100;
            let high = average * 120 / 100;
            assert!(
                (low..=high).contains(&measured),
                "asked for {average} bytes per entry, got {measured}"
            );
        }
    }
}
