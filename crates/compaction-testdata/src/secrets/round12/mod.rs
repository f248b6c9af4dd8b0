//! Round 12's families: credentials in formats and contexts no family or rule of earlier rounds
//! was written for. `views.rs` holds how files and data are shown and changed (line-numbered
//! views, commented-out lines, Markdown/wiki/org tables, document markup fields, query result
//! tables, SQL `COPY` blocks, key/value tables of CLIs, git config and patch output, apply_patch
//! bodies, test failure diffs, panics and crash messages, template languages); `configs.rs`
//! holds configs and code (OS installer answer files, VoIP accounts, YAML anchors and complex
//! keys, HCL heredocs and functions, Swift/Objective-C/Dart, less common languages' constants,
//! positional credential arguments, Jenkins pipelines, Android and Firebase resources, BMC and
//! VNC consoles); `values.rs` holds unusual values and carriers (numeric PINs, word
//! passphrases, Unicode passwords, inflected prose in more languages, CI workflow commands, RPC
//! metadata in code, further text encodings, chat and IRC commands, OS keyrings, pair tuples
//! and map constructors).
//!
//! They were written before any rule was changed against them, and split into dev and test by
//! the same rule as every family (see the parent module).

mod configs;
mod values;
mod views;

use super::families::Family;
use super::values::password;
use crate::random::Rng;

/// Every round 12 family.
pub(super) fn families() -> Vec<Family> {
    let mut all = views::FAMILIES.to_vec();
    all.extend_from_slice(configs::FAMILIES);
    all.extend_from_slice(values::FAMILIES);
    all
}

/// A password that fits inside a quoted string of any syntax (no quotes, backslashes, `$`,
/// backticks, braces, brackets, commas, semicolons, spaces, `&`, `%`, `#`, `:`, `@`, `|`, `<`,
/// `>` or `/`).
fn plain_pw(rng: &mut Rng) -> String {
    password(rng).replace(
        [
            '"', '\'', '\\', '$', '`', '{', '}', '[', ']', ',', ';', ' ', '&', '%', '#', ':', '@',
            '/', '|', '<', '>',
        ],
        "x",
    )
}
