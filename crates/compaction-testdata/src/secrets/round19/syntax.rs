//! Round 19 families of syntax: the quoting forms of Perl, Ruby, Rust, C#, Python and PHP,
//! JSON5, HJSON and flow mappings, shell process substitution and file descriptor feeds,
//! kubeconfig `exec` environments and `auth-provider` configs, and compound or inflected
//! words for a password in several languages.

use super::super::families::{Family, pick_line, text};
use super::super::values::bare_token;
use super::{chosen_pw, host, user, word_pw};

pub(super) const FAMILIES: &[Family] = &[
    ("quoting-forms-of-other-languages", |rng| {
        let pw = if rng.chance(0.5) { chosen_pw(rng) } else { word_pw(rng) };
        let name = user(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "my $db_pass = q{{{pw}}};\nmy $dbh = DBI->connect($dsn, '{name}', $db_pass);"
                ),
                format!("my %cfg = (user => '{name}', password => qq({pw}));"),
                format!("SMTP_PASSWORD = %q[{pw}]\nSMTP_USER = %w[{name}].first"),
                format!("const API_SECRET: &str = r#\"{pw}\"#;"),
                format!("private const string ConnPassword = @\"{pw}\";"),
                format!("db_password = b'{pw}'.decode()"),
                format!("var dbPassword = `{pw}`"),
                format!("$secret = <<<'EOT'\n{pw}\nEOT;"),
                format!("set smtp_pass {{{pw}}}\nsmtp::login $tok {name} $smtp_pass"),
            ],
        );
        text(pw, line)
    }),
    ("json5-hjson-and-flow-mappings", |rng| {
        let pw = if rng.chance(0.5) { chosen_pw(rng) } else { word_pw(rng) };
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "// config.json5\n{{\n  host: '{at}',\n  user: '{name}',\n  password: '{pw}', // rotate quarterly\n}}"
                ),
                format!("{{\n  # hjson\n  db: {{\n    user: {name}\n    passwd: {pw}\n  }}\n}}"),
                format!("database: {{host: {at}, user: {name}, pass: {pw}}}"),
                format!("creds: [{name}, {pw}]\n# user, password"),
                format!("- {{ name: smtp, login: {name}, secret: \"{pw}\" }}"),
                format!("settings = {{ db = {{ user = \"{name}\", pwd = \"{pw}\" }} }}"),
                format!("(config\n  :db-user \"{name}\"\n  :db-password \"{pw}\")"),
                format!("auth {{\n    user \"{name}\"\n    password \"{pw}\"\n}}"),
            ],
        );
        text(pw, line)
    }),
    ("shell-process-substitution-and-fd-feeds", |rng| {
        let pw = if rng.chance(0.5) { chosen_pw(rng) } else { word_pw(rng) };
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "mysql --defaults-extra-file=<(printf '[client]\\nuser={name}\\npassword=%s\\n' '{pw}') -h {at}"
                ),
                format!(
                    "curl --netrc-file <(echo \"machine {at} login {name} password {pw}\") https://{at}/api"
                ),
                format!(
                    "exec 3<<<'{pw}'\nopenssl enc -aes-256-cbc -pass fd:3 -in backup.tar -out backup.enc"
                ),
                format!("gpg --batch --passphrase-fd 0 --decrypt secrets.gpg <<< '{pw}'"),
                format!(
                    "read -r DEPLOY_PW <<< \"{pw}\"\nsshpass -p \"$DEPLOY_PW\" ssh {name}@{at}"
                ),
                format!(
                    "mkfifo /tmp/pw.fifo\n( echo '{pw}' > /tmp/pw.fifo & )\nrestic -r sftp:{at}:/bk --password-file /tmp/pw.fifo backup /srv"
                ),
                format!(
                    "coproc PW {{ printf '%s\\n' '{pw}'; }}\nlftp -u {name} sftp://{at} <&\"${{PW[0]}}\""
                ),
                format!("ansible-vault view site.yml --vault-password-file <(echo {pw})"),
            ],
        );
        text(pw, line)
    }),
    ("kubeconfig-exec-env-and-auth-provider", |rng| {
        let secret = if rng.chance(0.5) { bare_token(rng) } else { chosen_pw(rng) };
        let at = host(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "users:\n- name: ci\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: vcluster-auth\n      env:\n      - name: VCLUSTER_ACCESS_KEY\n        value: {secret}"
                ),
                format!(
                    "    auth-provider:\n      name: oidc\n      config:\n        client-id: kubernetes\n        client-secret: {secret}\n        idp-issuer-url: https://{at}/realms/k8s"
                ),
                format!(
                    "  user:\n    exec:\n      command: teleport-kube\n      args:\n      - --proxy={at}\n      - --token={secret}"
                ),
                format!(
                    "    auth-provider:\n      config:\n        access-token: {secret}\n        cmd-path: /usr/bin/gcloud\n        expiry-key: '{{.credential.token_expiry}}'"
                ),
                format!(
                    "kubectl config set-credentials ci --auth-provider=oidc --auth-provider-arg=client-secret={secret}"
                ),
                format!("kubectl config set-credentials ops --username=ops --password={secret}"),
                format!(
                    "{{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\",\"status\":{{\"expirationTimestamp\":\"2026-12-07T10:00:00Z\",\"token\":\"{secret}\"}}}}"
                ),
            ],
        );
        text(secret, line)
    }),
    ("compound-and-inflected-password-words", |rng| {
        let pw = if rng.chance(0.5) { chosen_pw(rng) } else { word_pw(rng) };
        let at = host(rng);
        let line = pick_line(
            rng,
            vec![
                format!("Datenbankkennwort: {pw}"),
                format!("WLAN-Schlüssel für das Büro lautet {pw}"),
                format!("Sunucunun şifresi {pw} olarak değiştirildi."),
                format!("Palvelimen {at} salasanasi on {pw}"),
                format!("A szerver jelszava: {pw}"),
                format!("Войдите с паролем {pw} и смените его."),
                format!("Nie zapomnij hasła do VPN: {pw}"),
                format!("adminlösenordet är {pw}"),
                format!("La password dell'amministratore è {pw}"),
                format!("Kata sandinya {pw} ya, jangan disebar."),
            ],
        );
        text(pw, line)
    }),
];
