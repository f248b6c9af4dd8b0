//! Rules for credentials in the commands of wire protocols and chat, as captures, client logs
//! and chat show them: a command of logging in given a user and a password (IMAP's `tag LOGIN
//! user password`, IRC's `/oper`, NickServ's `IDENTIFY`, a bot's `!login`), and Redis's `AUTH`
//! in RESP framing (`*2\r\n$4\r\nAUTH\r\n$N\r\n…`, with the line breaks written out or as
//! escapes). The protocol says which
//! argument is the password, so no name is needed.
//!
//! Invariant: every pattern has a `secret` group; a unit test in the parent compiles them.

use super::rules::{Check, Rule, rule};

/// The rules of wire protocols, applied after the rules by context.
pub const RULES: &[Rule] = &[
    rule(
        "login-command-user-password",
        // A command of logging in, given a user and then a password: IMAP's `a001 LOGIN user
        // "…"` (a tag holding a digit before the verb), IRC's `/oper user …`, NickServ's
        // `/msg NickServ IDENTIFY user …`, a chat bot's `!login user …`. The command says
        // the last argument is a password, so words and a number count.
        r#"(?:^|[\s:>\]"'`])(?:[A-Za-z]{0,4}\d{1,6}[ \t]+|[/!.](?i:msg[ \t]+nickserv[ \t]+|ns[ \t]+)?)(?i:login|oper|identify|auth|authenticate|signin)[ \t]+"?[^\s"]+"?[ \t]+"?(?P<secret>[^\s"]{6,})"?"#,
        Check::PasswordValue,
    ),
    rule(
        "resp-auth-frame",
        // A Redis `AUTH [user] password` command as RESP: each argument a `$length` line,
        // then the argument; the last argument is the password.
        r#"(?i)\$4(?:\\r\\n|\r?\n)AUTH(?:\\r\\n|\r?\n)(?:\$\d{1,3}(?:\\r\\n|\r?\n)[^\r\n\\]{1,64}(?:\\r\\n|\r?\n))?\$\d{1,3}(?:\\r\\n|\r?\n)(?P<secret>[^\r\n\\]{1,512})"#,
        Check::None,
    ),
];
