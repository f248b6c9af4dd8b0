//! The split of the corpus into dev and test, and each round's families: the test part is
//! the first third of the families by SHA-256 of `secret-family:<name>`, plus every family an
//! earlier round's split held out (see the parent module).

use sha2::{Digest, Sha256};

use super::families::Family;
use super::{
    all_families, by_tool, round9, round10, round11, round12, round13, round14, round15, round16,
    round17, round18, round19, round20, round21, round22, round23,
};

/// The families written in round 4 in formats no rule was written for (`by_tool.rs`), added
/// after the rules of earlier rounds; reports give their figures apart.
pub fn round4_family_names() -> Vec<&'static str> {
    by_tool::FAMILIES.iter().map(|(name, _)| *name).collect()
}

/// The families written in round 9 (`round9/`): credentials in tools, configs and languages
/// no earlier family or rule was written for; reports give their figures apart.
pub fn round9_family_names() -> Vec<&'static str> {
    round9::families().iter().map(|(name, _)| *name).collect()
}

/// The families written in round 10 (`round10/`): config languages, code, tool outputs, logs,
/// diffs and text shapes no earlier family or rule was written for; reports give their
/// figures apart.
pub fn round10_family_names() -> Vec<&'static str> {
    round10::families().iter().map(|(name, _)| *name).collect()
}

/// The test part as the rule drew it before round 9's families were added (over the 163
/// families of round 4). Every one of them is still in the test part (a unit test asserts
/// it), so no family whose misses were never read became dev.
pub fn before_round9_test_families() -> Vec<&'static str> {
    test_part_before(9)
}

/// The families written in round 11 (`round11/`): what people type and tools print, what
/// administrators write, and config files, code and documents no earlier family or rule was
/// written for; reports give their figures apart.
pub fn round11_family_names() -> Vec<&'static str> {
    round11::families().iter().map(|(name, _)| *name).collect()
}

/// The test part as it was before round 10's families were added: the first third of the 200
/// families of round 9, and every family held out before round 9. Every one of them is still
/// in the test part.
pub fn before_round10_test_families() -> Vec<&'static str> {
    test_part_before(10)
}

/// The test part as it was before round 11's families were added: the first third of the 239
/// families of round 10, and every family held out before round 10. Every one of them is
/// still in the test part.
pub fn before_round11_test_families() -> Vec<&'static str> {
    test_part_before(11)
}

/// The families written in round 12 (`round12/`): views, tables, dumps, patches, test
/// failures, crashes, templates, installer and VoIP configs, less common languages,
/// positional arguments, and unusual values and carriers no earlier family or rule was written
/// for; reports give their figures apart.
pub fn round12_family_names() -> Vec<&'static str> {
    round12::families().iter().map(|(name, _)| *name).collect()
}

/// The test part as it was before round 12's families were added: the first third of the 276
/// families of round 11, and every family held out before round 11. Every one of them is
/// still in the test part.
pub fn before_round12_test_families() -> Vec<&'static str> {
    test_part_before(12)
}

/// The families written in round 13 (`round13/`): unusual values after a name, values placed
/// away from their name (continued, split, before it, on the next line, with no name), and
/// carriers no earlier family or rule was written for; reports give their figures apart.
pub fn round13_family_names() -> Vec<&'static str> {
    round13::families().iter().map(|(name, _)| *name).collect()
}

/// The test part as it was before round 13's families were added: the first third of the 308
/// families of round 12, and every family held out before round 12. Every one of them is
/// still in the test part.
pub fn before_round13_test_families() -> Vec<&'static str> {
    test_part_before(13)
}

/// The families written in round 14 (`round14/`): values placed against a name in ways no
/// family had, carriers no earlier family or rule was written for, and values found by shape
/// or through an encoding; reports give their figures apart.
pub fn round14_family_names() -> Vec<&'static str> {
    round14::families().iter().map(|(name, _)| *name).collect()
}

/// The test part as it was before round 14's families were added: the first third of the 338
/// families of round 13, and every family held out before round 13. Every one of them is
/// still in the test part.
pub fn before_round14_test_families() -> Vec<&'static str> {
    test_part_before(14)
}

/// The families written in round 15 (`round15/`): secrets fed to a command's input, values
/// under abbreviated key names, a name and its value as two literals of one record, values
/// before their name, Markdown code spans, chat answers in several languages, symbol-rich
/// passwords with no name, word passphrases and grouped product keys; reports give their
/// figures apart.
pub fn round15_family_names() -> Vec<&'static str> {
    round15::families().iter().map(|(name, _)| *name).collect()
}

/// The test part as it was before round 15's families were added: the first third of the 365
/// families of round 14, and every family held out before round 14. Every one of them is
/// still in the test part.
pub fn before_round15_test_families() -> Vec<&'static str> {
    test_part_before(15)
}

