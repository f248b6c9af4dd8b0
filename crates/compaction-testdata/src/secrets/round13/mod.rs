//! Round 13's families: credentials in classes round 12 left open and in formats no family or
//! rule of earlier rounds was written for. `values.rs` holds unusual values after a name
//! (numeric PINs in more syntaxes, word passphrases in tools and configs, Unicode and CJK
//! passwords in commands and connection strings, names in languages no list had);
//! `layouts.rs` holds where the value sits against its name (continued on the next line by a
//! shell `\` or a YAML multi-line scalar, split into concatenated literals, placed before its
//! name, on the line after a label, after a blank line in a multipart body, in the next chat
//! message, printed by a tool with no name at all, echoed after an interactive prompt);
//! `formats.rs` holds carriers nobody wrote yet (assembly and IR string constants, SQL crypto
//! functions and `CREATE SECRET`, jq/yq/dasel/crudini edits, meeting invites and vCards,
//! OCR'd and PDF-extracted text, unusual separators and dot leaders, spreadsheet formulas,
//! banner boxes, serial console sessions, Windows answer dialogs, systemd-ask-password, Emacs
//! authinfo and netrc-like lines in other tools).
//!
//! They were written before any rule was changed against them, and split into dev and test by
//! the same rule as every family (see the parent module).

mod formats;
mod layouts;
mod values;

use super::families::{Carrier, Family, Made};
use super::values::password;
use crate::random::Rng;

/// Every round 13 family.
pub(super) fn families() -> Vec<Family> {
    let mut all = values::FAMILIES.to_vec();
    all.extend_from_slice(layouts::FAMILIES);
    all.extend_from_slice(formats::FAMILIES);
    all
}

/// A password that fits inside a quoted string of any syntax and on a shell line (no quotes,
/// backslashes, `$`, backticks, braces, brackets, commas, semicolons, spaces, `&`, `%`, `#`,
/// `:`, `@`, `|`, `<`, `>`, `/`, `!` or `*`).
fn plain_pw(rng: &mut Rng) -> String {
    password(rng).replace(
        [
            '"', '\'', '\\', '$', '`', '{', '}', '[', ']', ',', ';', ' ', '&', '%', '#', ':', '@',
            '/', '|', '<', '>', '!', '*',
        ],
        "x",
    )
}

/// A text carrying `secret` split in parts: each part must not survive.
fn split_text(secret: String, parts: Vec<String>, line: String) -> Made {
    Made { needles: parts, secret, carrier: Carrier::Text(line) }
}
