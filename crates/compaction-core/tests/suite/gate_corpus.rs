//! The quality gate on generated replies: many replies that are no summary (echoes of the
//! request, refusals in many languages, cut-off replies, prose without the structure, wrong
//! headings, a few words) must be rejected as unusable, and many good summaries in different
//! wordings and heading styles must pass.
//!
//! The split is fixed: within each family, instance `i` is in the TEST part when `i % 3 == 0`;
//! refusals are split by language instead (every third language of `LANGUAGES` is TEST: en,
//! de, pt, ru, pl; most languages of both parts are in no refusal list of the gate, and are
//! rejected for their structure and length). Both parts are reported; run with
//! `--nocapture` to see the table.

use compaction_core::must_keep::MustKeep;
use compaction_core::quality::{GateFacts, Problem, check_summary};

/// Tokens of history a generated reply replaces: a long session (82 messages of it).
const REPLACED_TOKENS: u64 = 20_000;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const FILES: &[&str] = &[
    "src/lexer.rs",
    "src/parser/expr.rs",
    "web/app/routes.ts",
    "cmd/server/main.go",
    "lib/billing/invoice.py",
    "docs/setup.md",
    "tests/integration/auth_test.rb",
];
const ERRORS: &[&str] = &[
    "error[E0308]: mismatched types",
    "TypeError: Cannot read properties of undefined (reading 'id')",
    "FAILED tests/test_invoice.py::test_rounding - AssertionError",
    "panic: runtime error: index out of range [3] with length 3",
    "ENOENT: no such file or directory, open 'config.json'",
];
const TASKS: &[&str] = &[
    "add comment support to the lexer",
    "fix the rounding of invoice totals",
    "move the session routes behind the auth middleware",
    "make the server shut down gracefully on SIGTERM",
    "write the setup guide for new contributors",
    "port the exporter from callbacks to async functions",
];
const DECISIONS: &[&str] = &[
    "kept the public signature of parse_expr unchanged because downstream crates use it",
    "used decimal arithmetic instead of floats so totals round the same way as the ledger",
    "chose a context with a deadline over a global flag to stop the workers",
    "put the new module next to the old one so the diff stays reviewable",
];

/// Heading spellings a model may use for the checkpoint's headings.
fn heading(rng: &mut Rng, text: &str, style: usize) -> String {
    match style {
        0 => format!("## {text}"),
        1 => format!("### {text}"),
        2 => format!("**{text}:**"),
        3 => format!("## {text}:"),
        _ => format!("# {}", if rng.below(2) == 0 { text.to_uppercase() } else { text.into() }),
    }
}

/// A good summary: the checkpoint's headings (some optional ones left out, in one of several
/// styles), with content in varied wording and length.
fn good(rng: &mut Rng) -> String {
    let style = rng.below(5);
    let task = rng.pick(TASKS);
    let file = rng.pick(FILES);
    let other = rng.pick(FILES);
    let error = rng.pick(ERRORS);
    let decision = rng.pick(DECISIONS);
    let mut text = String::new();
    let goal_lines = [
        format!("The user wants to {task}."),
        format!("Goal: {task}, without breaking the existing tests."),
        format!("- {task} (main task)\n- keep the changes in {file} small"),
    ];
    text.push_str(&heading(rng, "Goal", style));
    text.push('\n');
    text.push_str(&goal_lines[rng.below(3)]);
    text.push_str(&format!("\nLatest request: \"Please {task} and run the tests.\"\n\n"));
    if rng.below(3) > 0 {
        let name = if rng.below(2) == 0 {
            "Constraints & Preferences"
        } else {
            "Constraints and Preferences"
        };
        text.push_str(&heading(rng, name, style));
        text.push_str("\n- \"Do not change the file format.\"\n- Run the whole suite before saying it is done.\n\n");
    }
    text.push_str(&heading(rng, "Progress", style));
    text.push('\n');
    let done = [
        format!("- [x] Edited `{file}` so the first half of the change is in place."),
        format!("Done: the change in {file} compiles and its unit tests pass."),
        format!("- Finished the groundwork in {file}; {other} still uses the old call."),
    ];
    text.push_str(&done[rng.below(3)]);
    text.push('\n');
    if rng.below(2) == 0 {
        text.push_str(&format!("- Blocked: `{error}` when the suite runs.\n"));
    }
    text.push('\n');
    if rng.below(2) == 0 {
        text.push_str(&heading(rng, "Key Decisions", style));
        text.push_str(&format!("\n- **Decision**: {decision}.\n\n"));
    }
    text.push_str(&heading(rng, "Next Steps", style));
    let steps = [
        format!("\n1. Update {other} to the new call.\n2. Run the tests again and fix what fails."),
        format!("\n- Finish {task} in {other}, then run the suite."),
        "\n1. Fix the failing test.\n2. Ask the user to review the diff.\n3. Update the changelog."
            .to_owned(),
    ];
    text.push_str(&steps[rng.below(3)]);
    text.push_str("\n\n");
    if rng.below(2) == 0 {
        text.push_str(&heading(rng, "Critical Context", style));
        text.push_str(&format!(
            "\n- The error text was: {error}\n- Paths: {file}, {other}\n- (none else)\n"
        ));
    }
    text
}

