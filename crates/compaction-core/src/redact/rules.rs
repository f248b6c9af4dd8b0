//! The table of secret rules: one named regular expression per kind of secret.
//!
//! Modelled on gitleaks' rule set (provider key prefixes, key/value assignments, URL
//! credentials, JWTs, authorization headers), written here as data. Each rule's pattern
//! captures the secret in the group named `secret`; the text around it (`password=`,
//! `postgres://user:`, `Bearer `) stays, so the summary still says what was there. A rule
//! with a [`Check`] redacts a match only when the captured value passes it, which keeps
//! code such as `token = get_token()` or `max_tokens: 4096` out of the redaction.
//!
//! Text may be JSON-escaped (a shell command inside a tool call's arguments), so a `\n`
//! escape counts as a line break before a name.
//!
//! Invariant: every pattern compiles (a unit test compiles the whole table) and has a
//! `secret` group.

/// What a captured value must look like for the match to be redacted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// Always redact: the pattern alone is specific enough (a provider's key format).
    None,
    /// A value assigned to a secret-looking name: redact unless it is a reference to
    /// something else (a variable, a call, a placeholder, `null`, a type name).
    AssignedValue,
    /// A value found near a secret-looking word without an assignment: redact only when
    /// it looks random (letters and digits mixed, high character entropy).
    HighEntropy,
}

/// One kind of secret.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// A stable name, for tests and reports (gitleaks' id where one exists).
    pub name: &'static str,
    /// The pattern; the secret is the group named `secret`.
    pub pattern: &'static str,
    /// What the captured value must satisfy.
    pub check: Check,
}

const fn rule(name: &'static str, pattern: &'static str, check: Check) -> Rule {
    Rule { name, pattern, check }
}

/// Name endings that mark the value assigned to a name as a secret, as a regex group
/// (the pattern is case-insensitive; `_KEY` only counts in upper case, as in `.env` files,
/// so `cache_key` or `primary_key` in code do not).
macro_rules! secret_name {
    () => {
        r"(?:password|passwd|passphrase|pwd|[_\-.]pass|secret|secret[_\-]?key|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|signing[_\-]?key|encryption[_\-]?key|master[_\-]?key|client[_\-]?key|auth[_\-]?key|license[_\-]?key|account[_\-]?key|credentials?|(?-i:[A-Z0-9]_KEY))"
    };
}

