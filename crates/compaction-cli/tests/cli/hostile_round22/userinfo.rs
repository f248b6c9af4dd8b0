//! The class "a URL's user info of an edge shape": the password of `scheme://user:PASSWORD@host`
//! holding a raw `@` (`https://u:p@ss@host`, as people paste a password they did not
//! percent-encode), a raw `/` (`postgres://app:pa/ss@db/billing`), both, a `:`, `#` or `?`,
//! or a user that is an e-mail address written raw (`https://first.last@corp.example:PW@host`).
//! Round 21's `urls` generator, its sessions, forms and commands, with these shapes; each
//! instance also holds an ordinary URL with an `@` or a `/` where a password could be
//! mistaken (`https://registry.example.com:4873/@babel/core`, `https://medium.com/@alice`,
//! `http://[::1]:8080/users/@me`, a scoped package's CDN path), which must stay word for word:
//!
//! - the user info's shape (innermost): a raw `@` in the password, two of them, a raw `/`,
//!   a `/` and an `@`, an e-mail user with a plain password, an e-mail user with an `@` in the
//!   password, `:` inside, `#` and `?` inside; the scheme and host drawn per instance (among
//!   them a MongoDB host list, `h1:27017,h2:27017`);
//! - how it is written: prose, quoted, JSON, a `.env` assignment, a shell command;
//! - the command: round 21's nine (`run`, `run -o --json`, `plan`, `context`, `recall`,
//!   `recall --json`, `branch --summarize`, `import`, `export`).
//!
//! Every part of a password between its special characters is at least 12 characters long,
//! so the leak check (any 12 characters in a row of the password, any case) sees a part left
//! behind after the first `@` or before a `/`.
//!
//! Holds as round 21's: the command does its work, the password is in nothing it wrote or
//! printed, and the ordinary URL is shown as written by the commands that show a message whole.
//!
//! `cargo test -p compaction-cli --test cli hostile_round22::userinfo -- --nocapture`

use super::split_tally;
use crate::hostile_round19::{Rng, Secret};
use crate::hostile_round21::urls::{COMMANDS, SCHEMES, attack, capitalized, word};

/// The user info's shapes.
const SHAPES: [&str; 8] =
    ["at", "two-ats", "slash", "slash-at", "email-user", "email-user-at", "colon", "hash-query"];

/// How the URL is written (round 21's forms).
const FORMS: [&str; 5] = ["prose", "quoted", "json", "env", "shell"];

const HOSTS: [&str; 6] = [
    "db.internal:5432/billing",
    "git.example.com/team/repo.git",
    "h1.internal:27017,h2.internal:27017/app?replicaSet=rs0",
    "[2001:db8::7]:6379/0",
    "cache",
    "mq.example.com:5671",
];

/// Ordinary URLs with an `@` or a `/` where a password could be mistaken: each must stay.
const CONTROLS: [&str; 8] = [
    "https://registry.example.com:4873/@babel/core",
    "https://medium.com/@alice/notes-1",
    "http://[::1]:8080/users/@me",
    "https://cdn.example.com/npm/@scope/pkg@1.2.3/dist/x.js",
    "ssh://git@git.example.com:2222/team/repo.git",
    "postgres://app:${DB_PASSWORD}@db.internal/billing",
    "https://alice@example.com/docs/setup",
    "https://api.example.com:8443/v1/users/alice@example.com",
];

/// A part of a password: a made-up word and digits, 12 characters at least.
fn part(rng: &mut Rng) -> String {
    format!("{}{}", capitalized(&word(rng, 8)), rng.chars(4, "0123456789"))
}

/// The user and the password of `shape`.
fn user_info(shape: &str, rng: &mut Rng) -> (String, String) {
    let users = ["deploy", "app", "svc_billing", "", "ci-bot"];
    let user = users[(rng.next() % users.len() as u64) as usize].to_owned();
    let email = format!("{}.{}@corp.example", word(rng, 5), word(rng, 6));
    match shape {
        "at" => (user, format!("{}@{}", part(rng), part(rng))),
        "two-ats" => (user, format!("{}@{}@{}", part(rng), part(rng), part(rng))),
        "slash" => (user, format!("{}/{}", part(rng), part(rng))),
        "slash-at" => (user, format!("{}/{}@{}", part(rng), part(rng), part(rng))),
        "email-user" => (email, format!("{}{}", part(rng), part(rng))),
        "email-user-at" => (email, format!("{}@{}", part(rng), part(rng))),
        "colon" => (user, format!("{}:{}", part(rng), part(rng))),
        _ => (user, format!("{}#{}?{}", part(rng), part(rng), part(rng))),
    }
}

#[test]
fn a_urls_user_info_of_any_shape_is_never_stored_or_shown_and_an_ordinary_url_stays() {
    let mut rng = Rng(22);
    let mut tally = split_tally();
    let mut index = 0;
    // Shapes innermost: every command and form has instances in both parts.
    for command in COMMANDS {
        for form in FORMS {
            for shape in SHAPES {
                let (user, pass) = user_info(shape, &mut rng);
                let scheme = SCHEMES[(rng.next() % SCHEMES.len() as u64) as usize];
                let host = HOSTS[(rng.next() % HOSTS.len() as u64) as usize];
                let control = CONTROLS[(rng.next() % CONTROLS.len() as u64) as usize];
                let url = format!("{scheme}://{user}:{pass}@{host}");
                let secret = Secret { family: shape, prefix: String::new(), body: pass };
                let miss = attack(command, form, &secret, &url, control)
                    .map(|miss| format!("{shape} in {url} × {form} × {command}: {miss}"));
                tally.count(index, miss);
                index += 1;
            }
        }
    }
    tally.report("a URL's user info of an edge shape");
}
