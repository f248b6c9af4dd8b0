//! Rules by context: a value after a secret-like name, whatever the syntax between them.
//!
//! The [`rules`](super::rules) table reads a name followed by `=`, `:`, `:=` or `=>`. These
//! rules read the other ways a syntax puts a value after a name: a space (config directives
//! such as `rocommunity …`, `auth_pass …`, `key …`, shell `set -x NAME '…'`, prose such as
//! "password to …"), a call (`.withPassword("…")`), a `name`/`value` pair (a Kubernetes or
//! ECS environment entry), a prompt answered on the next line (`expect "password:"` then
//! `send "…"`), Samba's `user%password`, a `.pgpass` line, and the values a CI log is told
//! to mask. With no `=` or `:` to mark an assignment, the value must be made like a password
//! (three of lower case, upper case, digits and symbols, or random).
//!
//! Invariant: every pattern has a `secret` group; a unit test in the parent compiles them.

use super::rules::{Check, Rule, rule};

/// The rules by context, applied after the table of [`super::rules::RULES`].
pub const RULES: &[Rule] = &[
    rule(
        "ci-masked-value",
        // GitHub Actions `::add-mask::…`, Azure Pipelines `issecret=true]…`: the tool is told
        // the value is a secret.
        r#"(?:::add-mask::|(?i:issecret=true)\])(?P<secret>[^\s"'\\]+)"#,
        Check::None,
    ),
    rule(
        "name-then-value-by-space",
        // An identifier ending in a secret word, a space (or "is", "to", "as"), a value:
        // `rocommunity …`, `auth_pass …`, `radius-server … key …`, `set -x DEPLOY_SECRET '…'`,
        // "I set the root password to …", "user admin, pass …".
        concat!(
            r#"(?i)(?:^|[\s;{(,"'`=])(?:[\w$.\-:@]*(?:password|passwd|passphrase|passcode|secret|community|credentials?|token|api[_\-]?key)|(?:[\w$.\-:@]*[_\-.:])?(?:pass|pwd|pw|psk|key))["']?"#,
            r#"[ \t]+(?:(?:is|was|to|as|now|set[ \t]+to|changed[ \t]+to|\d)[ \t]+)?["'`]?(?P<secret>[^\s"'`,;\\]{8,128})["'`]?(?:[\s,;)}\]\\"']|$)"#
        ),
        Check::StrongValue,
    ),
    rule(
        "random-generator-output",
        // The line a random generator printed: `openssl rand`, `/dev/urandom`, Python's
        // `secrets.token_…`, `pwgen`, `gpg --gen-random`, PowerShell's `Get-Random`.
        r#"(?:\bopenssl\s+rand\b|/dev/u?random\b|\bsecrets\.token_\w+|\bpwgen\b|\bapg\b|\bgpg\s+--gen-random\b|\bGet-Random\b|\bSecureRandom\b)[^\n]*?(?:\r?\n|\\r?\\n)[ \t]*(?P<secret>[A-Za-z0-9+/=_\-!#%&*?@^~.:]{12,256})(?:[\s"'\\]|$)"#,
        Check::None,
    ),
    rule(
        "key-constructor-literal",
        // 32 bytes of hex handed to a wallet, signer or key constructor.
        r#"(?i)(?:wallet|signer|account|keypair|private[_\-]?key|secret[_\-]?key|from_?secret|from_?seed)\w*\s*\(\s*\\?["'](?P<secret>(?:0x)?[0-9a-fA-F]{64})\\?["']"#,
        Check::None,
    ),
    rule(
        "fernet-token",
        // A Fernet token: base64url of the version byte 0x80 and a timestamp (`gAAAAA…`).
        r"\b(?P<secret>gAAAAA[A-Za-z0-9_\-]{50,}={0,2})",
        Check::None,
    ),
    rule(
        "name-call-argument",
        // A setter or builder named after the secret: `.withPassword("…")`, `setApiKey('…')`.
        concat!(
            r#"(?i)(?:^|[^\w])(?P<call>[\w]*"#,
            secret_name!(),
            r#")\(\s*["'](?P<secret>[^"'\n\\]{6,256})["']\s*[,)]"#
        ),
        Check::Password,
    ),
    rule(
        "name-value-pair",
        // `- name: API_SECRET` then `value: "…"` (Kubernetes), `{"name": "DB_PASSWORD",
        // "value": "…"}` (ECS task definitions).
        concat!(
            r#"(?i)\bname\\?["']?[ \t]*[:=][ \t]*\\?["']?[\w.\-]*"#,
            secret_name!(),
            r#"[\w.\-]*\\?["']?[ \t]*,?[ \t]*(?:\r?\n|\\r?\\n)?[ \t\-]*\\?["']?value\\?["']?[ \t]*[:=][ \t]*\\?["']?(?P<secret>[^"'\n\\]{3,256})"#
        ),
        Check::AssignedValue,
    ),
    rule(
        "prompt-then-answer",
        // An `expect` script: the password prompt, then the answer sent.
        r#"(?i)(?:password|passphrase|passcode|pin)[^\n]{0,8}(?:\r?\n|\\r?\\n)[ \t]*send\s+(?:--\s+)?\\?["'](?P<secret>[^"'\n\\]{3,256})"#,
        Check::AssignedValue,
    ),
    rule(
        "samba-user-percent-password",
        // The Samba tools' `-U user%password`.
        r#"(?:^|\s)(?:-U|--user(?:name)?)[= ]["']?[^\s%"'\-][^\s%"']*%(?P<secret>[^\s"']+)"#,
        Check::AssignedValue,
    ),
    rule(
        "password-piped-to-stdin",
        // A literal echoed into a command that reads a password on its standard input:
        // `echo '…' | passwd --stdin u`, `printf '%s\n' '…' | docker login --password-stdin`,
        // `echo 'user:…' | chpasswd`, `echo … | sudo -S …`, `… | gpg --passphrase-fd 0`.
        concat!(
            r#"(?:^|[\s;&(`])(?:echo(?:[ \t]+-[neE]+)*|printf(?:[ \t]+(?:'[^'\n]*%s[^'\n]*'|"[^"\n]*%s[^"\n]*"))?)[ \t]+\\?["']?(?P<secret>[^\s"'|\\;&<>]{6,})\\?["']?[ \t]*\|[ \t]*"#,
            r#"[^\n|]*?(?:--password-stdin|--pass(?:word|phrase)?-?(?:from-?)?stdin|\bpasswd\b[^\n|]*--stdin|\bchpasswd\b|\bsudo[ \t]+(?:-\w+[ \t]+)*-S\b|--passphrase-fd[ \t]+0|-pass(?:in|out)?[ \t]+stdin)"#
        ),
        Check::AssignedValue,
    ),
    rule(
        "here-string-after-secret-name",
        // A shell here-string fed to a command that names a secret:
        // `vercel env add API_TOKEN production <<< …`, `vault login - <<< …`.
        r#"(?i)(?:[\w\-]*(?:secret|token|password|passwd|passphrase|api[_\-]?key|credentials?)|\blogin)\b[^\n]*?<<<[ \t]*\\?["']?(?P<secret>[^\s"'\\]{6,})"#,
        Check::AssignedValue,
    ),
    rule(
        "name-then-value-in-table-row",
        // A secret's name and its value in a table row (`| password | … |`): a value made
        // like a password.
        r#"(?i)(?:^|\|)[ \t]*[\w.\-]*(?:password|passwd|passphrase|secret|token|api[_\-]?key|credentials?)[ \t]*\|[ \t]*`?(?P<secret>[^\s`|]{6,})`?[ \t]*\|"#,
        Check::Password,
    ),
    rule(
        "name-then-value-in-lisp-pair",
        // A secret's name and its value in a Lisp pair (`(password . "…")`).
        r#"(?i)\([ \t]*[\w.\-]*(?:password|passwd|passphrase|secret|token|api[_\-]?key|credentials?)[ \t]+\.[ \t]+"(?P<secret>[^\s"]{6,})"[ \t]*\)"#,
        Check::Password,
    ),
    rule(
        "here-document-after-secret-name",
        // A here-document given to a secret's name: `password = <<EOT` then the value on the
        // next line (HCL, Ruby, shell).
        concat!(
            r#"(?i)(?:^|[^\w])[\w.\-]*"#,
            secret_word!(),
            r#"["']?[ \t]*(?:=|:|=>)?[ \t]*<<[-~]?["']?[A-Za-z_]+["']?[ \t]*(?:\r?\n|\\r?\\n)[ \t]*(?P<secret>[^\s"'\\]{6,})"#
        ),
        Check::AssignedValue,
    ),
    rule(
        "auth-flag",
        // `--auth …`, `-auth …`: a random-looking value (not `basic`, `none`, a digest).
        r#"(?:^|\s)--?auth(?:[_\-]?token)?(?:=|[ \t]+)["']?(?P<secret>[A-Za-z0-9+/_\-.=~]{16,})"#,
        Check::RandomNotDigest,
    ),
    rule(
        "login-call-user-then-password",
        // A login, authentication or connection call given a user and then a password as
        // string literals: `ftp.login('u', '…')`, `auth=('u', '…')`, `HTTPBasicAuth('u', '…')`,
        // `new PDO($dsn, 'root', '…')`, `mysqli_connect('h', 'root', '…', 'db')`,
        // `DriverManager.getConnection(url, "sa", "…")`.
        r#"(?i)(?:\b[\w.]*(?:login|log_in|signin|sign_in|auth|authenticate|credentials?|connect|connection|bind|bind_s|PDO)\w*[ \t]*(?:=[ \t]*)?\(|\bauth[ \t]*=[ \t]*[(\[])[^()\n]{0,80}?\\?["'][^"'\n\\]{1,}\\?["'][ \t]*,[ \t]*\\?["'](?P<secret>[^"'\n\\\s]{6,})\\?["']"#,
        Check::Password,
    ),
    rule(
        "go-dsn-password",
        // A Go SQL driver's DSN: `user:password@tcp(host:3306)/db`.
        r#"(?:^|["'`=\s])[A-Za-z0-9_.\-]{1,}:(?P<secret>[^\s"'`]{3,}?)@(?:tcp|tcp6|unix|udp)\("#,
        Check::AssignedValue,
    ),
    rule(
        "password-then-value-in-sentence",
        // A sentence about a password that gives it a few words later: "I changed the admin
        // password, it's now …", "the password was reset to … by helpdesk". With no `=` or
        // `:` the value must be made like a password (three classes of characters).
        r#"(?i)\b(?:password|passwd|passphrase|passcode)s?\b[^\n.!?;]{0,48}?\b(?:now|to|is|was|as|with|into)[ \t]+["'`]?(?P<secret>[^\s"'`,;]{8,})"#,
        Check::StrongValue,
    ),
    rule(
        "use-value-to-log-in",
        // "use … to log in", "… to sign in with".
        r#"(?i)\buse[ \t]+["'`]?(?P<secret>[^\s"'`]{6,})["'`]?[ \t]+to[ \t]+(?:log[ \t]*in|sign[ \t]*in|login|authenticate|unlock)\b"#,
        Check::Password,
    ),
    rule(
        "user-setting-with-password",
        // A user setting whose value is `name:password` (curl's `user = "bob:…"`, a proxy's
        // `proxy_user: name:…`).
        r#"(?i)(?:^|[\s;{,"'])(?:[\w.\-]*[_\-.])?(?:user|userinfo|credentials?|basic[_\-]?auth|proxy[_\-]?user)["']?[ \t]*[=:][ \t]*\\?["']?[^\s:"'@/\\]{1,}:(?P<secret>[^\s"'@\\]{4,})\\?["']?(?:[\s,;}]|$)"#,
        Check::Password,
    ),
    rule(
        "xml-key-then-value-elements",
        // A key element naming a secret, then a value element (KeePass XML, .NET settings):
        // `<Key>Password</Key><Value>…</Value>`.
        concat!(
            r#"(?i)<(?:key|name)>[\w.\-]*"#,
            secret_word!(),
            r#"[\w.\-]*</(?:key|name)>\s*<value(?:\s[^>]*)?>(?P<secret>[^<\n]{3,})</value>"#
        ),
        Check::AssignedValue,
    ),
    rule(
        "quoted-name-then-quoted-value",
        // A secret's name as a string, then its value as the next string: a pair in a list,
        // a tuple or a call (`buildConfigField("String", "MAPS_API_KEY", "\"…\"")`,
        // `("DB_PASSWORD", "…")`, `headers.set("X-Api-Key", "…")`).
        concat!(
            r#"(?i)\\?["'][\w.\-]*"#,
            secret_word!(),
            r#"[\w.\-]*\\?["'][ \t]*,[ \t]*\\?["'](?:\\+["'])?(?P<secret>[^"'\\\n\s]{6,})(?:\\+["'])?\\?["']"#
        ),
        Check::Password,
    ),
    rule(
        "secret-call-later-argument",
        // A call named after a secret whose password is not the first argument:
        // `db.changeUserPassword("reporting", "…")`, `setCredentials("svc", "…")`.
        concat!(
            r#"(?i)(?:^|[^\w])[\w]*"#,
            secret_word!(),
            r#"\(\s*\\?["'][^"'\n\\]{1,}\\?["']\s*,\s*\\?["'](?P<secret>[^"'\n\\\s]{6,})\\?["']\s*[,)]"#
        ),
        Check::Password,
    ),
    rule(
        "typed-secret-declaration",
        // A name, its type, then its value: `let smtpSecret : Text = "…"` (Dhall),
        // `val apiKey: String = "…"` (Kotlin, Scala, Swift), `const token: string = '…'`.
        concat!(
            r#"(?i)(?:^|[^\w])[\w]*"#,
            secret_word!(),
            r#"[ \t]*:[ \t]*[A-Za-z][\w.<>?\[\]]{0,40}[ \t]*=[ \t]*\\?["'](?P<secret>[^"'\n\\]{3,})\\?["']"#
        ),
        Check::AssignedValue,
    ),
    rule(
        "name-then-quoted-literal",
        // A secret's name, a space, a quoted literal: a Groovy or Gradle call without
        // parentheses (`storePassword "…"`), a config directive with a quoted value. The
        // quotes mark a literal, so a value made like a password is enough.
        r#"(?i)(?:^|[\s;{(,])[\w.\-]*(?:password|passwd|passphrase|secret|token|api[_\-]?key|credentials?)[ \t]+\\?["'](?P<secret>[^"'\s\\]{6,})\\?["'][ \t]*(?:[\r\n;,)}]|\\[rn]|$)"#,
        Check::Password,
    ),
    rule(
        "userinfo-without-slashes",
        // `user:password@host` in a URI with no `//` after its scheme
        // (`sip:alice:…@sip.example.org`).
        r#"(?:^|[\s'"(=<;])[a-z][a-z0-9+.\-]{1,15}:[A-Za-z][A-Za-z0-9._%\-]{0,63}:(?P<secret>[^\s@/:"'<>;]{4,})@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+"#,
        Check::Password,
    ),
    rule(
        "short-password-flag",
        // `-p …`, `-P …`, `-pw …`, `-k …` of any tool (`influx user password -n admin -p …`,
        // `pscp -pw …`, `openssl enc -k …`): the value must be made like a password (three classes of
        // characters, or random), which ports, paths and package names are not.
        r#"(?:^|\s)-(?:p|P|pw|pwd|pass|k)[ \t]+["']?(?P<secret>[^\s"'\-][^\s"']{7,})["']?(?:\s|$)"#,
        Check::StrongValue,
    ),
    rule(
        "password-flag-beside-a-user-flag",
        // On a command line with a user flag, a password flag in the forms Windows tools and
        // others write: a `:` after it (`winrs -u:ops -p:…`), or a one-letter qualifier
        // shared with the user flag (`schtasks /ru … /rp …`, `netdom /userd:… /passwordd:…`).
        // A flag naming a password, so words and a number count as after `password`.
        concat!(
            r#"(?i)(?:^|\s)[-/]{1,2}[a-z]?(?:u|user|username)[a-z]?(?::|=|[ \t]+)\S+\s+(?:[^\n]*?\s)?"#,
            r#"[-/]{1,2}[a-z]?(?:p|pw|pwd|pass|passwd|password)[a-z]?(?::|=|[ \t]+)["']?(?P<secret>[^\s"'\-/][^\s"']{5,})"#
        ),
        Check::PasswordValue,
    ),
    rule(
        "name-then-value-any-separator",
        // A secret's name, then its value after any short run of punctuation, in the syntaxes
        // the other rules do not spell out: a quoted literal after any punctuation (a tuple
        // `{db_password, "…"}`, a binary `<<"…">>`, a macro `-define(API_SECRET, "…")`,
        // `(api_key => '…')`, `config[:db_pass] ||= "…"`), or a bare value after punctuation
        // that is not a call, a pointer, a reference, an index, base64 or a dash going on
        // with the name (`{password, …}`, `token | …`, `DB_PASS ~ …`, `api_key -> …`; not
        // `initializeXPass(PassRegistry&)`, `…PW+/3H…`, `--password-stdin`). One rule for both
        // forms, so the text is scanned once. With no syntax to go by, the value must be made
        // like a password (three classes of characters, or random), not a reference.
        concat!(
            r#"(?i)(?:^|[^A-Za-z0-9_])[\w.\-]*"#,
            secret_name!(),
            r#"[ \t]*(?:[^\w\s"'`]{1,4}[ \t]*[^\w\s"'`]{0,3}[ \t]*["'`]|(?:->|[,|~:=>!#%^]){1,3}[ \t]*)(?P<secret>[^\s"'`\\,;<>(){}\[\]|]{6,127})(?:["'`\s,;)}\]]|$)"#
        ),
        Check::StrongValue,
    ),
    rule(
        "pgpass-format-line",
        // `host:port:database:user:password`, a line of its own.
        r"(?m)(?:^|=)[A-Za-z0-9.\-*]+:(?:\d{2,5}|\*):[^:\s]+:[^:\s]+:(?P<secret>[^\s:&]+)(?:$|&)",
        Check::AssignedValue,
    ),
];

