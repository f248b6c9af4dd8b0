//! The table of secret rules: one named regular expression per kind of secret.
//!
//! Modelled on gitleaks' rule set (provider key prefixes, key/value assignments, URL
//! credentials, JWTs, authorization headers), written here as data. Each rule's pattern
//! captures the secret in the group named `secret`; the text around it (`password=`,
//! `postgres://user:`, `Bearer `) stays, so the summary still says what was there. A rule
//! with a [`Check`] redacts a match only when the captured value passes it, which keeps
//! code such as `token = get_token()` or `max_tokens: 4096` out of the redaction.
//!
//! Text may be JSON-escaped (a shell command inside a tool call's arguments), so a `\n`
//! escape counts as a line break before a name.
//!
//! Invariant: every pattern compiles (a unit test compiles the whole table) and has a
//! `secret` group.

/// What a captured value must look like for the match to be redacted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// Always redact: the pattern alone is specific enough (a provider's key format).
    None,
    /// A value assigned to a secret-looking name: redact unless it is a reference to
    /// something else (a variable, a call, a placeholder, `null`, a type name).
    AssignedValue,
    /// A value found near a secret-looking word without an assignment: redact only when
    /// it looks random (letters and digits mixed, high character entropy).
    HighEntropy,
    /// A value after a name with no `=` or `:` between them (a space, a connecting word):
    /// redact when it is made like a chosen or generated password (three of lower case,
    /// upper case, digits and symbols; or random), not a reference.
    StrongValue,
    /// Like [`Check::StrongValue`], for a value whatever came before it is known to name a
    /// password (a short name such as `pw`, a password flag): words and a number are a
    /// password there, as after `password`.
    PasswordValue,
    /// Like [`Check::HighEntropy`], but a bare hex digest or UUID is not taken for a secret
    /// (for broad names such as `key` or `session`, where hashes and ids are common).
    RandomNotDigest,
    /// A word in prose after "password is": redact when it is made like a password (letters
    /// and a digit or symbol, not a reference).
    Password,
    /// The password of a URL's user info (`scheme://user:PASSWORD@host`): the URL's syntax
    /// says it is one, whatever it looks like (a word, letters only, digits), so it is
    /// redacted unless it stands for one (a variable, a template, a mask, a word naming the
    /// field; see `checks::is_password_placeholder`).
    UrlPassword,
    /// A base64 run: redact when it decodes to text that holds a secret (`user:password`,
    /// a private key, an assignment the other rules redact).
    Encoded,
    /// A `Cookie:` or `Set-Cookie:` header value: each cookie whose name speaks of a
    /// session, a token or authentication, or whose value looks random, is redacted.
    Cookies,
}

/// One kind of secret.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// A stable name, for tests and reports (gitleaks' id where one exists).
    pub name: &'static str,
    /// The pattern; the secret is the group named `secret`.
    pub pattern: &'static str,
    /// What the captured value must satisfy.
    pub check: Check,
}

pub(super) const fn rule(name: &'static str, pattern: &'static str, check: Check) -> Rule {
    Rule { name, pattern, check }
}

/// Name endings that mark the value assigned to a name as a secret, as a regex group
/// (the pattern is case-insensitive; `_KEY` only counts in upper case, as in `.env` files,
/// so `cache_key` or `primary_key` in code do not). `pass` ends a name in any casing
/// (`SSHPASS`, `dbPass`, `adminpass`; English words such as `bypass` are told apart by the
/// checks), and the word for a password, a key or a token counts in other human languages
/// too (`passwort`, `contraseña`, `senha`, `пароль`, `密码`, `パスワード`, `비밀번호`…).
macro_rules! secret_name {
    () => {
        r"(?:password|passwd|passphrase|passcode|pwd|\bpw|pass\b|[_\-.]pass|\bpsk|secret|(?:passwort|kennwort|wachtwoord|l[öo]senord|passord|adgangskode|salasana|lykilor[ðd]|contrase[ñn]a|mot[_\-. ]?de[_\-. ]?passe|palavra[_\-. ]?passe|contrasinal|пароль|лозинка|has[łl]o|lozinka|jelsz[óo]|[şs]ifre|parool|salas[õo]na|slapta[žz]odis|κωδικός|סיסמה|كلمة[_ ]?(?:ال)?مرور|पासवर्ड|密码|密碼|口令|暗証番号|パスワード|비밀번호|암호|m[ậa]t[_\- ]?kh[ẩa]u|รหัสผ่าน|kata[_\- ]?(?:sandi|laluan)|schl[üu]ssel|токен|ключ|令牌|密钥|秘钥|秘密鍵|トークン|토큰|geheimnis|(?:\b|[_\-.])(?:senha|heslo|geslo|mdp|clave|chave|parola|secreto|segreto|cl[ée][_\-. ]?(?:api|secr[èe]te|priv[ée]e)))(?:[_\-. ]?api)?|secret[_\-]?key|token|api[_\-]?key|access[_\-]?key|private[_\-]?key(?:[_\-]?id)?|signing[_\-]?key|encryption[_\-]?key|master[_\-]?key|client[_\-]?key|auth[_\-]?key|license[_\-]?key|account[_\-]?key|credentials?|requirepass|masterauth|authtok|pw\b|\bpsk|(?-i:[A-Z0-9]_KEY)|(?-i:[A-Z0-9]_PAT\b))(?:[_\-.]?(?:value|plain))?"
    };
}

