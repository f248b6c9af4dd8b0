//! Unit tests of the rule table's compilation (filters, loosened patterns) and of texts
//! escaped more than once.

use regex::Regex;

#[test]
fn a_filter_opens_only_long_counted_repeats() {
    let parse = |pattern: &str| regex_syntax::Parser::new().parse(pattern).unwrap();
    assert!(super::loosened(&parse(r"(?P<secret>[a-z]{8,16})@")).is_none());
    let filter = super::loosened(&parse(r"-u (?P<secret>[^\s]{1,1024})@")).unwrap();
    let filter = super::build(&filter).unwrap();
    let rule = super::build(&parse(r"-u (?P<secret>[^\s]{1,1024})@")).unwrap();
    let long = format!("-u {}@", "x".repeat(2_000));
    assert!(filter.is_match(&long) && !rule.is_match(&long));
    assert!(filter.is_match("-u x@") && rule.is_match("-u x@"));
    assert!(!filter.is_match("-u x") && !filter.is_match("-v x@"));
    // A long minimum is lowered, not dropped.
    let filter = super::build(&super::loosened(&parse(r"k[0-9]{64}")).unwrap()).unwrap();
    assert!(filter.is_match(&format!("k{}", "1".repeat(16))));
    assert!(!filter.is_match(&format!("k{}", "1".repeat(15))));
}

use super::checks::looks_random;
use super::*;

fn redact(text: &str) -> String {
    Redactor::default().redact(text).into_owned()
}

#[test]
fn every_rule_compiles_and_captures_a_secret() {
    for rule in all_rules() {
        let regex = Regex::new(&ascii_classes(rule.pattern))
            .unwrap_or_else(|error| panic!("{}: {error}", rule.name));
        assert!(
            regex.capture_names().any(|name| name == Some("secret")),
            "{} has no secret group",
            rule.name
        );
    }
    assert!(compiled().rules.iter().all(|rule| rule.regex().is_some()));
    let mut names: Vec<&str> = all_rules().map(|rule| rule.name).collect();
    let count = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), count, "rule names are unique");
}

#[test]
fn secrets_are_replaced_and_their_context_kept() {
    let cases = [
        ("key sk-abcdefghijklmnopqrstuvwxyz012345 end", "key [REDACTED] end"),
        ("aws AKIAIOSFODNN7EXAMPLE x", "aws [REDACTED] x"),
        (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "aws_secret_access_key = [REDACTED]",
        ),
        (
            "DATABASE_URL=postgres://app:s3cr3t-pw@db:5432/app",
            "DATABASE_URL=postgres://app:[REDACTED]@db:5432/app",
        ),
        (
            "GET /login?user=bob&password=hunter2 HTTP/1.1",
            "GET /login?user=bob&password=[REDACTED] HTTP/1.1",
        ),
        ("DB_PASSWORD=hunter2", "DB_PASSWORD=[REDACTED]"),
        ("password: \"correct horse\"", "password: \"[REDACTED]\""),
        ("Authorization: Bearer abcdefghijklmnop.qrstu", "Authorization: Bearer [REDACTED]"),
        ("Authorization: Basic YWRtaW46aHVudGVyMg==", "Authorization: Basic [REDACTED]"),
        ("curl -u admin:hunter2 https://x", "curl -u admin:[REDACTED] https://x"),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIE\nabc\n-----END RSA PRIVATE KEY-----", "[REDACTED]"),
    ];
    for (input, expected) in cases {
        assert_eq!(redact(input), expected, "{input}");
    }
}

