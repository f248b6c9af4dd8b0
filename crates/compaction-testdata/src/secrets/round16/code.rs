//! Round 16 families of code and commands: CamelCase-with-digits and words-and-a-number
//! passwords in code, maps and rows; word passphrases after a tool's flag; and secrets fed to a
//! command through a pipe continued onto the next line.

use super::super::families::{Family, pick_line, text};
use super::{camel_digit_pw, dice_phrase, words_number_pw};

pub(super) const FAMILIES: &[Family] = &[
    ("camelcase-digit-passwords-in-code", |rng| {
        let pw = camel_digit_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("'{pw}' => 'db_password',"),
                format!("$config['smtp_pass'] = '{pw}';"),
                format!("ADMIN_PASSWORD = \"{pw}\""),
                format!("{{ \"user\": \"root\", \"password\": \"{pw}\" }}"),
                format!("spring.datasource.password={pw}"),
                format!("mysql -uroot -p'{pw}' shop"),
                format!("let pass = \"{pw}\";"),
            ],
        );
        text(pw, line)
    }),
    ("words-and-number-passwords-in-rows", |rng| {
        let pw = words_number_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("USERS = [(\"admin\", \"{pw}\"), (\"guest\", \"guest\")]"),
                format!("INSERT INTO users (login, password) VALUES ('ops', '{pw}');"),
                format!("username,password\nbackup,{pw}"),
                format!("{{\"svc-report\", \"{pw}\"}},"),
                format!("creds = {{\"deploy\": \"{pw}\"}}"),
                format!("| deploy | {pw} |"),
                format!("user: ci\npass: {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("word-passphrases-after-a-tool-flag", |rng| {
        let phrase = dice_phrase(rng, " ");
        let line = pick_line(
            rng,
            vec![
                format!("gpg --batch --yes --passphrase '{phrase}' -c notes.txt"),
                format!("7z a -p\"{phrase}\" archive.7z docs/"),
                format!("openssl enc -aes-256-cbc -k '{phrase}' -in a -out a.enc"),
                format!("restic backup ~/work --password '{phrase}'"),
                format!("age-keygen | age --passphrase '{phrase}'"),
                format!("borg init --encryption=repokey --passphrase \"{phrase}\" /mnt/b"),
                format!("ansible-vault view --vault-password '{phrase}' vars.yml"),
            ],
        );
        text(phrase, line)
    }),
    ("word-passphrases-after-a-name-and-a-redacted-word", |rng| {
        let phrase = dice_phrase(rng, " ");
        let line = pick_line(
            rng,
            vec![
                format!("--passphrase \"{phrase}\""),
                format!("password = {phrase}"),
                format!("-passin pass:'{phrase}'"),
                format!("vault_password: '{phrase}'"),
                format!("export BORG_PASSPHRASE='{phrase}'"),
                format!("secret: \"{phrase}\""),
            ],
        );
        text(phrase, line)
    }),
    ("secrets-fed-through-a-continued-pipe", |rng| {
        let pw = words_number_pw(rng).replace('.', "Q");
        let line = pick_line(
            rng,
            vec![
                format!("echo '{pw}' \\\n  | docker login registry.corp -u ci --password-stdin"),
                format!("printf '%s\\n' \"{pw}\" \\\n    | sudo -S apt-get update"),
                format!("cat <<< '{pw}' \\\n | podman login quay.io -u bot --password-stdin"),
                format!("echo -n \"{pw}\" | \\\n  gh auth login --with-token"),
                format!(
                    "Write-Output '{pw}' `\n  | helm registry login ghcr.io -u me --password-stdin"
                ),
                format!("printf '{pw}' \\\n  |\\\n  cryptsetup luksOpen /dev/sdb1 vault -"),
            ],
        );
        text(pw, line)
    }),
    ("secrets-in-shell-history-files", |rng| {
        let pw = camel_digit_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(": 1712050000:0;mysql -u admin -p{pw} -h db1"),
                format!("- cmd: psql postgresql://app:{pw}@db/app\n  when: 1712050000"),
                format!("  512  2026-04-02 10:11:12 sshpass -p '{pw}' ssh ops@10.0.0.7"),
                format!("#1712050000\nredis-cli -a {pw} ping"),
                format!("PS> $cred = ConvertTo-SecureString '{pw}' -AsPlainText -Force"),
                format!("   45  curl -u admin:{pw} https://nexus/service/rest"),
            ],
        );
        text(pw, line)
    }),
];