/// The English secret words alone (no other languages, no `pass` endings), for rules whose
/// syntax is rare enough that the word list's size would cost more to compile than it finds.
macro_rules! secret_word {
    () => {
        r"(?:password|passwd|passphrase|passcode|pwd|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|credentials?|(?-i:[A-Z0-9]_KEY)|(?-i:[A-Z0-9]_PAT\b))"
    };
}

/// The rules, most specific first (a value redacted by one rule is not seen by later ones).
pub const RULES: &[Rule] = &[
    rule(
        "private-key",
        // An armored block whose label names private, secret or static key material (PEM,
        // OpenSSH, PGP, OpenVPN static keys).
        r"(?s)(?P<secret>-----BEGIN[ A-Za-z0-9]*(?:PRIVATE KEY(?: BLOCK)?|SECRET KEY(?: BLOCK)?|(?i:static key)[ A-Za-z0-9]*)-----(?:\s|\\+[rn])+(?:[A-Za-z\-]+:[^\n]*(?:\n|\\+n))*(?:\s|\\+[rn])*(?:[A-Za-z0-9+/=]{4}|\[REDACTED\]).*?(?:-----END[ A-Za-z0-9]*(?:PRIVATE KEY(?: BLOCK)?|SECRET KEY(?: BLOCK)?|(?i:static key)[ A-Za-z0-9]*)-----|\z))",
        Check::None,
    ),
    rule("anthropic-api-key", r"\b(?P<secret>sk-ant-[a-z0-9]+-[A-Za-z0-9_\-]{20,})", Check::None),
    rule(
        "openai-api-key",
        r"\b(?P<secret>sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,})",
        Check::None,
    ),
    rule(
        "aws-access-key-id",
        r"\b(?P<secret>(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})\b",
        Check::None,
    ),
    rule(
        "aws-secret-access-key",
        r#"(?i)aws_?secret_?(?:access_?)?key["'\\]*\s*(?:=|:)\s*["'\\]*(?P<secret>[A-Za-z0-9/+]{40})\b"#,
        Check::None,
    ),
    rule("github-token", r"\b(?P<secret>gh[pousr]_[A-Za-z0-9]{36,255})\b", Check::None),
    rule(
        "github-fine-grained-pat",
        r"\b(?P<secret>github_pat_[A-Za-z0-9_]{22,255})\b",
        Check::None,
    ),
    rule(
        "gitlab-token",
        r"\b(?P<secret>gl(?:pat|dt|rt|ptt|cbt|imt|oas|soat|ffct|ft)-[A-Za-z0-9_\-]{20,})",
        Check::None,
    ),
    rule("slack-token", r"\b(?P<secret>xox[abposre]-[A-Za-z0-9\-]{10,})", Check::None),
    rule("slack-app-token", r"\b(?P<secret>xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+)", Check::None),
    rule(
        "slack-webhook-url",
        r"(?P<secret>https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_\-]{20,})",
        Check::None,
    ),
    rule(
        "stripe-secret-key",
        r"\b(?P<secret>(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,99})\b",
        Check::None,
    ),
    rule("stripe-webhook-secret", r"\b(?P<secret>whsec_[A-Za-z0-9+/=]{20,})", Check::None),
    rule("google-api-key", r"\b(?P<secret>AIza[0-9A-Za-z_\-]{35})", Check::None),
    rule("google-oauth-client-secret", r"\b(?P<secret>GOCSPX-[A-Za-z0-9_\-]{20,})", Check::None),
    rule("google-oauth-access-token", r"\b(?P<secret>ya29\.[0-9A-Za-z_\-]{20,})", Check::None),
    rule("npm-token", r"\b(?P<secret>npm_[A-Za-z0-9]{36})\b", Check::None),
    rule("pypi-token", r"\b(?P<secret>pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{40,})", Check::None),
    rule("huggingface-token", r"\b(?P<secret>hf_[A-Za-z0-9]{30,})\b", Check::None),
    rule("twilio-api-key", r"\b(?P<secret>SK[0-9a-fA-F]{32})\b", Check::None),
    rule(
        "sendgrid-api-key",
        r"\b(?P<secret>SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{30,64})",
        Check::None,
    ),
    rule("mailgun-api-key", r"\b(?P<secret>key-[0-9a-f]{32})\b", Check::None),
    rule("digitalocean-token", r"\b(?P<secret>do[opr]_v1_[a-f0-9]{64})\b", Check::None),
    rule("shopify-token", r"\b(?P<secret>shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})\b", Check::None),
    rule("databricks-token", r"\b(?P<secret>dapi[a-f0-9]{32})\b", Check::None),
    rule(
        "jwt",
        r"\b(?P<secret>eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*)",
        Check::None,
    ),
    // A URL's user info ends at the last `@` of the authority (the one after which no other
    // `@` comes before the host ends at `/`, `?`, `#`, a space, a quote or the end), as URL
    // parsers read it: a password written with a raw `@` or `/` (`u:p@ss@host`,
    // `app:pa/ss@db`) is redacted whole, and a user written raw as an e-mail address
    // (`first.last@corp.example:PW@host`) is a user. A password may hold a `/` but not begin
    // with one, nor with digits and then one: `host:8080/@scope/pkg` is a port and a path.
    rule(
        "url-password",
        r#"\b[A-Za-z][A-Za-z0-9+.\-]{1,20}://[^\s:/"'<>\\\[\]]{0,128}:(?P<secret>[0-9]*[^\s"'<>\\0-9/@][^\s"'<>\\]{0,255}?|[0-9]{1,256})@[^\s@/?#"'<>\\]*(?:[/?#\s"'<>\\]|$)"#,
        Check::UrlPassword,
    ),
    rule(
        "url-query-secret",
        r#"(?i)[?&;](?:password|passwd|pwd|pass|token|access_token|refresh_token|id_token|auth_token|api_key|apikey|secret|client_secret|sig|signature|x-amz-signature|x-amz-security-token)=(?P<secret>[^&\s"'#<>\\]{3,})"#,
        Check::None,
    ),
    rule(
        "authorization-header",
        r#"(?i)\b(?:proxy-)?authorization["'\\]*\s*[:=]\s*["'\\]*(?:(?:bearer|basic|token|digest|apikey|api-key|bot|ssws|key|negotiate|ntlm|sso-key|klaviyo-api-key|otoken|jwt|gitlab-token)(?:\s+|=))?(?P<secret>[A-Za-z0-9._~+/\-:]{8,}=*)"#,
        Check::AssignedValue,
    ),
    rule("bearer-token", r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/\-]{16,}=*)", Check::None),
    rule(
        "api-key-header",
        r#"(?i)\b(?:x-api-key|api-key|x-auth-token|x-access-token|private-token|x-goog-api-key)["'\\]*\s*:\s*["'\\]*(?P<secret>[A-Za-z0-9._~+/\-]{8,}=*)"#,
        Check::AssignedValue,
    ),
    rule(
        "curl-user-password",
        r#"(?:^|\s)(?:-u|--user|-U|--proxy-user)\s*["']?[^\s:"'+%][^\s:"']{0,63}:(?P<secret>[^\s"']{1,1024})"#,
        Check::AssignedValue,
    ),
    rule(
        "cli-secret-flag",
        r#"(?i)(?:^|[\s=])--?[a-z0-9\-]*(?:password|passwd|passphrase|pass|token|api-?key|auth-?key|access-?key|private-?key|signing-?key|secret|storepass|keypass|authkey)(?:=|[ \t]+)["']?(?P<secret>[^\s"'\\]{3,})"#,
        Check::AssignedValue,
    ),
    rule(
        "mysql-password-flag",
        r"\b(?:mysql|mysqldump|mysqladmin|mysqlimport)\b[^\n]*?[ \t]-p(?P<secret>[^\s\-\\][^\s\\]*)",
        Check::None,
    ),
    rule(
        "discord-webhook-url",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/(?P<secret>[A-Za-z0-9_\-]{40,})",
        Check::None,
    ),
    rule(
        "telegram-bot-token",
        r"(?:^|[^0-9A-Za-z])(?:bot)?(?P<secret>\d{5,16}:A[A-Za-z0-9_\-]{34})",
        Check::None,
    ),
    rule(
        "discord-bot-token",
        r"\b(?P<secret>[A-Za-z0-9]{24,28}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38})\b",
        Check::HighEntropy,
    ),
    rule("fcm-server-key", r"\b(?P<secret>AAAA[A-Za-z0-9_\-]{7}:[A-Za-z0-9_\-]{140})", Check::None),
    rule(
        "terraform-cloud-token",
        r"\b(?P<secret>[a-z0-9]{14}\.atlasv1\.[a-z0-9_\-=]{60,})",
        Check::None,
    ),
    rule("age-secret-key", r"\b(?P<secret>AGE-SECRET-KEY-1[0-9A-Z]{58})", Check::None),
    rule(
        "doppler-token",
        r"\b(?P<secret>dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9]{2,35}\.)?[A-Za-z0-9]{40,44})",
        Check::None,
    ),
    rule("vault-token", r"\b(?P<secret>hv[sbr]\.[A-Za-z0-9_\-]{24,})", Check::None),
    rule("atlassian-api-token", r"\b(?P<secret>ATATT3[A-Za-z0-9_\-=]{50,})", Check::None),
    rule(
        "azure-client-secret",
        r"(?:^|[^A-Za-z0-9_~.\-])(?P<secret>[A-Za-z0-9_~.\-]{3}\dQ~[A-Za-z0-9_~.\-]{31,34})",
        Check::None,
    ),
    rule("heroku-api-key", r"\b(?P<secret>HRKU-[A-Za-z0-9_\-]{40,})", Check::None),
    rule(
        "prefixed-token",
        // Tokens whose prefix names their service: Docker Hub, Notion, Airtable, Figma,
        // Grafana, New Relic, Pulumi, RubyGems, Contentful, Sentry, Tailscale, 1Password,
        // OpenRouter, Groq, Replicate, Pinecone, xAI, Netlify, Fly, Linear, Brevo, Square,
        // Clojars, Shopify, Postman, Buildkite, Supabase, PlanetScale, Mapbox, Dynatrace.
        r"\b(?P<secret>(?:dckr_pat_|ntn_|secret_|pat[A-Za-z0-9]{14}\.|figd_|glc_|glsa_|NRAK-|pul-|rubygems_|CFPAT-|sntry[su]_|tskey-(?:auth|client|api)-|ops_|sk-or-v1-|gsk_|r8_|pcsk_|xai-|nfp_|fo1_|lin_api_|xkeysib-|sq0csp-|sq0atp-|CLOJARS_|shpat_|shpss_|PMAK-|bkua_|sbp_|pscale_tkn_|pscale_pw_|sk\.eyJ|dt0c01\.|EAA[A-Za-z0-9]{20})[A-Za-z0-9_\-.=]{20,})",
        Check::HighEntropy,
    ),
    rule(
        "putty-private-lines",
        r"(?s)Private-Lines:\s*\d+\s*(?:\r?\n|\\n)(?P<secret>.*?)(?:Private-MAC:|\z)",
        Check::None,
    ),
    rule(
        "url-userinfo-token",
        // `https://<key>@o1.ingest.sentry.io`, `https://<token>@github.com`: a random user
        // name without a password is a credential.
        r"\b[A-Za-z][A-Za-z0-9+.\-]{1,20}://(?P<secret>[A-Za-z0-9_\-]{20,})@",
        Check::HighEntropy,
    ),
    rule(
        "cookie-header",
        r#"(?im)\b(?:set-)?cookie["'\\]*\s*:\s*(?P<secret>[^\n"'\\]+)"#,
        Check::Cookies,
    ),
    rule(
        "curl-cookie-flag",
        r#"(?:^|\s)(?:-b|--cookie)\s+["']?(?P<secret>[^\s"'@][^"'\n]*)"#,
        Check::Cookies,
    ),
    rule(
        "session-id",
        r#"(?i)(?:^|[^A-Za-z0-9])[A-Za-z0-9_.\-]*(?:sess(?:ion)?(?:[_\-.]?(?:id|key|token|secret))?|sid|csrf[a-z_\-]*|xsrf[a-z_\-]*|remember[_\-]?(?:token|me))["'\\]*[ \t]*(?:=|:|=>)[ \t]*["'\\]*(?P<secret>[A-Za-z0-9%._\-+/=]{16,})(?:[\s"'\\;,&)}\]]|$)"#,
        Check::HighEntropy,
    ),
    rule(
        "html-secret-input",
        r#"(?i)name=["'\\]*[\w\-]*(?:csrf|token|secret|password|key|auth)[\w\-]*["'\\]*[ \t]+value=["'\\]*(?P<secret>[^"'\\\s]{8,})"#,
        Check::HighEntropy,
    ),
    rule(
        "secret-header",
        // `DD-API-KEY: …`, `X-Figma-Token: …`, `Circle-Token: …`, `X-Auth-Key: …`.
        r#"(?i)(?:^|[\s"'{,>])[A-Za-z0-9\-]*(?:token|secret|passw[a-z]*|auth|api-key|app-key|application-key|access-key|private-key|signature|credential)[A-Za-z0-9\-]*["']?[ \t]*:[ \t]*["']?(?P<secret>[A-Za-z0-9._~+/\-=]{16,})(?:[\s"'\\;,&)}\]]|$)"#,
        Check::HighEntropy,
    ),
    rule(
        "signing-key-literal",
        // A key literal handed to an HMAC or JWT call.
        r#"(?:hmac\.new\(\s*b?|HMAC\.new\(\s*b?|createHmac\(\s*["'][\w\-]+["']\s*,\s*|hmac\.New\([^,\n]+,\s*\[\]byte\(\s*|new_from_slice\(\s*b?|new_varkey\(\s*b?|SecretKeySpec\(\s*|jwt\.(?:sign|encode|verify|decode)\([^"'\n]*?,\s*|JWT\.encode\([^"'\n]*?,\s*|Jwts\.builder\(\)[^\n]*?signWith\([^"'\n]*?)["'](?P<secret>[^"'\n]{6,})["']"#,
        Check::AssignedValue,
    ),
    rule(
        "secret-literal-argument",
        // `define('DB_PASSWORD', '…')`, `os.environ.setdefault("API_TOKEN", "…")`.
        concat!(
            r#"(?i)["'][A-Za-z0-9_\-.]*"#,
            secret_name!(),
            r#"["']\s*,\s*["'](?P<secret>[^"'\n]{3,256})["']"#
        ),
        Check::Password,
    ),
    rule(
        "secret-xml-element",
        concat!(
            r#"(?i)<[A-Za-z0-9_\-.:]*"#,
            secret_name!(),
            r#">(?P<secret>[^<\s][^<\n]{2,255})</"#
        ),
        Check::AssignedValue,
    ),
    rule(
        "secret-concatenated",
        // A secret split into adjacent or `+`-joined string literals.
        concat!(
            r#"(?i)[A-Za-z0-9_\-.]*"#,
            secret_name!(),
            r#"["']?\s*(?::=|=|:)\s*\(?\s*(?P<secret>(?:["'][^"'\n]{4,}["']\s*\+?\s*){2,})"#
        ),
        Check::None,
    ),
    rule(
        "secret-continued-line",
        // `TOKEN=abc…\` continued on the next line.
        r#"(?i)[A-Za-z0-9_]*(?:password|secret|token|_key|passphrase)["']?\s*=\s*["']?(?P<secret>[^\s"'\\]+(?:\\\r?\n[^\s"'\\]+)+)"#,
        Check::None,
    ),
    rule(
        "secret-on-next-line",
        // YAML: `password:` with the value on the next line (plain or a block scalar).
        concat!(
            r#"(?mi)^[ \t\-]*["']?[A-Za-z0-9_\-.]*"#,
            secret_name!(),
            r#"["']?[ \t]*:[ \t]*(?:[>|][+\-]?)?[ \t]*\r?\n[ \t]+(?P<secret>[^\s#:][^\n:]{2,255})$"#
        ),
        Check::AssignedValue,
    ),
    rule(
        "cli-password-argument",
        // Passwords given as short options or plain arguments to well-known programs.
        r#"(?:\bsshpass\s+(?:-[a-oq-zA-Z]\S*\s+)*-p\s*|\bredis-cli\b[^\n]*?\s(?:-a|--pass)\s+|\b(?:login|mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|sqlcmd|bcp)\b[^\n]*?\s-[pP]\s+|\bldap(?:search|add|modify|delete|passwd|compare|whoami)\b[^\n]*?\s-w\s+|\b(?:zip|unzip)\b[^\n]*?\s-P\s+|\b(?:7z|7za|7zr|rar|unrar)\b[^\n]*?\s-p|\bssh-keygen\b[^\n]*?\s-[NP]\s+|\bnmcli\b[^\n]*?\bpassword\s+|\bwpa_passphrase\s+\S+\s+|\brabbitmqctl\s+(?:add_user|change_password)\s+\S+\s+|\bnet\s+user\s+\S+\s+|\bchpasswd\b[^\n]*?:|\bhtpasswd\s+(?:-[A-Za-z]+\s+)*-[A-Za-z]*b[A-Za-z]*\s+(?:-[A-Za-z]+\s+)*\S+\s+\S+\s+|-(?:passin|passout|pass|password)\s+pass:|\bpass:|ConvertTo-SecureString\s+(?:-String\s+)?)["']?(?P<secret>[^\s"'\-/*$][^\s"']*)"#,
        Check::AssignedValue,
    ),
    rule(
        "sql-identified-by",
        // `CREATE USER x IDENTIFIED BY '…'`, `GRANT … TO u IDENTIFIED BY …`.
        r#"(?i)\b(?:user|role|login|to)\b[^\n;]{0,120}?\bidentified\s+(?:with\s+\S+\s+)?by\s+(?:password\s+|values\s+)?["'`]?(?P<secret>[^\s"'`;]*[^\s"'`;,])"#,
        Check::AssignedValue,
    ),
    rule(
        "oracle-user-password-at",
        // `sqlplus scott/tiger@orcl`, `expdp hr/…@prod`, `jdbc:oracle:thin:scott/…@host`.
        r#"(?i)\b(?:sqlplus|sqlldr|expdp|impdp|exp|imp|rman|dgmgrl|connect|conn|target|catalog|auxiliary|thin:)\s*(?:-\w+\s+)*["']?[A-Za-z0-9_$#]+/(?P<secret>[^\s/@"']+)@"#,
        Check::AssignedValue,
    ),
    rule(
        "user-comma-password",
        // `lftp -u user,password`.
        r#"(?:^|\s)-u\s+["']?[^\s,"'\-][^\s,"']*,(?P<secret>[^\s"']+)"#,
        Check::AssignedValue,
    ),
    rule(
        "user-and-password-flags",
        // A password flag on the same command line as a user flag: `-u admin -p …`,
        // `-U sa -P …`, `-username x -pw …`, `/u:admin /p:…`.
        r#"(?:\s-{1,2}(?:username|user|login|u|U|l)[ =:]*["']?[^\s"'\-][^\s"']*["']?\s+(?:[^\n]*?\s)?(?:-{1,2}(?:password|passwd|pass|pw)[ =]+|-(?:p|P|w)[ =]*)|(?i:\s/(?:u|user|username):\S+\s+(?:[^\n]*?\s)?/(?:p|pass|password|pw|rp)(?::|\s+)))["']?(?P<secret>[^\s"'\-/][^\s"']*)"#,
        Check::AssignedValue,
    ),
    rule(
        "slash-password-flag",
        // Windows tools: `/p:…`, `/pass:…`, `/password:…`.
        r#"(?i)(?:^|\s)/(?:p|pass|password|pwd|pw)[:=]["']?(?P<secret>[^\s"']+)"#,
        Check::AssignedValue,
    ),
    rule(
        "net-use-password",
        // `net use Z: \\srv\share PASSWORD /user:…` and `net use \\srv /user:U PASSWORD`.
        r#"(?i)\bnet\s+use\b[^\n]*?(?:\\\\[^\s]+\s+|/user:\S+\s+)["']?(?P<secret>[^\s/*"'][^\s"']*)"#,
        Check::AssignedValue,
    ),
    rule(
        "snmp-community",
        r#"\bsnmp[a-z]*\b[^\n]*?\s-(?:c|A|X)\s+["']?(?P<secret>[^\s"']+)"#,
        Check::AssignedValue,
    ),
    rule(
        "bracketed-host-credential",
        // Postfix `sasl_passwd`: `[smtp.host]:587 user@example.com:password`.
        r#"\[[A-Za-z0-9.\-]+\](?::\d+)?[ \t]+[^\s:\[\]'"]+:(?P<secret>[^\s'"]+)"#,
        Check::AssignedValue,
    ),
    rule(
        "wifi-qr-password",
        r#"WIFI:[^\n]*?\bP:(?P<secret>"[^"\n]*"|(?:\\.|[^;\\\s])+)"#,
        Check::None,
    ),
    rule(
        "ipsec-secrets-line",
        r#"(?i):\s*(?:PSK|EAP|XAUTH|NTLM|P12|PIN)\s+["'](?P<secret>[^"'\n]+)["']"#,
        Check::None,
    ),
    rule(
        "config-directive-secret",
        // Directives whose argument is a secret: redis `requirepass`/`masterauth`, LDAP
        // `bindpw`/`rootpw`, Cisco `enable secret`, `username … secret`, IPsec keys, SNMP
        // communities, `set psksecret`, `CONFIG SET requirepass`.
        r#"(?mi)(?:^[ \t]*|\bconfig\s+set\s+|\bset\s+)(?:requirepass|masterauth|bindpw|rootpw|(?:sentinel\s+)?auth-pass\s+\S+|enable\s+(?:secret|password)|username\s+\S+(?:\s+privilege\s+\d+)?\s+(?:secret|password)|snmp-server\s+community|crypto\s+isakmp\s+key|pre-shared-key|psksecret|system\s+root-authentication\s+\S+)(?:[ \t]+\d)?[ \t]+["']?(?P<secret>[^\s"']+)"#,
        Check::AssignedValue,
    ),
    rule(
        "set-secret-command",
        // `set <secret name> <value>` (firewall and shell configuration).
        r#"(?i)\bset\s+[\w.\-]*(?:password|passwd|secret|token|api[_\-]?key|access[_\-]?key|psk)[\w.\-]*[ \t]+["']?(?P<secret>[^\s"']+)"#,
        Check::Password,
    ),
    rule(
        "quoted-config-directive",
        // The same directives quoted in a command or a JSON string (`"requirepass …"`).
        r#"(?i)["'][ \t]*(?:requirepass|masterauth|bindpw|rootpw|(?:sentinel\s+)?auth-pass\s+\S+|enable\s+secret|pre-shared-key|psksecret)(?:[ \t]+\d)?[ \t]+(?P<secret>[^\s"']+)"#,
        Check::AssignedValue,
    ),
    rule(
        "password-directive",
        // A line `password …` (Cisco `line vty`): only a value made like a password.
        r#"(?mi)^[ \t]*(?:password|passwd|secret|key)(?:[ \t]+\d)?[ \t]+["']?(?P<secret>[^\s"']+)[ \t]*$"#,
        Check::Password,
    ),
    rule(
        "key-flag",
        r#"(?:^|\s)--?(?:key|psk|tls-psk|community|secret)[= ]["']?(?P<secret>[^\s"']+)"#,
        Check::Password,
    ),
    rule(
        "xml-secret-attribute",
        // `<add key="StorageAccountKey" value="…"/>`, `<property name="…Password" value="…"/>`.
        concat!(
            r#"(?i)\b(?:key|name|id)\s*=\s*["'][^"'\n]*"#,
            secret_name!(),
            r#"[^"'\n]*["'][^>\n]*?\bvalue\s*=\s*["'](?P<secret>[^"'\n]{3,})["']"#
        ),
        Check::AssignedValue,
    ),
    rule(
        "xml-secret-named-element",
        // `<entry key="api.secret">…</entry>`.
        concat!(
            r#"(?i)\b(?:key|name|id)\s*=\s*["'][^"'\n]*"#,
            secret_name!(),
            r#"[^"'\n]*["'][^>\n]*>(?P<secret>[^<\n]{3,})</"#
        ),
        Check::AssignedValue,
    ),
    rule(
        "user-slash-password-in-prose",
        // "creds are bob / …", "login: bob/…", "login admin:…".
        r#"(?i)\b(?:creds?|credentials?|login)\b[^\n]{0,30}?[\w.@\-]+\s*(?:/\s*|:)(?P<secret>[^\s"'/:\\]{4,})"#,
        Check::Password,
    ),
    rule(
        "registry-login-token",
        r#"\b(?:cargo\s+login|npm\s+token\s+\S+|gh\s+auth\s+login\s+--with-token)\s+(?P<secret>[A-Za-z0-9_\-]{16,})"#,
        Check::None,
    ),
    rule(
        "smbclient-password",
        r#"\b(?:smbclient|smbmap|rpcclient|mount\.cifs)\b[^\n]*?(?:-U|--user)[= ]["']?[^\s%"']+%(?P<secret>[^\s"']+)"#,
        Check::None,
    ),
    rule(
        "netrc-password",
        r#"(?i)\b(?:machine|default|login)\s+\S+(?:\s|\\n)+(?:login\s+\S+(?:\s|\\n)+)?password\s+(?P<secret>[^\s\\]+)"#,
        Check::None,
    ),
    rule(
        "pgpass-line",
        r"(?i)pgpass[^\n]*\n(?:[^\n]*\n){0,5}?[^:\s]+:(?:\d+|\*):[^:\s]+:[^:\s]+:(?P<secret>[^\s:]+)",
        Check::None,
    ),
    rule(
        "secret-assignment-double-quoted",
        concat!(
            r#"(?mi)(?:^|\\[nrt]|[^A-Za-z0-9_\-.]|\b[bfruBFRUL]{1,2}["'])["'\\]*[A-Za-z0-9_\-.]*"#,
            secret_name!(),
            r#"["'\\\]]*[ \t]*(?::=|=>|->|<-|=|:|：)[ \t]*\\?"(?P<secret>[^"\\\n]{3,256})\\?""#
        ),
        Check::AssignedValue,
    ),
    rule(
        "secret-assignment-single-quoted",
        concat!(
            r#"(?mi)(?:^|\\[nrt]|[^A-Za-z0-9_\-.]|\b[bfruBFRUL]{1,2}["'])["'\\]*[A-Za-z0-9_\-.]*"#,
            secret_name!(),
            r#"["'\\\]]*[ \t]*(?::=|=>|->|<-|=|:|：)[ \t]*'(?P<secret>[^'\\\n]{3,256})'"#
        ),
        Check::AssignedValue,
    ),
    rule(
        "secret-assignment",
        concat!(
            r#"(?mi)(?:^|\\[nrt]|[^A-Za-z0-9_\-.]|\b[bfruBFRUL]{1,2}["'])["'\\]*[A-Za-z0-9_\-.]*"#,
            secret_name!(),
            r#"["'\\\]]*[ \t]*(?::=|=>|->|<-|=|:|：)[ \t]*(?P<secret>[^\s"'`,;\\<]{3,256})(?:[,;)]|[ \t]+[A-Za-z=|&?:<>!]+)?"#
        ),
        Check::AssignedValue,
    ),
    rule(
        "env-secret-inside-name",
        // `SECRET_KEY_BASE=…`, `PASSWORD_PEPPER=…`: an upper-case name holding a secret
        // word anywhere, with a random-looking value.
        r"(?m)(?:^|\\[nrt]|[^A-Za-z0-9_])[A-Z0-9_]*(?:SECRET|PASSWORD|PASSWD|TOKEN|PRIVATE_KEY|API_KEY)[A-Z0-9_]*[ \t]*[=:][ \t]*[\x22']?(?P<secret>[A-Za-z0-9+/_\-.=]{8,})",
        Check::HighEntropy,
    ),
    rule(
        "password-in-prose",
        r#"(?i)\b(?:password|passwd|passcode|passphrase|pwd|pw)(?:\s+(?:is|was|for\s+\S+\s+is|=|:)|\s*[:=])?\s+["'`]?(?P<secret>[^\s"'`,;]{6,64})"#,
        Check::Password,
    ),
    rule(
        "pass-colon-in-prose",
        // "login: admin, pass: …".
        r#"(?i)\bpass\s*[:=]\s*["'`]?(?P<secret>[^\s"'`,;]{6,64})"#,
        Check::Password,
    ),
    rule(
        "use-as-password",
        // "use … as the admin password".
        r#"(?i)\buse\s+["'`]?(?P<secret>[^\s"'`]{6,64})["'`]?\s+as\s+(?:the\s+|my\s+|a\s+|your\s+)?(?:[\w\-]+\s+)?(?:password|passphrase|passcode|pin|token|secret|key)\b"#,
        Check::Password,
    ),
    rule(
        "key-in-prose",
        r#"(?i)\b(?:api[ _\-]?key|token|secret|credential|access[ _\-]?key)s?\s+(?:is|was)\s*:?\s+["'`]?(?P<secret>[^\s"'`,;]{8,})"#,
        Check::Password,
    ),
    rule(
        "broad-secret-name",
        // Names that hold a secret as often as not (`auth`, `key`, `salt`, `dsn`, `sig`):
        // only random-looking values that are not digests or ids.
        r#"(?i)(?:^|[^A-Za-z0-9_])["']?[A-Za-z0-9_\-.]*(?:auth|key|sig|signature|salt|pepper|hmac|jwt|dsn|seed|cred)["']?[ \t]*(?:=|:|=>)[ \t]*["']?(?P<secret>[A-Za-z0-9+/_\-.=%~]{16,})(?:[\s"'\\;,&)}\]]|$)"#,
        Check::RandomNotDigest,
    ),
    rule(
        "base64-encoded-secret",
        r"(?:^|[^A-Za-z0-9+/_\-])(?P<secret>[A-Za-z0-9+/_\-]{16,}={0,2})",
        Check::Encoded,
    ),
    rule(
        "secret-near-word",
        r#"(?i)\b(?:api[ _\-]?key|secret|token|password|passwd|credential|access[ _\-]?key|private[ _\-]?key)s?\b[^\n]{0,24}?[\s:="'(\\](?P<secret>[A-Za-z0-9+/_\-]{20,}={0,2})"#,
        Check::HighEntropy,
    ),
];