#[test]
fn a_urls_password_is_redacted_whatever_it_looks_like_and_a_placeholder_stays() {
    // Round 21: the URL's syntax names the password; no check of how random it looks.
    for password in [
        "HunterGatherer",
        "iDsrHdLhtLzgqDuoZR",
        "correcthorsebattery",
        "zebra.mango_river",
        "837492016655",
        "p%40ss%3Aw0rd",
        "$Xk9mQ2vLp7Rz",
    ] {
        for url in [
            format!("postgres://app:{password}@db.internal:5432/billing"),
            format!("ftp://anon:{password}@[2001:db8::7]:21/pub"),
            format!("redis://:{password}@cache"),
        ] {
            let out = redact(&format!("connect with \"{url}\" now"));
            assert!(!out.contains(password) && out.contains("[REDACTED]@"), "{out}");
        }
    }
    for kept in [
        "https://alice@example.com/docs",
        "ssh://git@git.example.com:2222/team/repo.git",
        "git@github.com:team/repo.git",
        "postgres://app:${DB_PASSWORD}@db/billing",
        "postgres://app:$DB_PASSWORD@db/billing",
        "mysql://%s:%s@%s/%s",
        "postgres://{user}:{password}@{host}",
        "mysql://root:%DB_PASS%@db",
        "https://user:password@host",
        "https://user:YOUR_PASSWORD@host",
        "mongodb+srv://u:****@c.mongodb.net",
        "http://[::1]:8080/health",
    ] {
        assert_eq!(redact(kept), kept);
    }
}

#[test]
fn a_urls_user_info_ends_at_the_last_at_sign_of_its_authority() {
    // Round 22: a password with a raw `@` or `/`, and a user written raw as an e-mail
    // address; the password is redacted whole, the user and the host stay.
    for (url, password, user) in [
        (
            "https://u:Kovebuta1994@Ramisoleku27@host.example.com/x",
            "Kovebuta1994@Ramisoleku27",
            "u",
        ),
        ("redis://:Tovema1@Lirusu2@Mebiko3@cache:6379/0", "Tovema1@Lirusu2@Mebiko3", ""),
        (
            "postgres://app:Zutovome2451/Sovovobi2863@db.internal/billing",
            "Zutovome2451/Sovovobi2863",
            "app",
        ),
        ("mysql://app:Dosu/Gasa@Govu@db:3306", "Dosu/Gasa@Govu", "app"),
        (
            "https://first.last@corp.example:Passw0rdNine@host.example.com/",
            "Passw0rdNine",
            "first.last@corp.example",
        ),
        ("mongodb://u:p@ss,w0rd@h1:27017,h2:27017/db?replicaSet=rs0", "p@ss,w0rd", "u"),
        ("smtp://ci:Abc:Def#Ghi?Jkl@mail.example.com:587", "Abc:Def#Ghi?Jkl", "ci"),
    ] {
        let at = url.find("://").unwrap() + 3;
        let expected = format!(
            "{}{user}:[REDACTED]{}",
            &url[..at],
            &url[at + user.len() + 1 + password.len()..]
        );
        for text in
            [url.to_owned(), format!("use \"{url}\" now"), format!("DATABASE_URL={url}\nX=1")]
        {
            let out = redact(&text);
            assert_eq!(out, text.replace(url, &expected), "{text}");
        }
    }
    for kept in [
        "https://registry.example.com:4873/@babel/core",
        "https://medium.com/@alice/notes-1",
        "http://[::1]:8080/users/@me",
        "https://cdn.example.com/npm/@scope/pkg@1.2.3/dist/x.js",
        "https://api.example.com:8443/v1/users/alice@example.com",
        "ssh://git@git.example.com:2222/team/repo.git",
        "see https://alice@example.com/docs and mail bob@example.com",
        "postgres://app:${DB_PASSWORD}@db.internal/billing",
    ] {
        assert_eq!(redact(kept), kept);
    }
}

#[test]
fn references_and_code_are_not_secrets() {
    for text in [
        "token = get_token()",
        "let token: String = read();",
        "const apiKey = process.env.API_KEY;",
        "password = user_password",
        "\"maxTokens\": 4096, \"keepRecentTokens\": 20000",
        "cache_key: \"user:123\"",
        "primary_key = id",
        "secret: true",
        "DB_PASSWORD=${DB_PASSWORD}",
        "api_key: Option<SecretString>,",
        "pub password: SecretString,",
        "commit 3f786850e387550fdab836ed7e6dc881de23001b",
        "id 550e8400-e29b-41d4-a716-446655440000",
    ] {
        assert_eq!(redact(text), text);
    }
}