/// The families written in round 16 (`round16/`): chat answers with no secret's name or a
/// name no list holds, chat logs with a short name after the speaker, values before a name the
/// lists lack, CamelCase-with-digits and words-and-a-number passwords, word passphrases after a
/// tool's flag, pipes continued onto the next line, shell history files, Markdown emphasis and
/// code spans, and symbol-rich passwords with one strong symbol or beside an unlisted user;
/// reports give their figures apart.
pub fn round16_family_names() -> Vec<&'static str> {
    round16::families().iter().map(|(name, _)| *name).collect()
}

/// The test part as it was before round 16's families were added: the first third of the 390
/// families of round 15, and every family held out before round 15. Every one of them is
/// still in the test part.
pub fn before_round16_test_families() -> Vec<&'static str> {
    test_part_before(16)
}

/// The families written in round 17 (`round17/`): passwords whose random part has one capital
/// or none or is built on a word holding a secret's name, chat logs with a stamp and speaker
/// before the answer, labels in languages and scripts no family used, maps from users to
/// passwords, values holding `:` or `[`, a name and its value as two fields, login tools'
/// flags, rare URI schemes, `user:password` in base64, URL-encoded and doubly escaped text,
/// credential files and session cookies; reports give their figures apart.
pub fn round17_family_names() -> Vec<&'static str> {
    round17::families().iter().map(|(name, _)| *name).collect()
}

/// The test part as it was before round 17's families were added: the first third of the 406
/// families of round 16, and every family held out before round 16. Every one of them is
/// still in the test part.
pub fn before_round17_test_families() -> Vec<&'static str> {
    test_part_before(17)
}

/// The families written in round 18 (`round18/`): admin commands of queues, caches and
/// stores, CI files of other vendors, infrastructure-as-code parameters, cloud CLIs' password
/// flags, Windows service and task commands, desktop clients' saved sessions, mobile build
/// defines, self-hosted applications' configs, migration and data tools' configs, REPL and
/// client history files, captured traffic, access and audit logs, hex and byte dumps,
/// character-code arrays and full-width labels; reports give their figures apart.
pub fn round18_family_names() -> Vec<&'static str> {
    round18::families().iter().map(|(name, _)| *name).collect()
}

/// The test part as it was before round 18's families were added: the first third of the 420
/// families of round 17, and every family held out before round 17. Every one of them is
/// still in the test part.
pub fn before_round18_test_families() -> Vec<&'static str> {
    test_part_before(18)
}

/// The families written in round 19 (`round19/`): box-drawing CLI tables, quoted e-mail
/// replies, ORM bound-parameter logs, tracing span attributes, `.http`/Bruno request files,
/// quoting forms of other languages, JSON5/HJSON and flow mappings, process substitution and
/// file descriptor feeds, kubeconfig `exec`/`auth-provider`, compound and inflected password
/// words, Ascii85/uuencode/base32hex blobs, trivially obfuscated literals, spelled-out
/// passwords, UTF-16 text seen as bytes and 2025–2026 token prefixes; reports give their
/// figures apart.
pub fn round19_family_names() -> Vec<&'static str> {
    round19::families().iter().map(|(name, _)| *name).collect()
}

/// The test part as it was before round 19's families were added: the first third of the 435
/// families of round 18, and every family held out before round 18. Every one of them is
/// still in the test part.
pub fn before_round19_test_families() -> Vec<&'static str> {
    test_part_before(19)
}

/// The families written in round 20 (`round20/`): notebook JSON, structured logs (journald,
/// RFC 5424, CEF, Windows event XML), wire dumps, CI traces and masking failures, word diffs
/// and merge conflicts, secrets split across literals, password labels in scripts no earlier
/// round used, XML names and values in siblings, keystrokes typed by UI automation, tabular
/// exports, Unicode disguises, character codes and number bases, and wallet and node key
/// files; reports give their figures apart.
pub fn round20_family_names() -> Vec<&'static str> {
    round20::families().iter().map(|(name, _)| *name).collect()
}

/// The test part as it was before round 20's families were added: the first third of the 450
/// families of round 19, and every family held out before round 19. Every one of them is
/// still in the test part.
pub fn before_round20_test_families() -> Vec<&'static str> {
    test_part_before(20)
}

/// The families written in round 21 (`round21/`): key-store and wide-column shell replies,
/// plain-text and wiki tables with a secret-named column, logs and exports whose header line
/// names the fields, name/value objects in API replies, Terraform, Pulumi and CDK plans,
/// configuration management's verbose output, Kubernetes, Helm and container dumps,
/// environment and process listings, gzip, zlib and deflate behind base64, text encodings no
/// family used, memory and debugger dumps, and credentials handed over in tickets, chat
/// exports and captions; reports give their figures apart.
pub fn round21_family_names() -> Vec<&'static str> {
    round21::families().iter().map(|(name, _)| *name).collect()
}

/// The test part as it was before round 21's families were added: the first third of the 463
/// families of round 20, and every family held out before round 20. Every one of them is
/// still in the test part.
pub fn before_round21_test_families() -> Vec<&'static str> {
    test_part_before(21)
}

