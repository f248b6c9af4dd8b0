//! Rules by context: a value after a secret-like name, whatever the syntax between them.
//!
//! The [`rules`](super::rules) table reads a name followed by `=`, `:`, `:=` or `=>`. These
//! rules read the other ways a syntax puts a value after a name: a space (config directives
//! such as `rocommunity …`, `auth_pass …`, `key …`, shell `set -x NAME '…'`, prose such as
//! "password to …"), a call (`.withPassword("…")`), a `name`/`value` pair (a Kubernetes or
//! ECS environment entry), a prompt answered on the next line (`expect "password:"` then
//! `send "…"`), Samba's `user%password`, a `.pgpass` line, and the values a CI log is told
//! to mask. With no `=` or `:` to mark an assignment, the value must be made like a password
//! (three of lower case, upper case, digits and symbols, or random).
//!
//! Invariant: every pattern has a `secret` group; a unit test in the parent compiles them.

use super::rules::{Check, Rule, rule};

/// The rules by context, applied after the table of [`super::rules::RULES`].
pub const RULES: &[Rule] = &[
    rule(
        "ci-masked-value",
        // GitHub Actions `::add-mask::…`, Azure Pipelines `issecret=true]…`: the tool is told
        // the value is a secret.
        r#"(?:::add-mask::|(?i:issecret=true)\])(?P<secret>[^\s"'\\]+)"#,
        Check::None,
    ),
    rule(
        "name-then-value-by-space",
        // An identifier ending in a secret word, a space (or "is", "to", "as"), a value:
        // `rocommunity …`, `auth_pass …`, `radius-server … key …`, `set -x DEPLOY_SECRET '…'`,
        // "I set the root password to …", "user admin, pass …".
        concat!(
            r#"(?i)(?:^|[\s;{(,"'`=])(?:[\w$.\-:@]*(?:password|passwd|passphrase|passcode|secret|community|credentials?|token|api[_\-]?key)|(?:[\w$.\-:@]*[_\-.:])?(?:pass|pwd|pw|psk|key))["']?"#,
            r#"[ \t]+(?:(?:is|was|to|as|now|set[ \t]+to|changed[ \t]+to|\d)[ \t]+)?["'`]?(?P<secret>[^\s"'`,;\\]{8,128})["'`]?(?:[\s,;)}\]\\]|$)"#
        ),
        Check::StrongValue,
    ),
    rule(
        "key-constructor-literal",
        // 32 bytes of hex handed to a wallet, signer or key constructor.
        r#"(?i)(?:wallet|signer|account|keypair|private[_\-]?key|secret[_\-]?key|from_?secret|from_?seed)\w*\s*\(\s*\\?["'](?P<secret>(?:0x)?[0-9a-fA-F]{64})\\?["']"#,
        Check::None,
    ),
    rule(
        "fernet-token",
        // A Fernet token: base64url of the version byte 0x80 and a timestamp (`gAAAAA…`).
        r"\b(?P<secret>gAAAAA[A-Za-z0-9_\-]{50,}={0,2})",
        Check::None,
    ),
    rule(
        "name-call-argument",
        // A setter or builder named after the secret: `.withPassword("…")`, `setApiKey('…')`.
        concat!(
            r#"(?i)(?:^|[^\w])(?P<call>[\w]*"#,
            secret_name!(),
            r#")\(\s*["'](?P<secret>[^"'\n\\]{6,256})["']\s*[,)]"#
        ),
        Check::Password,
    ),
    rule(
        "name-value-pair",
        // `- name: API_SECRET` then `value: "…"` (Kubernetes), `{"name": "DB_PASSWORD",
        // "value": "…"}` (ECS task definitions).
        concat!(
            r#"(?i)\bname\\?["']?[ \t]*[:=][ \t]*\\?["']?[\w.\-]*"#,
            secret_name!(),
            r#"[\w.\-]*\\?["']?[ \t]*,?[ \t]*(?:\r?\n|\\r?\\n)?[ \t\-]*\\?["']?value\\?["']?[ \t]*[:=][ \t]*\\?["']?(?P<secret>[^"'\n\\]{3,256})"#
        ),
        Check::AssignedValue,
    ),
    rule(
        "prompt-then-answer",
        // An `expect` script: the password prompt, then the answer sent.
        r#"(?i)(?:password|passphrase|passcode|pin)[^\n]{0,8}(?:\r?\n|\\r?\\n)[ \t]*send\s+(?:--\s+)?\\?["'](?P<secret>[^"'\n\\]{3,256})"#,
        Check::AssignedValue,
    ),
    rule(
        "samba-user-percent-password",
        // The Samba tools' `-U user%password`.
        r#"(?:^|\s)(?:-U|--user(?:name)?)[= ]["']?[^\s%"'\-][^\s%"']*%(?P<secret>[^\s"']+)"#,
        Check::AssignedValue,
    ),
    rule(
        "pgpass-format-line",
        // `host:port:database:user:password`, a line of its own.
        r"(?m)(?:^|=)[A-Za-z0-9.\-*]+:(?:\d{2,5}|\*):[^:\s]+:[^:\s]+:(?P<secret>[^\s:&]+)(?:$|&)",
        Check::AssignedValue,
    ),
];