#[test]
fn configured_values_are_replaced_verbatim() {
    let redactor = Redactor::new(["my-configured-key-123".to_owned(), "short".to_owned()]);
    assert_eq!(redactor.redact("uses my-configured-key-123 here"), "uses [REDACTED] here");
    assert_eq!(redactor.redact("a short word"), "a short word");
}

#[test]
fn entropy_separates_random_values_from_words() {
    assert!(looks_random("9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c"));
    assert!(!looks_random("src/compaction/summarizer_module"));
    assert!(!looks_random("aaaaaaaaaaaaaaaaaaaa1"));
}

mod escaped {
    use super::super::*;

    #[test]
    fn a_pem_block_escaped_twice_is_redacted() {
        let text = r#""instances": [{"attributes_flat": "\"-----BEGIN RSA PRIVATE KEY-----\\nnau6Fc3Ps2wMMojfSRYqEVgrbPQh9I+LE6xKgbOdgBw0C2VTReOk+V1zQeak7Juo\\n53VPNDw0i1DzARRulSSWAU/YDB5+aguY50fgXQ1dicGEjGr/RlYLm8143QZfIl5D\\n-----END RSA PRIVATE KEY-----\\n\""}]"#;
        let out = Redactor::default().redact(text).into_owned();
        assert!(!out.contains("nau6Fc3Ps2wMMoj"), "{out}");
    }
}

/// Two rules on one value: the flag table takes the first word of a quoted passphrase, and
/// the rest of the quoted run is continued (`phrases::continued_runs`).
#[test]
fn a_quoted_run_a_rule_partly_redacted_is_continued() {
    let out = redact("gpg --batch --passphrase 'gravel oxide umbra cactus tango' --symmetric a");
    for word in ["oxide", "umbra", "cactus", "tango"] {
        assert!(!out.contains(word), "{out}");
    }
    assert!(out.contains("--symmetric a"), "{out}");
    // A quoted sentence after a placeholder stays.
    let out = redact("password: '[REDACTED] is what the log shows'");
    assert!(out.contains("is what the log shows"), "{out}");
}

/// A secret fed to a reading command through a pipe continued with `\` on the next line.
#[test]
fn a_pipe_continued_onto_the_next_line_is_followed() {
    for text in [
        "echo 'Falcon-orbit-761' \\\n  | docker login registry.corp -u ci --password-stdin",
        "printf '%s\\n' \"Falcon-orbit-761\" \\\n    | sudo -S apt-get update",
        "echo -n \"Falcon-orbit-761\" | \\\n  gh auth login --with-token",
    ] {
        let out = redact(text);
        assert!(!out.contains("Falcon-orbit-761"), "{out}");
    }
}

#[test]
fn documentation_stand_ins_stay_and_real_values_beside_them_go() {
    let redactor = Redactor::default();
    // A URL password under four characters, and a value of words naming its own kind.
    for line in [
        "const myURL = new URL('https://abc:xyz@example.com');",
        "// Prints https://a:b@xn--g6w251d/?abc#foo",
        "const password = 'Password used to generate key';",
        "const hmac = createHmac('sha256', 'a secret');",
        "    passphrase: 'top secret',",
    ] {
        assert_eq!(redactor.redact(line), line);
    }
    for (line, secret) in [
        ("const myURL = new URL('https://abc:hunter2@example.com');", "hunter2"),
        ("const hmac = createHmac('sha256', 'k9#Lw2qZ8vXr');", "k9#Lw2qZ8vXr"),
        ("    passphrase: 'Tundra#8812 Fjord',", "Tundra#8812"),
    ] {
        let out = redactor.redact(line);
        assert!(!out.contains(secret), "{line} -> {out}");
    }
}
