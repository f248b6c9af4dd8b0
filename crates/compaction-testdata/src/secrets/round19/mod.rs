//! Round 19's families: credential formats, carriers and encodings no earlier round used, each
//! written in several syntaxes so that it tests a principle rather than a string. `carriers.rs`
//! holds CLI tables drawn with box-drawing characters, quoted e-mail replies, ORM and driver
//! logs of bound parameters, tracing span attributes and error-tracker breadcrumbs, and
//! `.http`/Bruno/Hoppscotch request files; `syntax.rs` holds the quoting forms of Perl, Ruby,
//! Rust, C#, Python and PHP, JSON5/HJSON and flow mappings, shell process substitution and file
//! descriptor feeds, kubeconfig `exec` environments and `auth-provider` configs, and compound or
//! inflected words for a password in several languages; `encodings.rs` holds Ascii85, Base85,
//! uuencode and base32hex blobs, trivially obfuscated literals (rot13, reversed, shifted),
//! passwords spelled out character by character, UTF-16 text seen as bytes, and provider
//! tokens with 2025–2026 prefixes.
//!
//! They were written before any rule was changed against them, and split into dev and test by
//! the same rule as every family (see the parent module).

mod carriers;
mod encodings;
mod syntax;

use super::families::Family;
use crate::random::Rng;

/// Every round 19 family.
pub(super) fn families() -> Vec<Family> {
    let mut all = carriers::FAMILIES.to_vec();
    all.extend_from_slice(syntax::FAMILIES);
    all.extend_from_slice(encodings::FAMILIES);
    all
}

/// Words people build a password on (other words than rounds 16 to 18).
const WORDS: &[&str] = &[
    "Pelican", "Saffron", "Quarry", "Walnut", "Harbor", "Lantern", "Mosaic", "Nebula", "Oyster",
    "Pumice", "Raven", "Tamarind",
];

/// A password of one of the kinds people use, from this round's words.
fn chosen_pw(rng: &mut Rng) -> String {
    super::values::chosen_password(rng, WORDS)
}

/// A password of a word and digits only, from this round's words.
fn word_pw(rng: &mut Rng) -> String {
    super::values::word_and_digits(rng, WORDS)
}

/// A login name.
fn user(rng: &mut Rng) -> &'static str {
    const USERS: &[&str] =
        &["svc_api", "deployer", "etl_ro", "admin", "backup", "grafana", "ci", "app_rw"];
    rng.pick::<&str>(USERS)
}

/// A host name.
fn host(rng: &mut Rng) -> &'static str {
    const HOSTS: &[&str] = &[
        "db02.corp.local",
        "10.40.1.22",
        "redis.internal",
        "api.staging.example.net",
        "pg-replica-3",
        "mq.example.org",
    ];
    rng.pick::<&str>(HOSTS)
}