/// Refusals by language; every third language is in the test part.
const LANGUAGES: &[(&str, &[&str])] = &[
    (
        "en",
        &[
            "I'm sorry, but I can't help with that request.",
            "I cannot assist with summarizing this conversation.",
            "As an AI, I am unable to do that.",
        ],
    ),
    (
        "fr",
        &[
            "Je ne peux pas vous aider avec cette demande.",
            "Désolé, mais je ne peux pas résumer cette conversation.",
        ],
    ),
    ("es", &["Lo siento, pero no puedo ayudar con eso.", "No puedo ayudar con esta solicitud."]),
    (
        "de",
        &[
            "Es tut mir leid, aber dabei kann ich nicht helfen.",
            "Ich kann Ihnen nicht helfen, diese Unterhaltung zusammenzufassen.",
        ],
    ),
    ("zh", &["抱歉，我无法帮助完成这个请求。", "对不起，我不能总结这段对话。"]),
    (
        "it",
        &[
            "Mi dispiace, ma non posso aiutarti con questa richiesta.",
            "Non posso riassumere questa conversazione.",
        ],
    ),
    ("pt", &["Desculpe, mas não posso ajudar com isso.", "Não consigo resumir esta conversa."]),
    (
        "nl",
        &[
            "Het spijt me, maar daar kan ik niet mee helpen.",
            "Ik kan dit gesprek niet samenvatten.",
        ],
    ),
    (
        "ja",
        &[
            "申し訳ありませんが、そのリクエストにはお応えできません。",
            "この会話を要約することはできません。",
        ],
    ),
    (
        "ru",
        &[
            "Извините, но я не могу помочь с этим запросом.",
            "Я не могу подвести итог этого разговора.",
        ],
    ),
    ("ko", &["죄송하지만 그 요청은 도와드릴 수 없습니다.", "이 대화를 요약할 수 없습니다."]),
    ("pl", &["Przepraszam, ale nie mogę w tym pomóc.", "Nie mogę podsumować tej rozmowy."]),
    ("tr", &["Üzgünüm, bu konuda yardımcı olamam.", "Bu konuşmayı özetleyemem."]),
    (
        "sv",
        &[
            "Tyvärr kan jag inte hjälpa till med det.",
            "Jag kan inte sammanfatta den här konversationen.",
        ],
    ),
    ("uk", &["Вибачте, але я не можу допомогти з цим.", "Я не можу підсумувати цю розмову."]),
];

/// A bad reply of `family`, instance `i`, and whether it was cut at the output limit.
fn bad(family: &str, i: usize, rng: &mut Rng) -> (String, bool) {
    let prompts = [
        compaction_core::prompts::SYSTEM_PROMPT,
        compaction_core::prompts::HISTORY_PROMPT,
        compaction_core::prompts::UPDATE_PROMPT,
    ];
    match family {
        "echo" => {
            // What a base model writes back: the request's own text, in part.
            let prompt = prompts[i % prompts.len()];
            let lines: Vec<&str> = prompt.lines().filter(|l| l.trim().len() > 70).collect();
            let line = lines[rng.below(lines.len())];
            match i % 4 {
                0 => {
                    (format!("<conversation>\n<user>\nPlease {}\n</user>", rng.pick(TASKS)), false)
                }
                1 => (format!("<start_of_turn>user\n{line}\n<end_of_turn>"), false),
                2 => (format!("{line}\n\n{}", rng.pick(TASKS)), false),
                _ => (
                    format!("Summary:\n<assistant>\nI will {}.\n</assistant>", rng.pick(TASKS)),
                    false,
                ),
            }
        }
        "truncated" => {
            let whole = good(rng);
            let cut = whole.char_indices().nth(whole.chars().count() * (30 + i % 60) / 100);
            (whole[..cut.map_or(whole.len(), |(at, _)| at)].to_owned(), true)
        }
        "cut-short" => {
            // Cut early without the server saying so: the reply stops after its first lines.
            let whole = good(rng);
            let first: String = whole.lines().take(1 + i % 3).collect::<Vec<_>>().join("\n");
            (first, false)
        }
        "prose" => {
            let mut text = String::new();
            for _ in 0..(1 + i % 6) {
                text.push_str(&format!(
                    "The assistant worked on {} and {} edited {}. ",
                    rng.pick(TASKS),
                    if rng.below(2) == 0 { "then" } else { "later" },
                    rng.pick(FILES)
                ));
                text.push_str(&format!("It decided that it {}. ", rng.pick(DECISIONS)));
            }
            (text, false)
        }
        "wrong-headings" => {
            let names = [
                "Summary",
                "Overview",
                "Tasks",
                "Status",
                "Notes",
                "Conversation",
                "Changes",
                "Files",
            ];
            let mut text = String::new();
            for n in 0..(2 + i % 3) {
                text.push_str(&format!(
                    "## {}\n- {} in {}\n\n",
                    names[(i + n) % names.len()],
                    rng.pick(TASKS),
                    rng.pick(FILES)
                ));
            }
            (text, false)
        }
        "few-words" => {
            let replies = [
                "The user fixed the bug.",
                "OK.",
                "Done, tests pass now.",
                "Summary: work on the lexer.",
                "The assistant edited files.",
                "Nothing important happened here.",
            ];
            (replies[i % replies.len()].to_owned(), false)
        }
        "hollow-headings" => {
            let mut text = String::from("## Goal\nFix it.\n\n## Progress\n");
            text.push_str(["Done.", "Some work.", "(none)", "In progress."][i % 4]);
            text.push_str("\n\n## Next Steps\n(none)\n");
            (text, false)
        }
        _ => unreachable!("{family}"),
    }
}

