//! Round 15 families of secrets fed to a command's input (pipes, here-strings, here-documents,
//! `expect` scripts, process substitution) and values under abbreviated key names.

use super::super::families::{Family, hex_of, pick_line, text};
use super::super::values::{base64_bytes, bytes, token_between};
use super::{safe_pw, symbolic_pw};
use crate::random::Rng;

/// An abbreviation of a key's or a credential's name, as people shorten them in configs.
fn abbreviation(rng: &mut Rng, upper: bool) -> String {
    let name = *rng.pick(&["kek", "dek", "pk", "sk", "mk", "ek", "hk", "kdk", "priv", "seck"]);
    if upper { name.to_ascii_uppercase() } else { name.to_owned() }
}

pub(super) const FAMILIES: &[Family] = &[
    ("registry-logins-fed-on-stdin", |rng| {
        let pw = safe_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("echo '{pw}' | podman login quay.io -u robot+ci --password-stdin"),
                format!(
                    "printf %s \"{pw}\" | helm registry login harbor.corp -u ci --password-stdin"
                ),
                format!(
                    "cat <<< '{pw}' | oras login -u deploy --password-stdin registry.corp:5000"
                ),
                format!(
                    "Write-Output '{pw}' | docker login acr01.azurecr.io -u sp-ci --password-stdin"
                ),
                format!("echo {pw} | skopeo login --username svc --password-stdin docker.io"),
                format!("  run: echo \"{pw}\" | crane auth login ghcr.io -u bot --password-stdin"),
            ],
        );
        text(pw, line)
    }),
    ("here-strings-into-secret-readers", |rng| {
        let pw = safe_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("cryptsetup open /dev/sdb1 vault --key-file=- <<< \"{pw}\""),
                format!("vault kv put secret/app/db password=- <<< '{pw}'"),
                format!("openssl enc -d -aes-256-cbc -pbkdf2 -pass stdin -in db.enc <<<\"{pw}\""),
                format!("sudo -S -v <<<'{pw}' && sudo apt-get upgrade -y"),
                format!(
                    "gpg --batch --pinentry-mode loopback --passphrase-fd 0 -d keys.gpg <<< {pw}"
                ),
                format!("read -r -s PGPASSWORD <<< \"{pw}\"; export PGPASSWORD"),
            ],
        );
        text(pw, line)
    }),
    ("here-documents-answering-prompts", |rng| {
        let pw = safe_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("passwd ops <<EOF\n{pw}\n{pw}\nEOF"),
                format!("smbpasswd -s -a alice <<'END'\n{pw}\n{pw}\nEND"),
                format!("(echo '{pw}'; echo '{pw}') | adduser --gecos '' backup"),
                format!("echo -e \"{pw}\\n{pw}\" | pure-pw useradd ftpuser -u ftp -d /srv/ftp"),
                format!(
                    "keytool -importcert -alias ca -file ca.pem -keystore trust.jks <<EOF\n{pw}\nyes\nEOF"
                ),
                format!("htpasswd -i /etc/nginx/.htpasswd admin < <(printf '%s' '{pw}')"),
            ],
        );
        text(pw, line)
    }),
    ("expect-and-sshpass-style-answers", |rng| {
        let pw = safe_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "expect -c 'spawn ssh root@10.0.4.2; expect \"assword:\"; send \"{pw}\\r\"; interact'"
                ),
                format!(
                    "spawn scp dump.sql backup@nas:/vol1\nexpect \"password:\"\nsend \"{pw}\\r\"\nexpect eof"
                ),
                format!("child.expect('Password:')\nchild.sendline('{pw}')"),
                format!("ssh.exec_command('sudo -S reboot')[0].write('{pw}\\n')"),
                format!("proc.stdin.write(b\"{pw}\\n\")  # answer the unlock prompt"),
                format!("printf '{pw}\\n' | ssh-add ~/.ssh/id_deploy"),
            ],
        );
        text(pw, line)
    }),
    ("tokens-piped-to-cli-auth", |rng| {
        let tok = token_between(rng, 30, 44);
        let line = pick_line(
            rng,
            vec![
                format!("echo {tok} | gh auth login --with-token"),
                format!("echo -n \"{tok}\" | wrangler secret put STRIPE_KEY"),
                format!("printf '%s' {tok} | gcloud secrets versions add api-key --data-file=-"),
                format!("echo '{tok}' | fly secrets import"),
                format!("echo {tok} | vercel env add SIGNING_SECRET production"),
                format!(
                    "echo \"{tok}\" | npm login --auth-type=legacy --registry https://npm.corp"
                ),
            ],
        );
        text(tok, line)
    }),
    ("abbreviated-key-names-with-hex", |rng| {
        let hex = hex_of(&bytes(rng, 32));
        let upper = rng.chance(0.5);
        let name = abbreviation(rng, upper);
        let line = pick_line(
            rng,
            vec![
                format!("{name}={hex}"),
                format!("{name}: {hex}"),
                format!("  {name} = \"{hex}\""),
                format!("export {}={hex}", name.to_ascii_uppercase()),
                format!("--{name} {hex}"),
                format!("\"{name}\": \"{hex}\","),
            ],
        );
        text(hex, line)
    }),
    ("abbreviated-key-names-with-base64", |rng| {
        let b64 = base64_bytes(rng, 32);
        let upper = rng.chance(0.5);
        let name = abbreviation(rng, upper);
        let line = pick_line(
            rng,
            vec![
                format!("{name}: {b64}"),
                format!("{name}_b64={b64}"),
                format!("<{name}>{b64}</{name}>"),
                format!("{name} := \"{b64}\""),
                format!("cfg.{name} = '{b64}'"),
                format!("[crypto]\n{name} = {b64}"),
            ],
        );
        text(b64, line)
    }),
    ("abbreviated-credential-names", |rng| {
        let tok = token_between(rng, 20, 36);
        let pw = symbolic_pw(rng).replace(['\'', '"', '\\'], "x");
        let (secret, line) = match rng.below(8) {
            0 => (tok.clone(), format!("tok={tok}")),
            1 => (pw.clone(), format!("creds=svc_report:{pw}")),
            2 => (tok.clone(), format!("auth_tok: {tok}")),
            3 => (pw.clone(), format!("pw='{pw}'")),
            4 => (tok.clone(), format!("sec = \"{tok}\"")),
            5 => (pw.clone(), format!("psw: '{pw}'")),
            6 => (tok.clone(), format!("AK=AKLT2P7QX SK={tok}")),
            _ => (pw.clone(), format!("ssh_pw='{pw}' ansible-playbook site.yml")),
        };
        text(secret, line)
    }),
];
