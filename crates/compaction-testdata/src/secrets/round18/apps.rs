//! Round 18 families of applications: desktop clients' saved sessions, mobile and
//! cross-platform build defines, self-hosted applications' config files, migration and data
//! tools' configs, and the history files of REPLs and database clients.

use base64::Engine as _;

use super::super::families::{B64, Carrier, Family, Made, pick_line, text};
use super::super::values::bare_token;
use super::{chosen_pw, host, user};

pub(super) const FAMILIES: &[Family] = &[
    ("desktop-client-saved-sessions", |rng| {
        let pw = chosen_pw(rng);
        let (name, at) = (user(rng), host(rng));
        let encoded = B64.encode(&pw);
        let (needles, line) = match rng.below(7) {
            0 => (
                vec![pw.clone(), encoded.clone()],
                format!(
                    "<Server>\n  <Host>{at}</Host>\n  <Port>21</Port>\n  <User>{name}</User>\n  <Pass encoding=\"base64\">{encoded}</Pass>\n</Server>"
                ),
            ),
            1 => (
                vec![pw.clone()],
                format!(
                    "{{\n    \"rpc-authentication-required\": true,\n    \"rpc-password\": \"{pw}\",\n    \"rpc-username\": \"{name}\"\n}}"
                ),
            ),
            2 => (
                vec![pw.clone()],
                format!(
                    "user_pref(\"mail.smtpserver.smtp1.username\", \"{name}\");\nuser_pref(\"mail.smtpserver.smtp1.pass\", \"{pw}\");"
                ),
            ),
            3 => (
                vec![pw.clone()],
                format!("[remmina]\nserver={at}\nusername={name}\npassword={pw}\nprotocol=RDP"),
            ),
            4 => (
                vec![pw.clone()],
                format!(
                    "<account>\n  <protocol>prpl-jabber</protocol>\n  <name>{name}@chat.example.org/home</name>\n  <password>{pw}</password>\n</account>"
                ),
            ),
            5 => (
                vec![pw.clone()],
                format!(
                    "<Node Name=\"{at}\" Type=\"Connection\" Username=\"{name}\" Domain=\"CORP\" Password=\"{pw}\" Hostname=\"{at}\" Protocol=\"RDP\" />"
                ),
            ),
            _ => (
                vec![pw.clone()],
                format!(
                    "[Preferences]\nWebUI\\Username={name}\nWebUI\\Password_PBKDF2=\"@ByteArray(...)\"\nConnection\\Proxy\\Password={pw}"
                ),
            ),
        };
        Made { needles, secret: pw, carrier: Carrier::Text(line) }
    }),
    ("mobile-and-cross-platform-build-defines", |rng| {
        let tok = bare_token(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "flutter build apk --release --dart-define=PAYMENTS_SECRET={tok} --dart-define=ENV=prod"
                ),
                format!(
                    "export default {{\n  expo: {{\n    name: 'shop',\n    extra: {{ backendSecret: '{tok}' }},\n  }},\n}};"
                ),
                format!("<preference name=\"ApiSecret\" value=\"{tok}\" />"),
                format!("PlayerPrefs.SetString(\"auth_token\", \"{tok}\");"),
                format!(
                    "eas secret:create --scope project --name SENTRY_AUTH_TOKEN --value {tok} --type string"
                ),
                format!(
                    "lane :beta do\n  ENV[\"MATCH_PASSWORD\"] = \"{tok}\"\n  match(type: \"appstore\")\nend"
                ),
                format!("<string name=\"backend_client_secret\">{tok}</string>"),
                format!("buildConfigField \"String\", \"SDK_SECRET\", '\"{tok}\"'"),
            ],
        );
        text(tok, line)
    }),
    ("self-hosted-app-config-files", |rng| {
        let pw = chosen_pw(rng);
        let tok = bare_token(rng);
        let (secret, line) = match rng.below(8) {
            0 => (
                pw.clone(),
                format!(
                    "<?php\n$CONFIG = array (\n  'dbtype' => 'pgsql',\n  'dbuser' => 'nextcloud',\n  'dbpassword' => '{pw}',\n);"
                ),
            ),
            1 => (
                pw.clone(),
                format!(
                    "; gitea app.ini\n[database]\nDB_TYPE = postgres\nHOST = db:5432\nUSER = gitea\nPASSWD = `{pw}`"
                ),
            ),
            2 => (
                tok.clone(),
                format!(
                    "# homeserver.yaml\nregistration_shared_secret: \"{tok}\"\nreport_stats: false"
                ),
            ),
            3 => (
                pw.clone(),
                format!("ota:\n  - platform: esphome\n    password: \"{pw}\"\nwifi:\n  ssid: Lab"),
            ),
            4 => (
                tok.clone(),
                format!("# vaultwarden .env\nDOMAIN=https://vault.example.net\nADMIN_TOKEN={tok}"),
            ),
            5 => (
                tok.clone(),
                format!(
                    "# authelia configuration.yml\nidentity_validation:\n  reset_password:\n    jwt_secret: '{tok}'"
                ),
            ),
            6 => (
                pw.clone(),
                format!("# pihole setupVars.conf\nPIHOLE_INTERFACE=eth0\nWEBPASSWORD={pw}"),
            ),
            _ => (
                pw.clone(),
                format!(
                    "[security]\nadmin_user = admin\nadmin_password = {pw}\n[server]\nhttp_port = 3000"
                ),
            ),
        };
        text(secret, line)
    }),
    ("migration-and-data-tool-configs", |rng| {
        let pw = chosen_pw(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "# profiles.yml\nshop:\n  target: prod\n  outputs:\n    prod:\n      type: postgres\n      host: {at}\n      user: {name}\n      pass: {pw}\n      dbname: analytics"
                ),
                format!(
                    "flyway.url=jdbc:postgresql://{at}:5432/app\nflyway.user={name}\nflyway.password={pw}"
                ),
                format!(
                    "# liquibase.properties\nurl: jdbc:mysql://{at}/app\nusername: {name}\npassword: {pw}"
                ),
                format!(
                    "[alembic]\nscript_location = migrations\nsqlalchemy.url = postgresql+psycopg2://{name}:{pw}@{at}/app"
                ),
                format!("[target \"prod\"]\n\turi = db:pg://{name}:{pw}@{at}/app"),
                format!("export AIRFLOW_CONN_WAREHOUSE='postgres://{name}:{pw}@{at}:5432/dw'"),
                format!("MB_DB_TYPE=postgres\nMB_DB_USER={name}\nMB_DB_PASS={pw}\nMB_DB_HOST={at}"),
                format!(
                    "{{\"name\": \"inventory-connector\", \"config\": {{\"connector.class\": \"io.debezium.connector.mysql.MySqlConnector\", \"database.hostname\": \"{at}\", \"database.user\": \"{name}\", \"database.password\": \"{pw}\"}}}}"
                ),
            ],
        );
        text(pw, line)
    }),
    ("repl-and-database-client-history-files", |rng| {
        let pw = chosen_pw(rng);
        let name = user(rng);
        let spaced = |text: &str| text.replace(' ', "\\040");
        let (needles, line) = match rng.below(7) {
            0 => {
                let stmt = spaced(&format!("SET PASSWORD FOR '{name}'@'%' = '{pw}';"));
                (
                    vec![pw.clone()],
                    format!("$ cat ~/.mysql_history\n_HiStOrY_V2_\nSHOW\\040DATABASES;\n{stmt}"),
                )
            }
            1 => (
                vec![pw.clone()],
                format!(
                    "$ tail -3 ~/.rediscli_history\nINFO replication\nAUTH {name} {pw}\nKEYS session:*"
                ),
            ),
            2 => (
                vec![pw.clone()],
                format!(
                    "$ cat ~/.python_history\nimport psycopg2\nconn = psycopg2.connect(host='db', user='{name}', password='{pw}')"
                ),
            ),
            3 => (
                vec![pw.clone()],
                format!(
                    "$ cat ~/.node_repl_history\nawait client.connect()\nconst client = new Client({{ user: '{name}', password: '{pw}' }})"
                ),
            ),
            4 => (
                vec![pw.clone()],
                format!(
                    "$ cat ~/.mongodb/mongosh/mongosh_repl_history\nshow dbs\ndb.auth(\"{name}\", \"{pw}\")"
                ),
            ),
            5 => (
                vec![pw.clone()],
                format!(
                    "$ cat ~/.psql_history\n\\dt\nALTER ROLE {name} WITH LOGIN PASSWORD '{pw}';"
                ),
            ),
            _ => (
                vec![pw.clone()],
                format!(
                    "$ cat ~/.irb_history\nrequire 'net/ftp'\nftp = Net::FTP.new('files.example.net', '{name}', '{pw}')"
                ),
            ),
        };
        Made { needles, secret: pw, carrier: Carrier::Text(line) }
    }),
];
