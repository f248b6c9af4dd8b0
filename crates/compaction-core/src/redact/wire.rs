//! Rules for credentials in the commands of wire protocols, as captures and client logs show
//! them: IMAP's `tag LOGIN user password` and Redis's `AUTH` in RESP framing (`*2\r\n$4\r\n
//! AUTH\r\n$N\r\n…`, with the line breaks written out or as escapes). The protocol says which
//! argument is the password, so no name is needed.
//!
//! Invariant: every pattern has a `secret` group; a unit test in the parent compiles them.

use super::rules::{Check, Rule, rule};

/// The rules of wire protocols, applied after the rules by context.
pub const RULES: &[Rule] = &[
    rule(
        "imap-login-command",
        // `a001 LOGIN user "password"`: a tag holding a digit, the verb, a user, the password.
        r#"(?:^|[\s:>\]])[A-Za-z]{0,4}\d{1,6}\s+(?:LOGIN|login)\s+"?[^\s"]+"?\s+"?(?P<secret>[^\s"]{4,})"?"#,
        Check::AssignedValue,
    ),
    rule(
        "resp-auth-frame",
        // A Redis `AUTH [user] password` command as RESP: each argument a `$length` line,
        // then the argument; the last argument is the password.
        r#"(?i)\$4(?:\\r\\n|\r?\n)AUTH(?:\\r\\n|\r?\n)(?:\$\d{1,3}(?:\\r\\n|\r?\n)[^\r\n\\]{1,64}(?:\\r\\n|\r?\n))?\$\d{1,3}(?:\\r\\n|\r?\n)(?P<secret>[^\r\n\\]{1,512})"#,
        Check::None,
    ),
];
