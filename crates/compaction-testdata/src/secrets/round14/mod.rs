//! Round 14's families: credentials in classes round 13 left open and in carriers no earlier
//! family or rule was written for. `names.rs` holds values placed against a name in ways no
//! family had (raw HTTP requests and header arguments, a name and its value in two fields of a
//! record, labels in scripts no list had, values before a name in code, secrets piped to a
//! command's input, expanded and grid table rows, a secret as a bare argument of a crypto or
//! login call, a neutral key under a secret-named section); `carriers.rs` holds carriers
//! nobody wrote yet (service manager environments, colon-separated credential files, build
//! DSLs, struct dumps in logs, framework request dumps, JSON outputs of infrastructure tools,
//! DSNs with no scheme, defaults of environment lookups, SOAP envelopes, user-admin statements
//! of more databases); `shapes.rs` holds values found by their shape or through an encoding
//! (lists of generated passwords, grouped product keys, data URIs and encoded parameters,
//! vault init output and key abbreviations, accented passwords in files, inline code in
//! Markdown, capitalized word passphrases, notification e-mails).
//!
//! They were written before any rule was changed against them, and split into dev and test by
//! the same rule as every family (see the parent module).

mod carriers;
mod names;
mod shapes;

use super::families::Family;
use super::values::password;
use crate::random::Rng;

/// Every round 14 family.
pub(super) fn families() -> Vec<Family> {
    let mut all = names::FAMILIES.to_vec();
    all.extend_from_slice(carriers::FAMILIES);
    all.extend_from_slice(shapes::FAMILIES);
    all
}

/// A password that fits inside a quoted string of any syntax and on a shell line (no quotes,
/// backslashes, `$`, backticks, braces, brackets, commas, semicolons, spaces, `&`, `%`, `#`,
/// `:`, `@`, `|`, `<`, `>`, `/`, `!`, `*` or `=`).
fn plain_pw(rng: &mut Rng) -> String {
    password(rng).replace(
        [
            '"', '\'', '\\', '$', '`', '{', '}', '[', ']', ',', ';', ' ', '&', '%', '#', ':', '@',
            '/', '|', '<', '>', '!', '*', '=',
        ],
        "x",
    )
}
