//! Round 22's families: credential formats, carriers and encodings no earlier round used, each
//! written in several syntaxes so that it tests a principle rather than a string.
//! `files.rs` holds the dot-files and configs of tools no family covered: package and
//! artifact repositories (`.pypirc`, `gradle.properties`, `.condarc`, Helm's
//! `repositories.yaml`, `DENO_AUTH_TOKENS`), mail fetchers and relays (`msmtprc`,
//! `fetchmailrc`, `offlineimaprc`, `mbsyncrc`, sendmail's `authinfo`), database clients' rc
//! files (`.my.cnf`, `.cqlshrc`, `odbc.ini`, `.snowsql/config`, `.databrickscfg`), and
//! wireless, VPN and dial-up secrets (`netsh wlan … key=clear`, a WLAN profile's
//! `<keyMaterial>`, OpenVPN's `auth-user-pass` file, `rasdial`); `dumps.rs` holds what
//! programs print: object dumps of language runtimes (Go `%+v`, a Python dataclass `repr`,
//! Lombok's `toString`, Ruby's `inspect`, PHP's `var_dump`, Perl's `Data::Dumper`), debug pages
//! and tracebacks with their locals (`pytest --showlocals`, `rich`, Django's debug page), and
//! the output of secret managers' commands (`sops -d`, `infisical export`, `chamber export`,
//! `security find-generic-password -w`); `code.rs` holds client code: values decoded from a
//! literal (`atob`, `Buffer.from(…, "base64")`, `FromBase64String`, `unhexlify`), requests of
//! load tests and HTTP clients (k6, Locust, Gatling, JMeter, Go's `Header.Set`), and
//! credentials handed to a library's constructor by position (`HTTPBasicAuth`, `auth=(…)`,
//! `UsernamePasswordCredentials`, `SetBasicAuth`); `sources.rs` holds saved connections of
//! IDEs and GUI clients (VS Code SQLTools, JetBrains run configurations, FileZilla's
//! `sitemanager.xml`, Sublime SFTP), package sources in lockfiles and secrets in commit
//! messages, and plain-text entries of servers' user files (Spring `{noop}`, FreeRADIUS
//! `Cleartext-Password`, `tomcat-users.xml`, Jetty's `realm.properties`).
//!
//! They were written before any rule was changed against them, and split into dev and test by
//! the same rule as every family (see the parent module).

mod code;
mod dumps;
mod files;
mod sources;

use super::families::Family;
use crate::random::Rng;

/// Every round 22 family.
pub(super) fn families() -> Vec<Family> {
    let mut all = files::FAMILIES.to_vec();
    all.extend_from_slice(dumps::FAMILIES);
    all.extend_from_slice(code::FAMILIES);
    all.extend_from_slice(sources::FAMILIES);
    all
}

/// Words people build a password on (other words than rounds 16 to 21).
const WORDS: &[&str] = &[
    "Cypress",
    "Ermine",
    "Garnet",
    "Hazel",
    "Kingfisher",
    "Larch",
    "Magpie",
    "Nettle",
    "Obsidian",
    "Puffin",
    "Quince",
    "Tamarack",
    "Umber",
    "Wren",
    "Yarrow",
    "Zephyr",
];

/// A password of one of the kinds people use, from this round's words.
fn chosen_pw(rng: &mut Rng) -> String {
    super::values::chosen_password(rng, WORDS)
}

/// A chosen password half the time, a word and digits the other half.
fn any_pw(rng: &mut Rng) -> String {
    super::values::any_password(rng, WORDS)
}

/// A random token half the time, a password people choose the other half.
fn any_secret(rng: &mut Rng) -> String {
    super::values::any_secret(rng, WORDS)
}

/// A login name.
fn user(rng: &mut Rng) -> &'static str {
    const USERS: &[&str] =
        &["svc_orders", "deployer", "report_ro", "root", "mailer", "jdoe", "build", "app_user"];
    rng.pick::<&str>(USERS)
}

/// A host name.
fn host(rng: &mut Rng) -> &'static str {
    const HOSTS: &[&str] = &[
        "db-orders.int.example.net",
        "10.20.3.44",
        "mail.example.org",
        "repo.corp.example.com",
        "analytics-7",
        "vpn.example.io",
    ];
    rng.pick::<&str>(HOSTS)
}
