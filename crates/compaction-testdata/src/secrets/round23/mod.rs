//! Round 23's families: credential carriers no earlier round used, each written in several
//! syntaxes so that it tests a principle rather than a string.
//! `infra.rs` holds VM image builders and provisioning (`virt-customize`, Proxmox
//! `--cipassword`, osbuild blueprints, Packer, Vagrant), ops platforms' secret commands (Juju,
//! BOSH, CredHub, Cloud Foundry, hiera-eyaml's decrypted `DEC::` blocks) and backup tools'
//! repository secrets (Kopia, duplicity, Bacula and Bareos, Duplicati, autorestic);
//! `services.rs` holds message brokers' definitions and clients (RabbitMQ's
//! `definitions.json`, Pulsar, NATS, Artemis), API gateways and auth proxies (Kong, APISIX,
//! Envoy's `generic_secret`, oauth2-proxy, Dex, authentik), metrics agents (Telegraf,
//! Prometheus `bearer_token` and `remote_write`, Grafana Alloy) and log shippers' outputs
//! (Vector, rsyslog's `omelasticsearch`, Splunk's HEC, Filebeat, Logstash); `apps.rs` holds
//! desktop apps' signing secrets (electron-builder `CSC_KEY_PASSWORD`, `osslsigncode`, Tauri,
//! `altool`), home automation and maker configs (Zigbee2MQTT, Frigate, Node-RED,
//! OctoPrint, Moonraker), game and media servers (Icecast, Murmur, Jellyfin, Navidrome,
//! Valheim), data and ML tools (MLflow, DVC, Airflow connections, Jupyter's
//! `IdentityProvider.token`) and chat-ops bot commands (Errbot, Lita, Hubot).
//!
//! They were written before any rule was changed against them, and split into dev and test by
//! the same rule as every family (see the parent module).

mod apps;
mod infra;
mod services;

use super::families::Family;
use crate::random::Rng;

/// Every round 23 family.
pub(super) fn families() -> Vec<Family> {
    let mut all = infra::FAMILIES.to_vec();
    all.extend_from_slice(services::FAMILIES);
    all.extend_from_slice(apps::FAMILIES);
    all
}

/// Words people build a password on (other words than rounds 16 to 22).
const WORDS: &[&str] = &[
    "Anemone", "Basalt", "Corvid", "Dogwood", "Fjord", "Gravel", "Halcyon", "Indigo", "Juniper",
    "Lupine", "Moraine", "Nimbus", "Orchard", "Pewter", "Sequoia", "Tundra",
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

/// A random token with a short provider-like prefix (`kpt_`, `ghx-`, …): letters and digits.
fn prefixed_token(rng: &mut Rng) -> String {
    let prefix = *rng.pick(&["kpt_", "rlx_", "ghx-", "dsk_live_", "nvk-", "tkn_", "zpa_"]);
    format!("{prefix}{}", super::values::bare_token(rng))
}

/// A login name.
fn user(rng: &mut Rng) -> &'static str {
    const USERS: &[&str] =
        &["svc_ingest", "provision", "backup_op", "root", "alerts", "kiosk", "builder", "mq_app"];
    rng.pick::<&str>(USERS)
}

/// A host name.
fn host(rng: &mut Rng) -> &'static str {
    const HOSTS: &[&str] = &[
        "mq-3.int.example.net",
        "10.81.4.22",
        "metrics.example.org",
        "gw.corp.example.com",
        "nas-02",
        "logs.example.io",
    ];
    rng.pick::<&str>(HOSTS)
}
