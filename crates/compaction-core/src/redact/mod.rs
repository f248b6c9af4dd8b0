//! Redaction of secrets from every text that leaves for a summarizing model.
//!
//! The rules are a table of named patterns ([`rules`]), modelled on gitleaks' rule set:
//! provider key formats (AWS, GitHub, GitLab, Slack, Stripe, OpenAI, Anthropic, Google, npm,
//! PyPI, Hugging Face, Twilio, SendGrid, …), private key blocks, JWTs, credentials in URLs
//! and authorization headers, values assigned to secret-looking names in env, YAML, JSON,
//! TOML and code, passwords given to well-known commands (`mysql -p…`, `sshpass -p`,
//! `redis-cli -a`), cookies and session ids, key literals handed to HMAC and JWT calls,
//! `.netrc` and `.pgpass` lines, secrets split across lines or string literals, base64 that
//! decodes to a credential ([`encoded`]), text written as bytes apart (`od -tx1`, `0x44, …`,
//! character codes: `dumps.rs`), Ascii85 and uuencoded blobs and UTF-16 text read as bytes
//! decoded where they stand (`blobs.rs`), text disguised by Unicode look-alikes and invisible
//! characters read as the ASCII it shows (`disguises.rs`), letters standing apart read together
//! (`spaced.rs`), and random-looking values next to secret-looking words.
//! Besides the table: generated tokens recognised by their statistics alone, with no
//! prefix or name (`shape.rs`), passwords given in the prose of any language (`prose.rs`),
//! key material by its structure (`structure.rs`), a quoted literal after a secret's name
//! taken whole, whatever symbols it holds (`quoted.rs`), the columns of a delimited table whose
//! header names a secret (`tables.rs`), a value a few words after a secret's name in any
//! syntax or on the line after a label (`nearby.rs`), a literal made like a password after
//! another argument of a call (`positional.rs`), the one word a command that shows a
//! secret prints (`outputs.rs`), a strong word after a short label in any language or a key of
//! any name (`labels.rs`), hex key material on a line naming a key (`hex_keys.rs`), and
//! passwords no name introduces, told by the record or the conversation around them: a user
//! and a password as two fields, a password-like word in a line of chat (`accounts.rs`).
//! Each text is redacted whole before anything cuts it. No maintained crate of such rules
//! fits a pure, synchronous core on this toolchain, so the table is written here as data.
//! Besides the table, a [`Redactor`] replaces exact configured values (the API keys in use).
//!
//! Invariant: a redacted text holds `[REDACTED]` in place of each secret the rules find and
//! is otherwise unchanged; the words around a secret (`password=`, `Bearer `,
//! `postgres://user:`) stay, so a summary can still say a secret was there.

mod accounts;
mod blobs;
mod checks;
mod columns;
#[macro_use]
pub mod rules;
mod context;
mod disguises;
mod dumps;
pub mod encoded;
mod fed;
mod hex_keys;
mod json;
mod labels;
mod literals;
mod nearby;
mod outputs;
mod phrases;
mod positional;
mod preceding;
mod prose;
mod quoted;
mod shape;
mod spaced;
mod structure;
mod tables;
mod unnamed;
mod views;
mod words;

use std::borrow::Cow;
use std::sync::OnceLock;

use regex_automata::meta;
use regex_syntax::hir::{Hir, HirKind, Repetition};

use checks::{cookie_values, passes};
use rules::{Check, Rule};

/// The built-in rules in the order they are applied: the table, then the rules by context.
fn all_rules() -> impl Iterator<Item = &'static Rule> {
    rules::RULES.iter().chain(context::RULES)
}

/// The names of the built-in rules, in the order they are applied.
pub fn rule_names() -> impl Iterator<Item = &'static str> {
    all_rules().map(|rule| rule.name)
}

/// What a secret is replaced with.
pub const REDACTED: &str = "[REDACTED]";

/// Replaces secrets with `[REDACTED]`: the built-in rules and configured values.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    secrets: Vec<String>,
}

/// Shortest configured secret that is redacted verbatim (shorter ones would hit ordinary text).
const MIN_SECRET_LEN: usize = 8;

/// The rule table, in order, each rule compiled the first time a text may hold a match of it
/// (see [`literals`]). Each rule is searched on its own: its literal prefixes let the engine
/// skip most text, where one set of all the rules would outgrow the lazy DFA's cache and fall
/// back to a slow engine.
struct Compiled {
    rules: Vec<CompiledRule>,
    /// Which rules may match a text.
    index: literals::LiteralIndex,
}