fn verdict(summary: &str, truncated: bool) -> Vec<Problem> {
    let nothing = MustKeep::default();
    let facts = GateFacts {
        must_keep: &nothing,
        pins: &[],
        checkpoint: true,
        summarized_tokens: REPLACED_TOKENS,
    };
    check_summary(summary, truncated, &facts)
}

#[derive(Default)]
struct Tally {
    total: usize,
    right: usize,
    wrong: Vec<String>,
}

impl Tally {
    fn add(&mut self, right: bool, example: &str) {
        self.total += 1;
        if right {
            self.right += 1;
        } else if self.wrong.len() < 3 {
            self.wrong.push(example.chars().take(160).collect());
        }
    }
}

#[test]
fn the_gate_rejects_generated_non_summaries_and_accepts_generated_summaries() {
    let families = [
        "echo",
        "truncated",
        "cut-short",
        "prose",
        "wrong-headings",
        "few-words",
        "hollow-headings",
    ];
    let mut rows: Vec<(String, Tally, Tally)> = Vec::new();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for family in families {
        let (mut dev, mut test) = (Tally::default(), Tally::default());
        for i in 0..60 {
            let (reply, truncated) = bad(family, i, &mut rng);
            let rejected = verdict(&reply, truncated).iter().any(Problem::is_unusable);
            if i % 3 == 0 { &mut test } else { &mut dev }.add(rejected, &reply);
        }
        rows.push((format!("bad: {family}"), dev, test));
    }
    let (mut dev, mut test) = (Tally::default(), Tally::default());
    for (index, (_language, replies)) in LANGUAGES.iter().enumerate() {
        for (n, reply) in replies.iter().enumerate() {
            // Alone, and after a polite opening line.
            for variant in
                [reply.to_string(), format!("{reply}\n\n{}", replies[(n + 1) % replies.len()])]
            {
                let rejected = verdict(&variant, false).iter().any(Problem::is_unusable);
                if index % 3 == 0 { &mut test } else { &mut dev }.add(rejected, &variant);
            }
        }
    }
    rows.push(("bad: refusal (by language)".into(), dev, test));
    let (mut dev, mut test) = (Tally::default(), Tally::default());
    for i in 0..300 {
        let summary = good(&mut rng);
        let accepted = verdict(&summary, false).is_empty();
        if i % 3 == 0 { &mut test } else { &mut dev }.add(accepted, &summary);
    }
    rows.push(("good: checkpoint summaries".into(), dev, test));

    eprintln!("{:<30} {:>12} {:>12}", "class", "dev right", "test right");
    for (name, dev, test) in &rows {
        eprintln!(
            "{name:<30} {:>5}/{:<6} {:>5}/{:<6}",
            dev.right, dev.total, test.right, test.total
        );
    }
    for (name, dev, test) in &rows {
        assert_eq!(dev.right, dev.total, "{name} (dev): wrongly judged: {:?}", dev.wrong);
        assert_eq!(test.right, test.total, "{name} (test): wrongly judged: {:?}", test.wrong);
    }
}
