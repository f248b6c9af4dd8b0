//! Round 18's families: credential formats and placements no earlier round used, each written
//! in several syntaxes so that it tests a principle rather than a string. `ops.rs` holds the
//! admin commands of queues, caches and stores, CI pipeline files of other vendors,
//! infrastructure-as-code parameter files, cloud CLIs' password flags, and Windows service and
//! task commands; `apps.rs` holds desktop clients' saved sessions, mobile and cross-platform
//! build defines, self-hosted applications' config files, migration and data tools' configs,
//! and the history files of REPLs and database clients (`~/.mysql_history`'s `\040` spaces
//! among them); `dumps.rs` holds text dumps of captured traffic, access and audit logs that
//! carry a credential, hex and byte dumps, secrets written as arrays of character codes, and
//! labels with full-width punctuation.
//!
//! They were written before any rule was changed against them, and split into dev and test by
//! the same rule as every family (see the parent module).

mod apps;
mod dumps;
mod ops;

use super::families::Family;
use crate::random::Rng;

/// Every round 18 family.
pub(super) fn families() -> Vec<Family> {
    let mut all = ops::FAMILIES.to_vec();
    all.extend_from_slice(apps::FAMILIES);
    all.extend_from_slice(dumps::FAMILIES);
    all
}

/// Words people build a password on (other words than rounds 16 and 17).
const WORDS: &[&str] = &[
    "Marlin", "Juniper", "Basalt", "Tundra", "Sequoia", "Aurora", "Bramble", "Cinder", "Dahlia",
    "Fjord", "Glacier", "Indigo",
];

/// A password of one of the kinds people use, from this round's words.
fn chosen_pw(rng: &mut Rng) -> String {
    super::values::chosen_password(rng, WORDS)
}

/// A login name.
fn user(rng: &mut Rng) -> &'static str {
    const USERS: &[&str] =
        &["svc_app", "deploy", "etl", "admin", "backup", "reporting", "ops", "mqadmin"];
    rng.pick::<&str>(USERS)
}

/// A host name.
fn host(rng: &mut Rng) -> &'static str {
    const HOSTS: &[&str] = &[
        "db01.corp.local",
        "10.20.0.15",
        "cache.internal",
        "mq-prod-2",
        "pg.example.net",
        "sql-east.internal",
    ];
    rng.pick::<&str>(HOSTS)
}