/// One rule of the table.
struct CompiledRule {
    /// The pattern, parsed once (for the literal index, then for the regex); `None` when it
    /// does not parse (a unit test checks that every rule compiles).
    hir: Option<Hir>,
    /// Its regex once built (`None` inside when it does not build).
    regex: OnceLock<Option<meta::Regex>>,
    /// The pattern with its long counted repeats opened up (see [`loosened`]), when it has
    /// any: a cheap test that rules a text out before the rule's own regex is built.
    filter_hir: Option<Hir>,
    /// The filter's regex once built.
    filter: OnceLock<Option<meta::Regex>>,
    check: Check,
}

/// The regex of a rule, built from its parsed pattern: the engine `regex::Regex::new` builds
/// for the same pattern (same syntax, limits and match semantics), without parsing it again
/// and without the literal prefilters the engine would extract and build for it.
///
/// Those prefilters cost more than they save here: compiling a rule is most of what a short
/// command spends on redaction, and the engine's literal extraction (prefixes, and "inner"
/// literals for patterns such as `[\w.-]*(?:password|…)=`, extracted from every
/// concatenation of a pattern carrying the long list of secret names) plus the Teddy or
/// Aho-Corasick searchers built from them were about a third of it. A rule is only searched
/// in a text the literal index kept, so the lazy DFA that scans without them reads little.
/// Which engine runs never changes a match, only its cost.
fn build(hir: &Hir) -> Option<meta::Regex> {
    // `regex::Regex::new`'s settings, written out, then the prefilters off.
    let config = meta::Config::new()
        .match_kind(regex_automata::MatchKind::LeftmostFirst)
        .utf8_empty(true)
        .nfa_size_limit(Some(10 * (1 << 20)))
        .hybrid_cache_capacity(2 * (1 << 20))
        .auto_prefilter(false);
    meta::Regex::builder().configure(config).build_from_hir(hir).ok()
}

impl CompiledRule {
    fn new(hir: Option<Hir>, check: Check) -> Self {
        let filter_hir = hir.as_ref().and_then(loosened);
        CompiledRule { hir, regex: OnceLock::new(), filter_hir, filter: OnceLock::new(), check }
    }

    /// The rule's regex, built on first use.
    fn regex(&self) -> Option<&meta::Regex> {
        self.regex.get_or_init(|| build(self.hir.as_ref()?)).as_ref()
    }

    /// Whether the rule may match somewhere in `text`. A counted repeat such as
    /// `[^\s"']{1,1024}` compiles to one automaton state set per count, so the rules' long
    /// repeats were most of what building them cost. The filter is the same pattern with
    /// those repeats left open (`{1,}`); every match of the rule is a match of the filter, so
    /// where the filter finds nothing the rule finds nothing, and the rule's own regex is
    /// built only for a text the filter keeps.
    fn may_match(&self, text: &str) -> bool {
        let Some(filter_hir) = &self.filter_hir else { return true };
        match self.filter.get_or_init(|| build(filter_hir)) {
            Some(filter) => filter.is_match(text),
            None => true,
        }
    }
}

/// The longest counted repeat a filter keeps as it is; longer ones are left open.
const FILTER_MAX_COUNT: u32 = 16;

/// `hir` with every counted repeat longer than [`FILTER_MAX_COUNT`] left open above and
/// lowered below (`C{n,m}` becomes `C{min(n, 16),}`), and the capture groups dropped: a
/// pattern that matches wherever `hir` matches. `None` when `hir` has no such repeat.
fn loosened(hir: &Hir) -> Option<Hir> {
    fn open(hir: &Hir, changed: &mut bool) -> Hir {
        match hir.kind() {
            HirKind::Repetition(repetition) => {
                let sub = open(&repetition.sub, changed);
                let long = repetition.min > FILTER_MAX_COUNT
                    || repetition.max.is_some_and(|max| max > FILTER_MAX_COUNT);
                *changed |= long;
                let (min, max) = if long {
                    (repetition.min.min(FILTER_MAX_COUNT), None)
                } else {
                    (repetition.min, repetition.max)
                };
                Hir::repetition(Repetition {
                    min,
                    max,
                    greedy: repetition.greedy,
                    sub: Box::new(sub),
                })
            }
            HirKind::Capture(capture) => open(&capture.sub, changed),
            HirKind::Concat(parts) => {
                Hir::concat(parts.iter().map(|part| open(part, changed)).collect())
            }
            HirKind::Alternation(parts) => {
                Hir::alternation(parts.iter().map(|part| open(part, changed)).collect())
            }
            HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) | HirKind::Look(_) => {
                hir.clone()
            }
        }
    }
    let mut changed = false;
    let filter = open(hir, &mut changed);
    changed.then_some(filter)
}