/// The families written in round 22 (`round22/`): package and artifact repositories' credential
/// files, mail fetchers' and relays' configs, database clients' rc files, wireless, VPN and
/// dial-up secrets, object dumps of language runtimes, debug pages and tracebacks with their
/// locals, secret managers' command output, values decoded from a literal in code, requests of
/// load tests and HTTP clients, credentials handed to a client's constructor, saved connections
/// of IDEs and GUI clients, package sources in lockfiles and secrets in commit messages, and
/// plain-text entries of servers' user files; reports give their figures apart.
pub fn round22_family_names() -> Vec<&'static str> {
    round22::families().iter().map(|(name, _)| *name).collect()
}

/// The test part as it was before round 22's families were added: the first third of the 476
/// families of round 21, and every family held out before round 21. Every one of them is
/// still in the test part.
pub fn before_round22_test_families() -> Vec<&'static str> {
    test_part_before(22)
}

/// The families written in round 23 (`round23/`): VM image builders and provisioning, ops
/// platforms' secret commands, backup tools' repository secrets, message brokers' definitions
/// and clients, API gateways and auth proxies, metrics agents, log shippers' outputs, desktop
/// apps' signing secrets, home automation and maker configs, game and media servers, data and
/// ML tools, and chat-ops bot commands; reports give their figures apart.
pub fn round23_family_names() -> Vec<&'static str> {
    round23::families().iter().map(|(name, _)| *name).collect()
}

/// The test part as it was before round 23's families were added: the first third of the 489
/// families of round 22, and every family held out before round 22. Every one of them is
/// still in the test part.
pub fn before_round23_test_families() -> Vec<&'static str> {
    test_part_before(23)
}

/// The names of every family, in the generator's order.
pub fn family_names() -> Vec<&'static str> {
    all_families().iter().map(|(name, _)| *name).collect()
}

/// The families of the test part: ordered by SHA-256 of `secret-family:<name>`, the first
/// third, rounded up; and every family an earlier round's split put in test. Adding round 9's
/// 37 families pushed one earlier test family (`container-env`) out of the first third; a
/// family held out once stays held out, so that no family whose misses were never read
/// becomes one whose misses are listed.
pub fn test_families() -> Vec<&'static str> {
    let mut test = test_part(&all_families());
    for name in before_round23_test_families() {
        if !test.contains(&name) {
            test.push(name);
        }
    }
    test
}

/// The test part as the same rule drew it before the round 4 families were added (the
/// families of `by_tool.rs` left out): adding families moves a few earlier ones from dev into
/// test, and those were written against, so the held-out figure comparable across rounds is
/// the one on this earlier test part.
pub fn earlier_test_families() -> Vec<&'static str> {
    let later = [round4_family_names(), names_from_round(9)].concat();
    let earlier: Vec<Family> =
        all_families().into_iter().filter(|(name, _)| !later.contains(name)).collect();
    test_part(&earlier)
}

/// The families of each round from 9 on, by round: a new round adds its line here, and
/// every guard of an earlier round's test part leaves it out.
fn rounds() -> [(usize, Vec<&'static str>); 15] {
    [
        (9, round9_family_names()),
        (10, round10_family_names()),
        (11, round11_family_names()),
        (12, round12_family_names()),
        (13, round13_family_names()),
        (14, round14_family_names()),
        (15, round15_family_names()),
        (16, round16_family_names()),
        (17, round17_family_names()),
        (18, round18_family_names()),
        (19, round19_family_names()),
        (20, round20_family_names()),
        (21, round21_family_names()),
        (22, round22_family_names()),
        (23, round23_family_names()),
    ]
}

/// The families written in round `round` or later.
fn names_from_round(round: usize) -> Vec<&'static str> {
    rounds().into_iter().filter(|(r, _)| *r >= round).flat_map(|(_, names)| names).collect()
}

/// The test part as it was before round `round`'s families were added: the first third of
/// the families written before it, and every family held out before the round before it
/// (from round 10 on), so no family whose misses were never read became dev.
fn test_part_before(round: usize) -> Vec<&'static str> {
    let later = names_from_round(round);
    let before: Vec<Family> =
        all_families().into_iter().filter(|(name, _)| !later.contains(name)).collect();
    let mut test = test_part(&before);
    if round > 9 {
        for name in test_part_before(round - 1) {
            if !test.contains(&name) {
                test.push(name);
            }
        }
    }
    test
}

/// The first third (rounded up) of `families` ordered by SHA-256 of `secret-family:<name>`.
fn test_part(families: &[Family]) -> Vec<&'static str> {
    let mut named: Vec<([u8; 32], &'static str)> = families
        .iter()
        .map(|(name, _)| (Sha256::digest(format!("secret-family:{name}")).into(), *name))
        .collect();
    named.sort();
    named.into_iter().take(families.len().div_ceil(3)).map(|(_, name)| name).collect()
}
