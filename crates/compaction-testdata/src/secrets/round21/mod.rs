//! Round 21's families: credential formats, carriers and encodings no earlier round used, each
//! written in several syntaxes so that it tests a principle rather than a string.
//! `records.rs` holds structured records whose structure names the secret: replies of key
//! stores and wide-column shells (HBase, etcd, Consul, ZooKeeper, ClickHouse `Vertical`,
//! DynamoDB), plain-text and wiki tables with a secret-named column (Markdown with alignment,
//! org-mode, reST, Confluence and MediaWiki), logs and exports whose header line names the
//! fields (Zeek `#fields`, W3C `#Fields:`, semicolon CSV, `sqlcmd`), and name/value objects
//! of API replies (SSM parameters, ECS environments, Postman environments, 1Password items,
//! Sheets value rows); `ops.rs` holds Terraform, Pulumi and CDK plan output, configuration
//! management's verbose output (Ansible `-vvv`, Puppet, Salt state changes, cloud-init),
//! Kubernetes `describe`, Helm values dumps and container inspection, and environment and
//! process listings (`env`, `declare -x`, `ps auxww`, `/proc/PID/environ` through `cat -v`);
//! `encodings.rs` holds gzip, zlib and raw deflate behind base64, text encodings no family
//! used (UTF-7, base45, Z85, PowerShell's UTF-16 `certutil` blocks, wrapped base64), and
//! memory and debugger dumps (`strings` of a core, gdb and lldb, `py-spy --locals`);
//! `handover.rs` holds credentials handed over in tickets (Jira, ServiceNow work notes,
//! Zendesk replies) and in chat exports and transcripts (Slack and Discord exports, WhatsApp
//! text, WebVTT captions).
//!
//! They were written before any rule was changed against them, and split into dev and test by
//! the same rule as every family (see the parent module).

mod encodings;
mod handover;
mod ops;
mod records;

use super::families::Family;
use crate::random::Rng;

/// Every round 21 family.
pub(super) fn families() -> Vec<Family> {
    let mut all = records::FAMILIES.to_vec();
    all.extend_from_slice(ops::FAMILIES);
    all.extend_from_slice(encodings::FAMILIES);
    all.extend_from_slice(handover::FAMILIES);
    all
}

/// Words people build a password on (other words than rounds 16 to 20).
const WORDS: &[&str] = &[
    "Alder", "Bluebell", "Chestnut", "Dunlin", "Egret", "Fennel", "Gannet", "Heron", "Ivy",
    "Jackdaw", "Lichen", "Mistral", "Nutmeg", "Osprey", "Plover", "Rowan",
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
        &["svc_ledger", "deploy", "etl_ro", "admin", "backup", "grafana", "ci_bot", "app_rw"];
    rng.pick::<&str>(USERS)
}

/// A host name.
fn host(rng: &mut Rng) -> &'static str {
    const HOSTS: &[&str] = &[
        "pg-main.int.example.com",
        "10.42.7.19",
        "vault.svc.local",
        "ledger-db-2",
        "smtp.mail.example.org",
        "queue01.prod",
    ];
    rng.pick::<&str>(HOSTS)
}
