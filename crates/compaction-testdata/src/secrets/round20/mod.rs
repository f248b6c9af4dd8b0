//! Round 20's families: credential formats, carriers and encodings no earlier round used, each
//! written in several syntaxes so that it tests a principle rather than a string. `carriers.rs`
//! holds notebook JSON (cells and outputs), structured logs (journald export, RFC 5424
//! structured data, CEF, GELF, Windows event XML), wire dumps (`curl -v`, captures, HAR
//! name/value pairs), CI traces and masking failures (`set -x`, BuildKit, `docker history`),
//! and diffs that break a name from its value (word diffs, side by side, merge conflicts);
//! `syntax.rs` holds secrets split across literals and lines, password labels in scripts no
//! earlier round used (Tamil, Telugu, Kannada, Malayalam, Gujarati, Gurmukhi, Lao, Mongolian,
//! Kazakh, Urdu), XML whose name and value are in sibling elements or attributes, keystrokes
//! typed by UI automation, and tabular exports (`COPY … FROM stdin`, password manager CSV,
//! Redis `HGETALL` replies); `encodings.rs` holds Unicode disguises (fullwidth, mathematical
//! letters, zero-width and soft-hyphen insertions), character codes and number bases (octal,
//! binary, decimal arrays, base58), and wallet and node key files whose structure says
//! private (BIP32 `xprv`, Stellar `S…` seeds, Tendermint and Cardano key files, NEAR and Sui
//! keys, Substrate seeds).
//!
//! They were written before any rule was changed against them, and split into dev and test by
//! the same rule as every family (see the parent module).

mod carriers;
mod encodings;
mod syntax;

use super::families::Family;
use crate::random::Rng;

/// Every round 20 family.
pub(super) fn families() -> Vec<Family> {
    let mut all = carriers::FAMILIES.to_vec();
    all.extend_from_slice(syntax::FAMILIES);
    all.extend_from_slice(encodings::FAMILIES);
    all
}

/// Words people build a password on (other words than rounds 16 to 19).
const WORDS: &[&str] = &[
    "Juniper",
    "Marigold",
    "Bramble",
    "Cinder",
    "Driftwood",
    "Foxglove",
    "Glacier",
    "Hickory",
    "Kestrel",
    "Larkspur",
    "Minnow",
    "Sorrel",
];

/// A password of one of the kinds people use, from this round's words.
fn chosen_pw(rng: &mut Rng) -> String {
    super::values::chosen_password(rng, WORDS)
}

/// A chosen password half the time, a word and digits the other half.
fn any_pw(rng: &mut Rng) -> String {
    super::values::any_password(rng, WORDS)
}

/// A login name.
fn user(rng: &mut Rng) -> &'static str {
    const USERS: &[&str] =
        &["svc_sync", "release", "report_ro", "root", "nightly", "metabase", "runner", "ops_rw"];
    rng.pick::<&str>(USERS)
}

/// A host name.
fn host(rng: &mut Rng) -> &'static str {
    const HOSTS: &[&str] = &[
        "db07.corp.local",
        "10.60.3.14",
        "cache.internal",
        "api.qa.example.net",
        "mysql-primary-1",
        "broker.example.org",
    ];
    rng.pick::<&str>(HOSTS)
}