#[cfg(test)]
mod tests {
    use super::super::Redactor;

    fn redact(text: &str) -> String {
        Redactor::default().redact(text).into_owned()
    }

    #[test]
    fn a_password_flag_beside_a_user_flag_is_redacted_in_windows_forms() {
        for (text, want) in [
            (
                "winrs -r:app01 -u:ops -p:Qz8!rT2vLp ipconfig",
                "winrs -r:app01 -u:ops -p:[REDACTED] ipconfig",
            ),
            (
                "schtasks /create /ru CORP\\svc /rp Indigo.bramble.3476",
                "schtasks /create /ru CORP\\svc /rp [REDACTED]",
            ),
            (
                "netdom join WS1 /userd:CORP\\ops /passwordd:Tundra#4471",
                "netdom join WS1 /userd:CORP\\ops /passwordd:[REDACTED]",
            ),
        ] {
            assert_eq!(redact(text), want, "{text}");
        }
        // Flags that are no password's, values that are no password.
        for text in [
            "java -u deploy -cp target/classes:lib/* Main",
            "tool -u:ops -p:8080 --verbose",
            "rsync -u -p src/ dst/",
        ] {
            assert_eq!(redact(text), text, "{text}");
        }
    }

    #[test]
    fn a_value_after_a_secret_name_is_redacted_in_any_syntax() {
        let cases = [
            ("rocommunity CyeGlOm8qZm0TrG3YZpoID 10.0.0.0/8", "rocommunity [REDACTED] 10.0.0.0/8"),
            ("auth_pass Violet~4854orbit", "auth_pass [REDACTED]"),
            ("set -x DEPLOY_SECRET 'ta0GX9t0uS1*6uGWS'", "set -x DEPLOY_SECRET '[REDACTED]'"),
            ("I set the password to lantern*9838harbor", "I set the password to [REDACTED]"),
            ("tacacs-server key 7 Harbor?Quartz4411", "tacacs-server key 7 [REDACTED]"),
            (".withPassword(\"izt0Y9+AHCQxQg29\")", ".withPassword(\"[REDACTED]\")"),
            (
                "- name: API_SECRET\n  value: \"Cobalt+8827lantern\"",
                "- name: API_SECRET\n  value: \"[REDACTED]\"",
            ),
            (
                "expect \"password:\"\nsend \"Copper$1068maple\\r\"",
                "expect \"password:\"\nsend \"[REDACTED]\\r\"",
            ),
            (
                "net ads join -U Administrator%pPO1VAdbPR4dAR7pp",
                "net ads join -U Administrator%[REDACTED]",
            ),
            (
                "db01.internal:5432:shop:app:9vH~dObe2mV4ePd8kUw",
                "db01.internal:5432:shop:app:[REDACTED]",
            ),
            ("echo \"::add-mask::vBWl6CrMpV5ZF8cZ8gK9\"", "echo \"::add-mask::[REDACTED]\""),
            ("$env:SERVICE_TOKEN = \"orbit-Tulip-657\"", "$env:SERVICE_TOKEN = \"[REDACTED]\""),
            ("APP_TOKEN=$UBhu4Qp3sGxWrjFDt", "APP_TOKEN=[REDACTED]"),
            (
                "echo 'Cobalt-river-318' | passwd --stdin backup",
                "echo '[REDACTED]' | passwd --stdin backup",
            ),
            (
                "printf '%s\\n' 'mT4q!Zr8Lw2x' | docker login -u ci --password-stdin",
                "printf '%s\\n' '[REDACTED]' | docker login -u ci --password-stdin",
            ),
            (
                "buildConfigField(\"String\", \"MAPS_API_KEY\", \"\\\"Qz81kLmWpa7\\\"\")",
                "buildConfigField(\"String\", \"MAPS_API_KEY\", \"\\\"[REDACTED]\\\"\")",
            ),
            (
                "db.changeUserPassword(\"ops\", \"Maple^4410harbor\")",
                "db.changeUserPassword(\"ops\", \"[REDACTED]\")",
            ),
            ("let apiSecret : Text = \"a8Kd0Qw2mZ\"", "let apiSecret : Text = \"[REDACTED]\""),
            ("  storePassword \"meadow-Falcon-72\"", "  storePassword \"[REDACTED]\""),
            ("sip:bob:Rq7vLm2Xp9@sip.example.org", "sip:bob:[REDACTED]@sip.example.org"),
            ("tool -n admin -p Tq8#mzLw2rX", "tool -n admin -p [REDACTED]"),
            (
                "vercel env add API_TOKEN production <<< p7Kq2mXz9RvL",
                "vercel env add API_TOKEN production <<< [REDACTED]",
            ),
            ("GH_PAT=buB3WLENl9GNY4vbdEKBocsYmQO1T", "GH_PAT=[REDACTED]"),
            ("| password | maple+7639Copper |", "| password | [REDACTED] |"),
            ("(password . \"Granite?85ember\")", "(password . \"[REDACTED]\")"),
            ("password = <<EOT\nFalcon#4171Copper\nEOT", "password = <<EOT\n[REDACTED]\nEOT"),
            ("--auth hCEr7n1AyOHFRuT11NCue1cr3McR", "--auth [REDACTED]"),
            ("ftp.login('u', 'Falcon*7952Violet')", "ftp.login('u', '[REDACTED]')"),
            (
                "I changed the admin password, it's now Granite+8501Granite",
                "I changed the admin password, it's now [REDACTED]",
            ),
            ("use Falcon*2496Falcon to log in", "use [REDACTED] to log in"),
            ("secret_value: lantern#3521Violet", "secret_value: [REDACTED]"),
            ("user = \"bob:Granite^3580harbor\"", "user = \"bob:[REDACTED]\""),
            (
                "<Key>Password</Key><Value>Copper!1732river</Value>",
                "<Key>Password</Key><Value>[REDACTED]</Value>",
            ),
            ("auth=('admin', 'Granite#3025orbit')", "auth=('admin', '[REDACTED]')"),
            (
                "mysqli_connect('localhost', 'root', 'Granite@646harbor', 'db');",
                "mysqli_connect('localhost', 'root', '[REDACTED]', 'db');",
            ),
            (
                "sql.Open(\"mysql\", \"app:kCIhramhynk4@tcp(db:3306)/app\")",
                "sql.Open(\"mysql\", \"app:[REDACTED]@tcp(db:3306)/app\")",
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(redact(input), expected, "{input}");
        }
    }

    #[test]
    fn a_literal_after_a_secret_name_and_any_punctuation_is_redacted() {
        for (input, expected) in [
            ("{db_password, \"yHRQkBabzSNaY\"}", "{db_password, \"[REDACTED]\"}"),
            ("{default_pass, <<\"NRdjHmjw43FGzLI^0c\">>}", "{default_pass, <<\"[REDACTED]\">>}"),
            (
                "-define(API_SECRET, \"8aH80Jiu2H9HIjBhZREQG\").",
                "-define(API_SECRET, \"[REDACTED]\").",
            ),
            ("(api_key => 'AbCd1234EfGh5678')", "(api_key => '[REDACTED]')"),
            ("config[:db_pass] ||= \"s3cr3t-Value42\"", "config[:db_pass] ||= \"[REDACTED]\""),
        ] {
            assert_eq!(redact(input), expected, "{input}");
        }
        // Code and prose after a secret's name: references, types, calls, constants.
        for text in [
            "fn check(token: &Token2) -> Result<Token, Error2>",
            "let token = tokens.next().unwrap();",
            "self.password = Some(Password::from(v2));",
            "if let Some(secret) = secrets.get(KeyId::new(42)) {",
            "  \"password\": \"${DB_PASSWORD}\",",
            "assert_eq!(token.kind, TokenKind::Ident2);",
            "password_hash = bcrypt.hashpw(pw, bcrypt.gensalt(12))",
            "#define TOKEN_MAX 0x7FFF",
            "token => Token2Kind::Literal,",
            "token: Option<Box<TokenTree2>>,",
            "static const char *token_names[] = { \"IDENT2\", \"NUMBER3\" };",
            "secrets.token_hex(16)",
            "credentials -- v2.3.4-rc1",
            "see the token (RFC7519) and password_hash(pw, SALT_v2)",
            "void initializeLoaderPassPass(PassRegistry&);",
        ] {
            assert_eq!(redact(text), text);
        }
    }

    #[test]
    fn a_bare_value_after_a_secret_name_and_punctuation_is_redacted() {
        for (input, expected) in [
            ("{password, Tq8mzLw2x}", "{password, [REDACTED]}"),
            ("token | AbCd1234EfGh5678", "token | [REDACTED]"),
            ("DB_PASS ~ Tq8#mzLw2", "DB_PASS ~ [REDACTED]"),
        ] {
            assert_eq!(redact(input), expected, "{input}");
        }
        // A call, a pointer, a reference, an index, a base64 line that holds `pw+`, words.
        for text in [
            "void initializeLoaderPassPass(PassRegistry&);",
            "FunctionPass *createX86PreAMXConfigPass();",
            "SECStatus PK11_CheckUserPassword(PK11SlotInfo *slot, const char *pw);",
            "xLEokCZYCDzifqrXPW+6MYgKBesntaFJ7qBFVHvmJ2WZICGoo7z7GJa7Um8M7YNR",
            "token | string | the access token |",
            "password, token, or api_key: see Configuration2",
            "token -> TokenKind2::Ident",
            "docker login -u ci --password-stdin%20ghcr.io",
        ] {
            assert_eq!(redact(text), text);
        }
    }

    #[test]
    fn generated_letters_are_a_value_not_a_type_name() {
        // Letters only, in both cases, switching case often and in pairs words rarely make:
        // a generated password, under any secret name and syntax.
        for (input, expected) in [
            ("{\"vault_db_pass\": \"JCQMixbRGByU\"}", "{\"vault_db_pass\": \"[REDACTED]\"}"),
            ("login --password AzXZBgxZuuku --grpc-web", "login --password [REDACTED] --grpc-web"),
            ("setx STRIPE_SECRET \"ioPaSJxXCgGgpil\"", "setx STRIPE_SECRET \"[REDACTED]\""),
        ] {
            assert_eq!(redact(input), expected, "{input}");
        }
        // Type and class names stay: capitals start words (one switch a word), acronyms.
        for text in [
            "token: XMLHttpRequest",
            "password: CryptContext",
            "let password = PasswordField",
            "secret: ConfigMapKeyRef",
            "--password PromptForInput",
            "password: \"HTTPBasicAuthenticator\"",
            "auth_token: UIApplicationDelegate",
            "token: SecretString",
            "key = \"iPhoneSimulator\"",
        ] {
            assert_eq!(redact(text), text);
        }
    }

    #[test]
    fn generated_letters_property_random_strings_go_and_word_names_stay() {
        // A fixed pseudo-random sequence (SplitMix64), so the test is the same on every run.
        let mut state = 0x5EC2_E75E_u64;
        let mut next = move |n: u64| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) % n
        };
        const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        let mut caught = 0;
        for _ in 0..200 {
            let length = 12 + next(12) as usize;
            let value: String =
                (0..length).map(|_| char::from(LETTERS[next(52) as usize])).collect();
            if redact(&format!("--password {value}")) == "--password [REDACTED]" {
                caught += 1;
            }
        }
        // Random letters read as words or switch case rarely only by chance.
        assert!(caught >= 180, "{caught} of 200 random letter strings redacted");
        // Type names made of two to four English words (CamelCase) stay, as they did.
        let words: Vec<&str> = include_str!("bip39-english.txt").lines().collect();
        for _ in 0..300 {
            let count = 2 + next(3) as usize;
            let name: String = (0..count)
                .map(|_| {
                    let word = words[next(words.len() as u64) as usize];
                    word[..1].to_ascii_uppercase() + &word[1..]
                })
                .collect();
            let text = format!("password: {name}");
            assert_eq!(redact(&text), text);
        }
    }

    #[test]
    fn words_after_a_secret_name_without_an_assignment_stay() {
        for text in [
            "it should pass desired_capacity_hint=0.",
            "the key value store is fast",
            "password reset link expires in 24h",
            "a token stream of 4096 tokens",
            "pass the build-id v2.0.1 along",
            "License: BSD-3-clause-generic",
            "export PATH=$HOME/bin:$PATH",
            "key ssh-ed25519 for the deploy user",
            "mkdir -p /var/lib/App-2/data && cargo test -p compaction-core",
            "docker run -p 127.0.0.1:8080:80 nginx",
            "echo hello | sudo tee /etc/motd",
            "(\"password\", \"token\")",
            "getenv(\"API_KEY\", \"default\")",
            "git clone git@github.com:org/repo.git",
            "| password | string | the user's password |",
            "Forgot your password. Then reset it.",
            "--auth basic --auth-type digest",
            "P11_KIT_URI_FOR_OBJECT_ON_TOKEN | P11_KIT_URI_FOR_MODULE,",
            "conn.connect(\"localhost\", \"app_db\")",
            "the password is stored in /etc/App/Secret1.conf",
            "user = \"nobody:nogroup\"",
            "Use the password to unlock the keyring with PKCS#12 files.",
        ] {
            assert_eq!(redact(text), text);
        }
    }
}