/// Word boundaries, word characters and digits are ASCII ones: Unicode boundaries would push
/// the regex engine off its fast path on non-ASCII text, and Unicode `\w` under `(?i)`
/// compiles to automata many times larger (most of a short command's time went to compiling
/// them), while every rule anchors on ASCII names and key material. Inside a class `\w` and
/// `\d` become their ASCII ranges; outside, ASCII-only groups.
fn ascii_classes(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 32);
    let mut chars = pattern.chars();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(next) = chars.next() else {
                    out.push(c);
                    break;
                };
                match (next, in_class) {
                    ('b', false) => out.push_str("(?-u:\\b)"),
                    ('w', false) => out.push_str("(?-u:\\w)"),
                    ('d', false) => out.push_str("[0-9]"),
                    ('w', true) => out.push_str("A-Za-z0-9_"),
                    ('d', true) => out.push_str("0-9"),
                    _ => {
                        out.push(c);
                        out.push(next);
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
                // A `]` or `^]` right after the opening bracket is a literal.
                let rest = chars.as_str();
                let literal = if rest.starts_with("^]") {
                    2
                } else if rest.starts_with(']') {
                    1
                } else {
                    0
                };
                for _ in 0..literal {
                    out.extend(chars.next());
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

fn compiled() -> &'static Compiled {
    static COMPILED: OnceLock<Compiled> = OnceLock::new();
    COMPILED.get_or_init(|| {
        let mut sets = Vec::new();
        let rules: Vec<_> = all_rules()
            .map(|rule| {
                let pattern = ascii_classes(rule.pattern);
                // Each pattern is parsed once: for its literals, then for its regex.
                let hir = regex_syntax::Parser::new().parse(&pattern).ok();
                sets.push(hir.as_ref().and_then(literals::required_literals_of));
                CompiledRule::new(hir, rule.check)
            })
            .collect();
        let index = literals::LiteralIndex::from_sets(sets);
        Compiled { rules, index }
    })
}

impl Redactor {
    /// A redactor for the built-in rules plus these exact values (API keys in use).
    pub fn new(secrets: impl IntoIterator<Item = String>) -> Self {
        let mut secrets: Vec<String> =
            secrets.into_iter().filter(|s| s.len() >= MIN_SECRET_LEN).collect();
        // Longest first, so a secret containing another is replaced whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        Redactor { secrets }
    }

    /// The text with every known secret replaced by `[REDACTED]`: the rules and the
    /// structural finders on the text itself, then on its decoded views (JSON or PHP
    /// escaping undone once and twice, URL encoding undone, HTML entities and byte escapes
    /// undone, line continuations and concatenated literals put together, Unicode look-alikes
    /// read as ASCII, letters standing apart read together), each
    /// view's findings replaced in the original.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        // A text that is a JSON document: first its strings, each judged with its key, as the
        // arguments of a tool call are; then the text as text.
        let mut out = match self.redact_json_text(text) {
            Some(document) => Cow::Owned(redact_with_views(&document, ENCODING_DEPTH).into_owned()),
            None => redact_with_views(text, ENCODING_DEPTH),
        };
        for secret in &self.secrets {
            if out.contains(secret.as_str()) {
                out = Cow::Owned(out.replace(secret.as_str(), REDACTED));
            }
        }
        out
    }
}

/// How many encodings deep (base64 or hex inside base64 or hex) a secret is looked for.
const ENCODING_DEPTH: u8 = 2;

/// The rules and structural finders on `text`, then on its decoded views; `depth` is how
/// many more levels of base64 or hex runs are decoded and looked into.
fn redact_with_views(text: &str, depth: u8) -> Cow<'_, str> {
    let mut out = redact_plain(text, depth);
    if !out.contains(['\\', '%', '&'])
        && !views::has_joins(&out)
        && !views::has_box_drawing(&out)
        && !blobs::has_blobs(&out)
        && !dumps::may_hold(&out)
        && !disguises::has_disguises(&out)
        && !spaced::has_spaced(&out)
    {
        return out;
    }
    // Views of the text as redacted so far: every chain of up to three decodings (JSON or PHP
    // escaping, URL encoding, HTML/XML character references, `\x` byte escapes) that changes
    // the text, in any order, so that any escaping inside any other is undone.
    let views = decoded_views(&out);
    let mut spans = Vec::new();
    for view in &views {
        let redacted = redact_plain(&view.text, depth);
        if redacted == view.text {
            continue;
        }
        match views::replaced(&view.text, &redacted) {
            Some(found) => spans.extend(found.into_iter().map(|span| view.source(span))),
            None => spans.push(view.source(0..view.text.len())),
        }
    }
    if !spans.is_empty() {
        out = Cow::Owned(replace_spans(&out, structure::merge(spans)));
    }
    out
}

/// How many decodings deep a chain of views goes, and how many views a text gets at most.
const VIEW_DEPTH: usize = 3;
const MAX_VIEWS: usize = 16;

