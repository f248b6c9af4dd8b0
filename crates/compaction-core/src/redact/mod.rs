//! Redaction of secrets from every text that leaves for a summarizing model.
//!
//! The rules are a table of named patterns ([`rules`]), modelled on gitleaks' rule set:
//! provider key formats (AWS, GitHub, GitLab, Slack, Stripe, OpenAI, Anthropic, Google, npm,
//! PyPI, Hugging Face, Twilio, SendGrid, …), private key blocks, JWTs, credentials in URLs
//! and authorization headers, values assigned to secret-looking names in env, YAML, JSON,
//! TOML and code, and random-looking values next to secret-looking words. No maintained
//! crate of such rules fits a pure, synchronous core on this toolchain, so the table is
//! written here as data. Besides the table, a [`Redactor`] replaces exact configured values
//! (the API keys in use).
//!
//! Invariant: a redacted text holds `[REDACTED]` in place of each secret the rules find and
//! is otherwise unchanged; the words around a secret (`password=`, `Bearer `,
//! `postgres://user:`) stay, so a summary can still say a secret was there.

pub mod rules;

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::{Captures, Regex, RegexSet};

use rules::{Check, RULES};

/// The names of the built-in rules, in the order they are applied.
pub fn rule_names() -> impl Iterator<Item = &'static str> {
    RULES.iter().map(|rule| rule.name)
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

/// The compiled rule table: a set that tells which rules match at all (one pass over the
/// text), and each rule's own pattern for the replacement.
struct Compiled {
    set: RegexSet,
    rules: Vec<(Regex, Check)>,
}

/// Word boundaries are ASCII ones: Unicode boundaries would push the regex engine off its
/// fast path on non-ASCII text, and every rule anchors on ASCII key material.
fn ascii_boundaries(pattern: &str) -> String {
    pattern.replace(r"\b", r"(?-u:\b)")
}

fn compiled() -> Option<&'static Compiled> {
    static COMPILED: OnceLock<Option<Compiled>> = OnceLock::new();
    COMPILED
        .get_or_init(|| {
            let patterns: Vec<String> =
                RULES.iter().map(|rule| ascii_boundaries(rule.pattern)).collect();
            let set = RegexSet::new(&patterns).ok()?;
            let rules = patterns
                .iter()
                .zip(RULES)
                .map(|(pattern, rule)| Regex::new(pattern).ok().map(|regex| (regex, rule.check)))
                .collect::<Option<Vec<_>>>()?;
            // The patterns are constants; a unit test checks that they all compile.
            Some(Compiled { set, rules })
        })
        .as_ref()
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

    /// The text with every known secret replaced by `[REDACTED]`.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        if let Some(compiled) = compiled() {
            let matched = compiled.set.matches(text);
            for index in matched.iter() {
                let Some((regex, check)) = compiled.rules.get(index) else { continue };
                if let Cow::Owned(replaced) = replace_secrets(regex, *check, &out) {
                    out = Cow::Owned(replaced);
                }
            }
        }
        for secret in &self.secrets {
            if out.contains(secret.as_str()) {
                out = Cow::Owned(out.replace(secret.as_str(), REDACTED));
            }
        }
        out
    }
}

/// Replaces the `secret` group of each match of `regex` that passes `check`.
fn replace_secrets<'a>(regex: &Regex, check: Check, text: &'a str) -> Cow<'a, str> {
    regex.replace_all(text, |captures: &Captures<'_>| {
        let whole = captures.get(0).map_or("", |m| m.as_str());
        let Some(secret) = captures.name("secret") else { return whole.to_owned() };
        let start = captures.get(0).map_or(0, |m| m.start());
        let before = &whole[..secret.start() - start];
        if !passes(check, before, secret.as_str()) {
            return whole.to_owned();
        }
        let after = &whole[secret.end() - start..];
        format!("{before}{REDACTED}{after}")
    })
}

/// Whether the match whose secret is `value`, preceded by `before`, is redacted.
fn passes(check: Check, before: &str, value: &str) -> bool {
    match check {
        Check::None => true,
        Check::AssignedValue if is_env_assignment(before) => !is_env_reference(value),
        Check::AssignedValue => !is_reference(value),
        Check::HighEntropy => looks_random(value),
    }
}

