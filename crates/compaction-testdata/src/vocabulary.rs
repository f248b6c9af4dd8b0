//! What generated sessions talk about: models with their prices, thinking levels, and the
//! words and templates prompts, replies and thoughts are filled from.

use crate::random::Rng;

/// A model the simulated user talks to, with its prices per million tokens.
pub(crate) struct Model {
    pub(crate) api: &'static str,
    pub(crate) provider: &'static str,
    pub(crate) id: &'static str,
    pub(crate) prices: [f64; 4],
}

pub(crate) const MODELS: &[Model] = &[
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

pub(crate) const THINKING_LEVELS: &[&str] = &["off", "minimal", "low", "medium", "high"];

pub(crate) const MODULES: &[&str] = &[
    "session", "parser", "config", "tokens", "store", "cache", "render", "client", "lexer",
    "index", "retry", "plan", "budget", "schema", "writer",
];

pub(crate) const WORDS: &[&str] = &[
    "entry", "value", "buffer", "index", "state", "path", "node", "line", "cursor", "limit",
    "total", "count", "offset", "window", "summary", "request", "reply", "token", "record",
    "header", "parent", "child", "branch", "model", "budget", "report", "error", "result",
];

pub(crate) const TYPES: &[&str] = &[
    "Session", "Entry", "Config", "Parser", "Store", "Budget", "Request", "Reply", "Index",
    "Cursor", "Window", "Report",
];

pub(crate) const VERBS: &[&str] = &[
    "load", "parse", "split", "merge", "check", "build", "flush", "render", "resolve", "count",
    "trim", "apply", "collect", "estimate",
];

pub(crate) const PROMPTS: &[&str] = &[
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

pub(crate) const PROMPTS_CJK: &[&str] = &[
    "请帮我看一下 {file} 里的测试为什么失败，并修复它。",
    "{module} 模块在大文件上太慢了，能优化一下吗？",
    "把 {file} 中关于 {word} 的逻辑整理到一个函数里。",
    "このテストが失敗する理由を調べて、{file} を直してください。",
    "{module} のエラーメッセージに行番号を含めてください。",
    "코드 리뷰 부탁합니다: {file} 의 {word} 처리가 맞나요?",
];

pub(crate) const REPLIES: &[&str] = &[
    "I'll start by reading {file} to see how {word} is handled.",
    "Let me run the tests first to see the current state.",
    "The failure comes from `{verb}_{word}`: it assumes the {word} is never empty. I'll guard that case.",
    "Now I'll update {file} with the fix.",
    "Let me check the callers of `{verb}_{word}` before changing its signature.",
    "The tests pass now. Let me also run clippy to be sure nothing else regressed.",
];

pub(crate) const FINAL_REPLIES: &[&str] = &[
    "Done. `{verb}_{word}` in {file} now handles an empty {word}, and I added a regression test. All tests pass.",
    "The slowdown came from re-reading the {word} on every call; it is now cached in the {module} struct. The suite passes.",
    "I renamed the field and updated every use in {file}. `cargo test` is green and clippy has no warnings.",
    "Summary of the change:\n\n- {file}: the {word} limit is now inclusive\n- added `test_{word}_at_limit`\n\nAll tests pass.",
    "The error now carries the line number: `{module}::Error::{Type}` has a `line` field, shown in the message.",
];

pub(crate) const THOUGHTS: &[&str] = &[
    "The user wants the {word} handling fixed. I should read {file} first, then find where `{verb}_{word}` is called.",
    "The test output shows a panic in `{verb}_{word}`. Probably an index out of bounds when the {word} is empty.",
    "If I change the signature, the callers in the {module} module break too. Better keep it and add a helper.",
    "Clippy complained about a needless clone; I can borrow the {word} instead.",
    "The failing assertion compares the {word} count with the expected total; the off-by-one is in the loop bound.",
];

pub(crate) const CUSTOM_TYPES: &[&str] =
    &["todo-state", "plan-mode", "git-checkpoint", "permissions"];

pub(crate) const LABELS: &[&str] = &[
    "checkpoint",
    "before refactor",
    "tests green",
    "good state",
    "try again from here",
    "bug reproduced",
];

/// Fills a template's placeholders with random domain words.
pub(crate) fn fill(rng: &mut Rng, template: &str, file: &str) -> String {
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