/// The distinct views of `text` reached by chains of up to [`VIEW_DEPTH`] decodings, each
/// changing the text (at most [`MAX_VIEWS`]).
fn decoded_views(text: &str) -> Vec<views::View> {
    use views::Decoding;
    const ALL: [Decoding; 12] = [
        Decoding::JsonEscapes,
        Decoding::Url,
        Decoding::QueryLines,
        Decoding::Entities,
        Decoding::ByteEscapes,
        Decoding::WrittenBytes,
        Decoding::Joined,
        Decoding::BoxDrawing,
        Decoding::Blobs,
        Decoding::Nuls,
        Decoding::Disguises,
        Decoding::Spaced,
    ];
    let mut seen: Vec<String> = vec![text.to_owned()];
    let mut out: Vec<views::View> = Vec::new();
    let mut frontier = vec![views::View::identity(text)];
    for _ in 0..VIEW_DEPTH {
        let mut next = Vec::new();
        for view in &frontier {
            for how in ALL {
                let Some(decoded) = view.decode(how) else { continue };
                if out.len() + next.len() >= MAX_VIEWS || seen.contains(&decoded.text) {
                    continue;
                }
                seen.push(decoded.text.clone());
                next.push(decoded);
            }
        }
        if next.is_empty() {
            break;
        }
        out.extend(next.iter().map(views::View::clone_view));
        frontier = next;
    }
    out
}

/// The rules, then the structural finders, on `text` as it is.
fn redact_plain(text: &str, depth: u8) -> Cow<'_, str> {
    let out = apply_rules(text, depth);
    let mut spans = structure::spans(&out);
    // A secret found once is redacted wherever else it stands in the text (`-A pw -X pw`).
    if out != text
        && let Some(found) = views::replaced(text, &out)
    {
        for span in found {
            let Some(secret) = text.get(span) else { continue };
            if secret.len() >= 6 {
                let mut from = 0;
                while let Some(at) = out[from..].find(secret) {
                    spans.push(from + at..from + at + secret.len());
                    from += at + secret.len();
                }
            }
        }
        spans = structure::merge(spans);
    }
    if spans.is_empty() { out } else { Cow::Owned(replace_spans(&out, spans)) }
}

/// `text` with each of the sorted, disjoint `spans` replaced by `[REDACTED]` (a span that
/// does not fall on character boundaries is widened to them).
fn replace_spans(text: &str, spans: Vec<std::ops::Range<usize>>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for span in spans {
        let mut start = span.start.max(at);
        let mut end = span.end.min(text.len());
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        while !text.is_char_boundary(end) {
            end += 1;
        }
        if start >= end || start < at {
            continue;
        }
        out.push_str(&text[at..start]);
        out.push_str(REDACTED);
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

/// The text with the built-in rules applied; with `depth` above 0 the rules also look inside
/// base64 and hex runs, `depth` levels deep.
fn apply_rules(text: &str, depth: u8) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(text);
    let compiled = compiled();
    let mut may_match = compiled.index.candidates(&out);
    for (number, rule) in compiled.rules.iter().enumerate() {
        if (rule.check == Check::Encoded && depth == 0) || !may_match[number] {
            continue;
        }
        if !rule.may_match(&out) {
            continue;
        }
        let Some(regex) = rule.regex() else { continue };
        if let Cow::Owned(replaced) = replace_secrets(regex, rule.check, &out, depth)
            && replaced != out
        {
            out = Cow::Owned(replaced);
            // What a rule wrote in (`[REDACTED]`, a cookie kept) may hold a later rule's
            // strings.
            may_match = compiled.index.candidates(&out);
        }
    }
    out
}

/// Whether the rules (without decoding) find a secret in `text`.
pub(crate) fn holds_secret(text: &str, depth: u8) -> bool {
    redact_with_views(text, depth) != text
}

/// Replaces the `secret` group of each match of `regex` that passes `check` (the matches are
/// those `regex::Regex::replace_all` visits: leftmost-first, without overlap).
fn replace_secrets<'a>(
    regex: &meta::Regex,
    check: Check,
    text: &'a str,
    depth: u8,
) -> Cow<'a, str> {
    let mut matches = regex.captures_iter(text).peekable();
    if matches.peek().is_none() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for captures in matches {
        let Some(whole) = captures.get_match() else { continue };
        out.push_str(&text[last..whole.start()]);
        last = whole.end();
        let Some(secret) = captures.get_group_by_name("secret") else {
            out.push_str(&text[whole.range()]);
            continue;
        };
        let before = &text[whole.start()..secret.start];
        let after = &text[secret.end..whole.end()];
        let secret = &text[secret.range()];
        if check == Check::Cookies {
            out.push_str(before);
            out.push_str(&cookie_values(secret));
            out.push_str(after);
        } else if passes(check, before, secret, after, depth) {
            out.push_str(before);
            out.push_str(REDACTED);
            out.push_str(after);
        } else {
            out.push_str(&text[whole.range()]);
        }
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod fast_path_tests;
