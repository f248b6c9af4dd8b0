//! Round 17 families of configs and commands: maps from users to their passwords, symbol-rich
//! values holding `:` or `[`, a secret's name and its value as two fields of one record, the
//! flags of login tools no family used, and connection URIs of less common schemes.

use super::super::families::{Family, pick_line, text};
use super::{colon_bracket_pw, generated_pw, user, weak_case_pw, words_number_pw};

pub(super) const FAMILIES: &[Family] = &[
    ("maps-from-users-to-passwords", |rng| {
        let pw = words_number_pw(rng);
        let other = user(rng);
        let line = pick_line(
            rng,
            vec![
                format!("{{\"deploy\": \"{pw}\", \"{other}\": \"[REDACTED]\"}}"),
                format!("basic_auth_users:\n  deploy: {pw}\n  readonly: changeme"),
                format!("[users]\nops = \"{pw}\"\nci = \"see vault\""),
                format!("USERS = {{'grafana': '{pw}'}}"),
                format!("users = {{ \"admin\" => \"{pw}\" }}"),
                format!("auth:\n  htpasswd:\n    jenkins: {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("symbol-values-holding-colons-and-brackets", |rng| {
        let pw = colon_bracket_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("password: \"{pw}\""),
                format!("[\"backup\", \"{pw}\"]"),
                format!("export DB_PASS='{pw}'"),
                format!("--password='{pw}'"),
                format!("* _passphrase_: `{pw}`"),
                format!("(jenkins, {pw})"),
                format!("smtp_password = {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("a-secret-name-and-its-value-as-two-fields", |rng| {
        let pw = generated_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("env:\n  - name: DB_PASSWORD\n    value: \"{pw}\""),
                format!(
                    "aws cloudformation deploy --parameter-overrides \
                     ParameterKey=DbPassword,ParameterValue={pw}"
                ),
                format!("{{\"Name\": \"smtp_password\", \"Value\": \"{pw}\"}}"),
                format!(
                    "aws ssm put-parameter --name /prod/db/password --value '{pw}' --type SecureString"
                ),
                format!("setting {{\n  name  = \"ADMIN_PASSWORD\"\n  value = \"{pw}\"\n}}"),
                format!("<add key=\"DbPassword\" value=\"{pw}\" />"),
                format!("- key: api_secret\n  val: {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("login-tool-flags-no-family-used", |rng| {
        let pw = weak_case_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("smbclient //fs01/share -U backup%{pw}"),
                format!("lftp -u deploy,{pw} sftp://files.example.net"),
                format!("xfreerdp /v:10.0.4.12 /u:Administrator /p:{pw}"),
                format!("net use Z: \\\\fs01\\share /user:CORP\\svc {pw}"),
                format!("rclone config create nas sftp host=nas user=ops pass={pw}"),
                format!("ipmitool -I lanplus -H 10.0.0.9 -U ADMIN -P {pw} power status"),
                format!("nmcli dev wifi connect Lab-5G password {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("connection-uris-of-less-common-schemes", |rng| {
        let pw = weak_case_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("rtsp://admin:{pw}@192.168.1.64:554/Streaming/Channels/101"),
                format!("mqtts://sensor:{pw}@broker.local:8883"),
                format!("nats://app:{pw}@nats.svc:4222"),
                format!("couchbase://ops:{pw}@cb1.internal/bucket"),
                format!("neo4j+s://neo4j:{pw}@graph.example.io"),
                format!("clickhouse://default:{pw}@ch.internal:9000/metrics"),
                format!("ftps://upload:{pw}@ftp.example.org/incoming"),
                format!("sip:1001:{pw}@pbx.local"),
            ],
        );
        text(pw, line)
    }),
];