/// The rules, most specific first (a value redacted by one rule is not seen by later ones).
pub const RULES: &[Rule] = &[
    rule(
        "private-key",
        r"(?s)(?P<secret>-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|\z))",
        Check::None,
    ),
    rule("anthropic-api-key", r"\b(?P<secret>sk-ant-[a-z0-9]+-[A-Za-z0-9_\-]{20,})", Check::None),
    rule(
        "openai-api-key",
        r"\b(?P<secret>sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,})",
        Check::None,
    ),
    rule(
        "aws-access-key-id",
        r"\b(?P<secret>(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})\b",
        Check::None,
    ),
    rule(
        "aws-secret-access-key",
        r#"(?i)aws_?secret_?(?:access_?)?key["'\\]*\s*(?:=|:)\s*["'\\]*(?P<secret>[A-Za-z0-9/+]{40})\b"#,
        Check::None,
    ),
    rule("github-token", r"\b(?P<secret>gh[pousr]_[A-Za-z0-9]{36,255})\b", Check::None),
    rule(
        "github-fine-grained-pat",
        r"\b(?P<secret>github_pat_[A-Za-z0-9_]{22,255})\b",
        Check::None,
    ),
    rule(
        "gitlab-token",
        r"\b(?P<secret>gl(?:pat|dt|rt|ptt|cbt|imt|oas|soat|ffct|ft)-[A-Za-z0-9_\-]{20,})",
        Check::None,
    ),
    rule("slack-token", r"\b(?P<secret>xox[abposre]-[A-Za-z0-9\-]{10,})", Check::None),
    rule("slack-app-token", r"\b(?P<secret>xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+)", Check::None),
    rule(
        "slack-webhook-url",
        r"(?P<secret>https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_\-]{20,})",
        Check::None,
    ),
    rule(
        "stripe-secret-key",
        r"\b(?P<secret>(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,99})\b",
        Check::None,
    ),
    rule("stripe-webhook-secret", r"\b(?P<secret>whsec_[A-Za-z0-9+/=]{20,})", Check::None),
    rule("google-api-key", r"\b(?P<secret>AIza[0-9A-Za-z_\-]{35})", Check::None),
    rule("google-oauth-client-secret", r"\b(?P<secret>GOCSPX-[A-Za-z0-9_\-]{20,})", Check::None),
    rule("google-oauth-access-token", r"\b(?P<secret>ya29\.[0-9A-Za-z_\-]{20,})", Check::None),
    rule("npm-token", r"\b(?P<secret>npm_[A-Za-z0-9]{36})\b", Check::None),
    rule("pypi-token", r"\b(?P<secret>pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{40,})", Check::None),
    rule("huggingface-token", r"\b(?P<secret>hf_[A-Za-z0-9]{30,})\b", Check::None),
    rule("twilio-api-key", r"\b(?P<secret>SK[0-9a-fA-F]{32})\b", Check::None),
    rule(
        "sendgrid-api-key",
        r"\b(?P<secret>SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{30,64})",
        Check::None,
    ),
    rule("mailgun-api-key", r"\b(?P<secret>key-[0-9a-f]{32})\b", Check::None),
    rule("digitalocean-token", r"\b(?P<secret>do[opr]_v1_[a-f0-9]{64})\b", Check::None),
    rule("shopify-token", r"\b(?P<secret>shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})\b", Check::None),
    rule("databricks-token", r"\b(?P<secret>dapi[a-f0-9]{32})\b", Check::None),
    rule(
        "jwt",
        r"\b(?P<secret>eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*)",
        Check::None,
    ),
    rule(
        "url-password",
        r#"\b[A-Za-z][A-Za-z0-9+.\-]{1,20}://[^\s:/@"'<>\\]{0,128}:(?P<secret>[^\s@/"'<>\\]{1,256})@"#,
        Check::None,
    ),
    rule(
        "url-query-secret",
        r#"(?i)[?&;](?:password|passwd|pwd|pass|token|access_token|refresh_token|id_token|auth_token|api_key|apikey|secret|client_secret|sig|signature|x-amz-signature|x-amz-security-token)=(?P<secret>[^&\s"'#<>\\]{3,})"#,
        Check::None,
    ),
    rule(
        "authorization-header",
        r#"(?i)\b(?:proxy-)?authorization["'\\]*\s*[:=]\s*["'\\]*(?:bearer|basic|token|digest|apikey|bot)\s+(?P<secret>[A-Za-z0-9._~+/\-]{8,}=*)"#,
        Check::None,
    ),
    rule("bearer-token", r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/\-]{16,}=*)", Check::None),
    rule(
        "api-key-header",
        r#"(?i)\b(?:x-api-key|api-key|x-auth-token|x-access-token|private-token|x-goog-api-key)["'\\]*\s*:\s*["'\\]*(?P<secret>[A-Za-z0-9._~+/\-]{8,}=*)"#,
        Check::None,
    ),
    rule(
        "curl-user-password",
        r#"(?:^|\s)(?:-u|--user)\s*["']?[^\s:"']{1,64}:(?P<secret>[^\s"']{1,128})"#,
        Check::None,
    ),
    rule(
        "cli-secret-flag",
        r#"(?i)(?:^|\s)--(?:password|passwd|pass|token|api-key|apikey|secret|client-secret|auth-token)(?:=|[ \t]+)["']?(?P<secret>[^\s"'\\]{3,})"#,
        Check::AssignedValue,
    ),
    rule(
        "mysql-password-flag",
        r"\b(?:mysql|mysqldump|mysqladmin|mysqlimport)\b[^\n]*?[ \t]-p(?P<secret>[^\s\-\\][^\s\\]*)",
        Check::None,
    ),
    rule(
        "secret-assignment-double-quoted",
        concat!(
            r#"(?mi)(?:^|\\[nrt]|[^A-Za-z0-9_\-.])["'\\]*[A-Za-z0-9_\-.]*"#,
            secret_name!(),
            r#"["'\\]*[ \t]*(?::=|=>|=|:)[ \t]*\\?"(?P<secret>[^"\\\n]{3,256})\\?""#
        ),
        Check::AssignedValue,
    ),
    rule(
        "secret-assignment-single-quoted",
        concat!(
            r#"(?mi)(?:^|\\[nrt]|[^A-Za-z0-9_\-.])["'\\]*[A-Za-z0-9_\-.]*"#,
            secret_name!(),
            r#"["'\\]*[ \t]*(?::=|=>|=|:)[ \t]*'(?P<secret>[^'\\\n]{3,256})'"#
        ),
        Check::AssignedValue,
    ),
    rule(
        "secret-assignment",
        concat!(
            r#"(?mi)(?:^|\\[nrt]|[^A-Za-z0-9_\-.])["'\\]*[A-Za-z0-9_\-.]*"#,
            secret_name!(),
            r#"["'\\]*[ \t]*(?::=|=>|=|:)[ \t]*(?P<secret>[^\s"'`,;\\]{3,256})"#
        ),
        Check::AssignedValue,
    ),
    rule(
        "env-secret-inside-name",
        // `SECRET_KEY_BASE=…`, `PASSWORD_PEPPER=…`: an upper-case name holding a secret
        // word anywhere, with a random-looking value.
        r"(?m)(?:^|\\[nrt]|[^A-Za-z0-9_])[A-Z0-9_]*(?:SECRET|PASSWORD|PASSWD|TOKEN|PRIVATE_KEY|API_KEY)[A-Z0-9_]*[ \t]*[=:][ \t]*[\x22']?(?P<secret>[A-Za-z0-9+/_\-.=]{8,})",
        Check::HighEntropy,
    ),
    rule(
        "secret-near-word",
        r#"(?i)\b(?:api[ _\-]?key|secret|token|password|passwd|credential|access[ _\-]?key|private[ _\-]?key)s?\b[^\n]{0,24}?[\s:="'(\\](?P<secret>[A-Za-z0-9+/_\-]{20,}={0,2})"#,
        Check::HighEntropy,
    ),
];