/// Whether the text before a value is a `.env`/shell assignment (`DB_PASSWORD=`,
/// `export API_TOKEN="`): an upper-case name, `=`, no spaces. Such values are literals
/// (no code around them), so only references like `$VAR` are left alone.
fn is_env_assignment(before: &str) -> bool {
    let before = before.trim_end_matches(['"', '\'', '\\']);
    let Some(name) = before.strip_suffix('=') else { return false };
    // Skip what came before the name: a separator, or a JSON escape such as `\n`.
    let mut name = name;
    loop {
        name =
            name.trim_start_matches(|c: char| !c.is_ascii_alphanumeric() && c != '_' && c != '\\');
        match name.strip_prefix('\\') {
            Some(escaped) => name = escaped.get(1..).unwrap_or_default(),
            None => break,
        }
    }
    let name = name.strip_prefix("export ").unwrap_or(name);
    !name.is_empty()
        && name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// A `.env` value that points elsewhere: `$VAR`, `${VAR}`, `%VAR%`, a placeholder.
fn is_env_reference(value: &str) -> bool {
    value.starts_with(['$', '%', '<', '{'])
        || value.starts_with(REDACTED)
        || value.chars().all(|c| matches!(c, 'x' | 'X' | '*' | '.' | '…' | '-' | '_' | '•'))
}

/// Words that, assigned to a secret-looking name, are not secrets themselves.
const NOT_SECRETS: &[&str] = &[
    "true",
    "false",
    "null",
    "none",
    "nil",
    "undefined",
    "yes",
    "no",
    "on",
    "off",
    "required",
    "optional",
    "string",
    "str",
    "bytes",
    "int",
    "integer",
    "bool",
    "boolean",
    "number",
    "any",
    "object",
    "secret",
    "password",
    "token",
    "value",
    "default",
    "empty",
    "redacted",
    "env",
    "self",
    "this",
    "new",
    "await",
    "function",
    "lambda",
    "return",
    "unknown",
    "missing",
    "present",
    "set",
    "unset",
    "hidden",
    "masked",
    "stdin",
    "file",
];

/// Whether a value assigned to a secret-looking name refers to something else instead of
/// being the secret: a variable, a field path, a call, a type, a placeholder, a path.
fn is_reference(value: &str) -> bool {
    let value = value.trim_end_matches([')', ']', '}', '.', ':']);
    if value.len() < 3 || value.starts_with(REDACTED) {
        return true;
    }
    let lower = value.to_ascii_lowercase();
    if NOT_SECRETS.contains(&lower.as_str()) {
        return true;
    }
    // A number (`window_token = 0.7293`, `max_token: 4096`).
    if value.chars().all(|c| c.is_ascii_digit() || c == '.' || c == '-' || c == '_') {
        return true;
    }
    let first = value.chars().next().unwrap_or(' ');
    if matches!(first, '$' | '%' | '{' | '<' | '[' | '(' | '&' | '*' | '@' | '#' | '/' | '~' | '?')
        || value.starts_with("./")
        || value.starts_with("../")
    {
        return true;
    }
    if value.contains(['(', '[', '{', '<', '>']) || value.contains("=>") || value.contains("::") {
        return true;
    }
    // Placeholders: xxxx, ****, ...., <redacted>.
    if value.chars().all(|c| matches!(c, 'x' | 'X' | '*' | '.' | '…' | '-' | '_' | '•')) {
        return true;
    }
    let identifier = |part: &str| {
        part.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    // A field path (`config.api_key`, `process.env.TOKEN`, `self.password`).
    if value.contains('.') && value.split('.').all(identifier) {
        return true;
    }
    if identifier(value) && !value.chars().any(|c| c.is_ascii_digit()) {
        // A variable named after the secret (`token = new_token`, `apiKey: apiKey`).
        let secret_words = ["pass", "pwd", "secret", "token", "key", "cred", "auth"];
        if secret_words.iter().any(|word| lower.contains(word)) {
            return true;
        }
        // A type (`token: String`, `password: SecretString`, `key: Option`).
        if is_type_name(value) {
            return true;
        }
    }
    false
}

/// `String`, `SecretString`, `HashMap` — an upper-case initial followed by lower-case
/// letters and no digits (a password rarely looks like this; a type name usually does).
fn is_type_name(value: &str) -> bool {
    let mut chars = value.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && value.chars().all(|c| c.is_ascii_alphabetic())
        && value.chars().any(|c| c.is_ascii_lowercase())
}

/// Whether a value looks randomly generated: letters and digits mixed, and at least 3.5
/// bits of character entropy (a word, a path or a version number stays below that).
fn looks_random(value: &str) -> bool {
    let value = value.trim_end_matches('=');
    let has_digit = value.chars().any(|c| c.is_ascii_digit());
    let has_letter = value.chars().any(|c| c.is_ascii_alphabetic());
    has_digit && has_letter && shannon_entropy(value) >= 3.5
}

/// Shannon entropy of the characters of `value`, in bits per character.
fn shannon_entropy(value: &str) -> f64 {
    let mut counts = [0u32; 256];
    let mut total = 0u32;
    for byte in value.bytes() {
        counts[usize::from(byte)] += 1;
        total += 1;
    }
    if total == 0 {
        return 0.0;
    }
    let total = f64::from(total);
    counts
        .iter()
        .filter(|&&count| count > 0)
        .map(|&count| {
            let p = f64::from(count) / total;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redact(text: &str) -> String {
        Redactor::default().redact(text).into_owned()
    }

    #[test]
    fn every_rule_compiles_and_captures_a_secret() {
        for rule in RULES {
            let regex = Regex::new(&ascii_boundaries(rule.pattern))
                .unwrap_or_else(|error| panic!("{}: {error}", rule.name));
            assert!(
                regex.capture_names().any(|name| name == Some("secret")),
                "{} has no secret group",
                rule.name
            );
        }
        assert!(compiled().is_some());
        let mut names: Vec<&str> = RULES.iter().map(|rule| rule.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), RULES.len(), "rule names are unique");
    }

    #[test]
    fn secrets_are_replaced_and_their_context_kept() {
        let cases = [
            ("key sk-abcdefghijklmnopqrstuvwxyz012345 end", "key [REDACTED] end"),
            ("aws AKIAIOSFODNN7EXAMPLE x", "aws [REDACTED] x"),
            (
                "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "aws_secret_access_key = [REDACTED]",
            ),
            (
                "DATABASE_URL=postgres://app:s3cr3t-pw@db:5432/app",
                "DATABASE_URL=postgres://app:[REDACTED]@db:5432/app",
            ),
            (
                "GET /login?user=bob&password=hunter2 HTTP/1.1",
                "GET /login?user=bob&password=[REDACTED] HTTP/1.1",
            ),
            ("DB_PASSWORD=hunter2", "DB_PASSWORD=[REDACTED]"),
            ("password: \"correct horse\"", "password: \"[REDACTED]\""),
            ("Authorization: Bearer abcdefghijklmnop.qrstu", "Authorization: Bearer [REDACTED]"),
            ("Authorization: Basic YWRtaW46aHVudGVyMg==", "Authorization: Basic [REDACTED]"),
            ("curl -u admin:hunter2 https://x", "curl -u admin:[REDACTED] https://x"),
            (
                "-----BEGIN RSA PRIVATE KEY-----\nMIIE\nabc\n-----END RSA PRIVATE KEY-----",
                "[REDACTED]",
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(redact(input), expected, "{input}");
        }
    }

    #[test]
    fn references_and_code_are_not_secrets() {
        for text in [
            "token = get_token()",
            "let token: String = read();",
            "const apiKey = process.env.API_KEY;",
            "password = user_password",
            "\"maxTokens\": 4096, \"keepRecentTokens\": 20000",
            "cache_key: \"user:123\"",
            "primary_key = id",
            "secret: true",
            "DB_PASSWORD=${DB_PASSWORD}",
            "api_key: Option<SecretString>,",
            "pub password: SecretString,",
            "commit 3f786850e387550fdab836ed7e6dc881de23001b",
            "id 550e8400-e29b-41d4-a716-446655440000",
        ] {
            assert_eq!(redact(text), text);
        }
    }

    #[test]
    fn configured_values_are_replaced_verbatim() {
        let redactor = Redactor::new(["my-configured-key-123".to_owned(), "short".to_owned()]);
        assert_eq!(redactor.redact("uses my-configured-key-123 here"), "uses [REDACTED] here");
        assert_eq!(redactor.redact("a short word"), "a short word");
    }

    #[test]
    fn entropy_separates_random_values_from_words() {
        assert!(looks_random("9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c"));
        assert!(!looks_random("src/compaction/summarizer_module"));
        assert!(!looks_random("aaaaaaaaaaaaaaaaaaaa1"));
    }
}
