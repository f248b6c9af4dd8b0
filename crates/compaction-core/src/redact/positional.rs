//! A credential given as a positional argument: in a call's or a list's arguments written as
//! string literals (`Credentials("Nexus", "nexus.acme.dev", "deploy", "…")`,
//! `mysqli_connect("localhost", "shop", "…")`, `ftp.login('deploy', '…')`, a JSON-RPC
//! `"params":["ops","…"]`), a literal after another argument that is made like a password.
//! No name says what the argument is; its place after others (a host, a user) and its make
//! do.
//!
//! Invariant: a range covers one literal's content, never its quotes; the first literal of
//! a list is never taken.

use std::ops::Range;

use super::checks::passes;
use super::rules::Check;

/// How far after an opening bracket the arguments are read, in bytes.
const REACH: usize = 400;

/// Ranges of `text` holding a literal made like a password that follows another argument
/// (a literal, a name or a number) in one argument list.
pub(super) fn literal_arguments(text: &str, out: &mut Vec<Range<usize>>) {
    let bytes = text.as_bytes();
    // A cheap test first: two quoted literals in a row.
    if !text.contains("\", \"")
        && !text.contains("', '")
        && !text.contains("\",\"")
        && !text.contains("','")
    {
        return;
    }
    let mut at = 0;
    while let Some(found) = text[at..].find(['(', '[']) {
        let open = at + found;
        at = open + 1;
        let close = if bytes[open] == b'(' { b')' } else { b']' };
        let mut literals: Vec<Range<usize>> = Vec::new();
        let mut cursor = open + 1;
        let mut limit = bytes.len().min(open + REACH);
        while !text.is_char_boundary(limit) {
            limit -= 1;
        }
        let mut complete = false;
        let mut arguments = 0;
        while cursor < limit {
            while cursor < limit && bytes[cursor] == b' ' {
                cursor += 1;
            }
            let Some(&quote) = bytes.get(cursor) else { break };
            if quote != b'"' && quote != b'\'' {
                // A name or a number as an argument (`url`, `cfg.host`, `3306`): skipped.
                let name = bytes[cursor..limit]
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'$'))
                    .count();
                if name == 0 || bytes.get(cursor + name) != Some(&b',') {
                    break;
                }
                arguments += 1;
                cursor += name + 1;
                continue;
            }
            let start = cursor + 1;
            let Some(length) = text[start..limit].find(char::from(quote)) else { break };
            let end = start + length;
            if text[start..end].contains(['\\', '\n']) {
                break;
            }
            if arguments > 0 {
                literals.push(start..end);
            }
            arguments += 1;
            cursor = end + 1;
            while cursor < limit && bytes[cursor] == b' ' {
                cursor += 1;
            }
            match bytes.get(cursor) {
                Some(b',') => cursor += 1,
                Some(&byte) if byte == close => {
                    complete = true;
                    break;
                }
                _ => break,
            }
        }
        if !complete {
            continue;
        }
        for literal in &literals {
            let value = &text[literal.clone()];
            // A message or a phrase has spaces, a chosen or generated password a digit;
            // padding ends base64 data; a character reference (`all&#x00E9;e`) is a word of
            // text in markup.
            if value.contains(char::is_whitespace)
                || !value.contains(|c: char| c.is_ascii_digit())
                || value.ends_with('=')
                || value.contains("&#")
            {
                continue;
            }
            if passes(Check::StrongValue, "", value, "", 0) {
                out.push(literal.clone());
            }
        }
        at = cursor.max(at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        literal_arguments(text, &mut out);
        out.into_iter().map(|span| &text[span]).collect()
    }

    #[test]
    fn a_password_like_literal_after_another_argument_is_found() {
        assert_eq!(
            found(
                "Credentials(\"Sonatype Nexus\", \"nexus.acme.dev\", \"deploy\", \"6bLnXcGOyUGY\")"
            ),
            ["6bLnXcGOyUGY"]
        );
        assert_eq!(
            found("$l = mysqli_connect('localhost', 'shop', 'Tulip!2231maple');"),
            ["Tulip!2231maple"]
        );
        assert_eq!(
            found("{\"method\":\"auth.login\",\"params\":[\"ops\",\"Qz8!rT2vLp\"]}"),
            ["Qz8!rT2vLp"]
        );
        assert_eq!(
            found("DriverManager.getConnection(url, \"app\", \"Tq8#mzLp2x\");"),
            ["Tq8#mzLp2x"]
        );
    }

    #[test]
    fn ordinary_argument_lists_stay() {
        for text in [
            "t.Run(\"parses\", \"hello world\")",
            "encode(\"UTF-8\", \"ISO-8859-1\")",
            "route(\"GET\", \"/api/v1/users\")",
            "f(\"Qz8!rT2vLp\")",
            "printf(\"%s\", \"x\")",
            "[\"alpha\", \"beta\", \"gamma\"]",
            "connect(\"db\", user, \"Qz8!rT2vLp\" + suffix)",
            // Look-alikes of the large corpus (Node's docs).
            "assert.strictEqual('Hello foobar', 'Hello World!');",
            "const buf = Buffer.alloc(11, 'aGVsbG8gd29ybGQ=', 'base64');",
            "const successMessage = styleText('green', 'Success!');",
            "const errorMessage = styleText('red', 'Error! Error!');",
            "  * verb forms (\"all&#x00E9;\", \"all&#x00E9;e\").",
            // The reach ends inside a character.
            &format!("f(\"a\", \"x{}\")", "→".repeat(200)),
            "route(method, \"/v1/Users2\")",
        ] {
            assert!(found(text).is_empty(), "{text}: {:?}", found(text));
        }
    }
}
