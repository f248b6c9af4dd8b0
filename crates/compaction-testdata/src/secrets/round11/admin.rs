//! Round 11 families that administrators write.

use super::super::families::{Family, pick_line, text, url_encode};
use super::super::values::{password, token, token_between, uuid};
use super::{HEX, UPPER_DIGITS, from_alphabet, plain_pw, with_forms};

pub(super) const FAMILIES: &[Family] = &[
    ("mount-and-share-credentials", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "//nas.acme.lan/backup  /mnt/backup  cifs  username=bob,password={pw},uid=1000,vers=3.0  0  0"
                ),
                format!(
                    "sudo mount -t cifs //nas/share /mnt/share -o username=bob,password={pw},domain=ACME"
                ),
                format!("$ cat ~/.smbcredentials\nusername=bob\npassword={pw}\ndomain=ACME"),
                format!("smbclient //nas.acme.lan/public -U bob%{pw} -c 'ls'"),
                format!("echo '{pw}' | sshfs -o password_stdin bob@files.acme.lan:/srv /mnt/files"),
            ],
        );
        text(pw, line)
    }),
    ("smaller-cloud-cli-configs", |rng| {
        let (secret, line) = match rng.below(6) {
            0 => {
                let t = format!("dop_v1_{}", from_alphabet(rng, HEX, 64));
                (
                    t.clone(),
                    format!("# ~/.config/doctl/config.yaml\naccess-token: {t}\ncontext: default"),
                )
            }
            1 => {
                let t = token(rng, 64);
                (
                    t.clone(),
                    format!(
                        "active_context = \"prod\"\n\n[[contexts]]\n  name = \"prod\"\n  token = \"{t}\""
                    ),
                )
            }
            2 => {
                let t = from_alphabet(rng, HEX, 64);
                (
                    t.clone(),
                    format!(
                        "[DEFAULT]\ndefault-user = ops\n\n[ops]\nregion = eu-central\ntoken = {t}"
                    ),
                )
            }
            3 => {
                let t = uuid(rng);
                (
                    t.clone(),
                    format!(
                        "profiles:\n  prod:\n    access_key: SCWXXSSTTBK4NNZ0M8GY\n    secret_key: {t}\n    default_project_id: 6e4ab1c7"
                    ),
                )
            }
            4 => {
                let t = from_alphabet(rng, UPPER_DIGITS, 36);
                (t.clone(), format!("vultr-cli instance list --api-key {t}"))
            }
            _ => {
                let t = token_between(rng, 42, 44);
                (t.clone(), format!("ibmcloud login -r eu-de --apikey {t}"))
            }
        };
        text(secret, line)
    }),
    ("game-server-configs", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "#Minecraft server properties\nenable-rcon=true\nrcon.port=25575\nrcon.password={pw}\nmotd=A Minecraft Server"
                ),
                format!("hostname \"Acme CS2\"\nrcon_password \"{pw}\"\nsv_lan 0"),
                format!(
                    "[ServerSettings]\nServerPassword=\nServerAdminPassword={pw}\nMaxPlayers=20"
                ),
                format!(
                    "{{\n  \"name\": \"Acme Factorio\",\n  \"game_password\": \"{pw}\",\n  \"visibility\": {{\"public\": false}}\n}}"
                ),
                format!("mcrcon -H mc.acme.lan -P 25575 -p {pw} \"say backup in 5 minutes\""),
            ],
        );
        text(pw, line)
    }),
    ("sql-replication-and-fdw", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "CREATE USER MAPPING FOR app SERVER legacy_db OPTIONS (user 'reader', password '{pw}');"
                ),
                format!(
                    "CREATE SUBSCRIPTION orders_sub CONNECTION 'host=db1 dbname=shop user=replicator password={pw}' PUBLICATION orders_pub;"
                ),
                format!(
                    "CHANGE REPLICATION SOURCE TO SOURCE_HOST='db1', SOURCE_USER='repl', SOURCE_PASSWORD='{pw}', SOURCE_AUTO_POSITION=1;"
                ),
                format!(
                    "SELECT * FROM dblink('dbname=legacy user=reader password={pw}', 'SELECT id FROM orders') AS t(id int);"
                ),
                format!(
                    "EXEC sp_addlinkedsrvlogin @rmtsrvname = N'LEGACY', @useself = N'False', @rmtuser = N'sa', @rmtpassword = N'{pw}';"
                ),
            ],
        );
        text(pw, line)
    }),
    ("windows-remote-admin-flags", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "wmic /node:10.0.0.12 /user:ACME\\admin /password:{pw} process call create \"cmd /c whoami\""
                ),
                format!("winrs -r:srv01 -u:ACME\\admin -p:{pw} ipconfig /all"),
                format!(
                    "Register-ScheduledTask -TaskName Backup -Action $a -Trigger $t -User 'ACME\\svc_backup' -Password '{pw}'"
                ),
                format!("netdom join PC042 /domain:acme.lan /UserD:ACME\\joiner /PasswordD:{pw}"),
                format!("dsquery user -name bob* -u ACME\\admin -p {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("proxy-configuration-credentials", |rng| {
        let pw = password(rng);
        let enc = url_encode(&pw);
        let line = pick_line(
            rng,
            vec![
                format!("Acquire::http::Proxy \"http://bob:{enc}@proxy.acme.lan:3128/\";"),
                format!("npm config set https-proxy http://bob:{enc}@proxy.acme.lan:8080"),
                format!("git config --global http.proxy http://ACME%5Cbob:{enc}@proxy:3128"),
                format!("[ProxyList]\nhttp 10.0.0.5 3128 bob {pw}"),
                format!("cache_peer parent.acme.lan parent 3128 0 no-query login=bob:{enc}"),
            ],
        );
        with_forms(pw, vec![enc], line)
    }),
    ("crontab-lines", |rng| {
        let tok = token_between(rng, 30, 44);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "*/5 * * * * SYNC_TOKEN={tok} /usr/local/bin/sync-orders >> /var/log/sync.log 2>&1"
                ),
                format!("MAILTO=ops@acme.dev\nBACKUP_SECRET={tok}\n0 2 * * * /opt/backup/run.sh"),
                format!(
                    "@daily curl -fsS -H \"X-Api-Key: {tok}\" https://hc.acme.dev/ping/nightly"
                ),
                format!("0 3 * * 1 root /usr/bin/env RESTIC_PASSWORD={tok} restic backup /srv"),
                format!("# m h dom mon dow command\n15 4 * * * /opt/report/send --token {tok}"),
            ],
        );
        text(tok, line)
    }),
    ("exception-messages-with-args", |rng| {
        let pw = plain_pw(rng);
        let tok = token(rng, 32);
        let (secret, line) = match rng.below(5) {
            0 => (
                pw.clone(),
                format!(
                    "PHP Fatal error:  Uncaught PDOException: SQLSTATE[HY000] [1045] Access denied in /srv/app/db.php:12\nStack trace:\n#0 /srv/app/db.php(12): PDO->__construct('mysql:host=db;d...', 'root', '{pw}')\n#1 {{main}}"
                ),
            ),
            1 => (
                tok.clone(),
                format!(
                    "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='api.acme.dev', port=443): Max retries exceeded with url: /v1/items?limit=50&apikey={tok} (Caused by NewConnectionError)"
                ),
            ),
            2 => (
                pw.clone(),
                format!(
                    "Error: getaddrinfo ENOTFOUND db\n    at Connection.connect (node_modules/pg/lib/connection.js:52:17) {{\n  errno: -3008,\n  config: {{ user: 'app', password: '{pw}', host: 'db' }}\n}}"
                ),
            ),
            3 => (
                pw.clone(),
                format!(
                    "Traceback (most recent call last):\n  File \"sync.py\", line 9, in <module>\n    ftp.login(\"mirror\", \"{pw}\")\nftplib.error_perm: 530 Login incorrect."
                ),
            ),
            _ => (
                tok.clone(),
                format!(
                    "E1102 10:01:22.118 auth.go:88] token rejected: invalid signature token=\"{tok}\" user=ci"
                ),
            ),
        };
        text(secret, line)
    }),
];
