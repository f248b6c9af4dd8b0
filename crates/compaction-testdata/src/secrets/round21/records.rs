//! Round 21 families of structured records whose structure, not a name beside the value,
//! says which field is secret: key-store and wide-column shell replies, plain-text and wiki
//! tables with a secret-named column, logs and exports whose header line names the fields,
//! and name/value objects in API replies.

use super::super::families::{Family, pick_line, text};
use super::{any_pw, any_secret, host, user};
use crate::random::Rng;

/// A column header for a secret, as tables name it.
fn secret_header(rng: &mut Rng) -> &'static str {
    const HEADERS: &[&str] =
        &["password", "Password", "Passwort", "secret", "API key", "pass", "Token", "pwd"];
    rng.pick::<&str>(HEADERS)
}

pub(super) const FAMILIES: &[Family] = &[
    ("key-stores-and-wide-column-shell-replies", |rng| {
        let secret = any_secret(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "hbase(main):004:0> get 'svc_accounts', '{name}'\nCOLUMN                 CELL\n cf:host               timestamp=2026-12-07T09:14:02.118, value={at}\n cf:password           timestamp=2026-12-07T09:14:02.118, value={secret}\n2 row(s)\nTook 0.0113 seconds"
                ),
                format!(
                    "$ etcdctl get --prefix /config/{name}/\n/config/{name}/host\n{at}\n/config/{name}/password\n{secret}"
                ),
                format!(
                    "$ consul kv get -recurse apps/{name}\napps/{name}/db_host:{at}\napps/{name}/db_password:{secret}"
                ),
                format!(
                    "[zk: localhost:2181(CONNECTED) 3] get /services/{name}/credentials/password\n{secret}\ncZxid = 0x1000000a7\nctime = Mon Dec 07 09:14:02 UTC 2026"
                ),
                format!(
                    "SELECT * FROM service_accounts WHERE name = '{name}' FORMAT Vertical\n\nRow 1:\n──────\nname:     {name}\nhost:     {at}\npassword: {secret}\n\n1 row in set. Elapsed: 0.002 sec."
                ),
                format!(
                    "$ aws dynamodb get-item --table-name ServiceAccounts --key '{{\"id\": {{\"S\": \"{name}\"}}}}'\n{{\n    \"Item\": {{\n        \"id\": {{\"S\": \"{name}\"}},\n        \"password\": {{\"S\": \"{secret}\"}}\n    }}\n}}"
                ),
                format!(
                    "cqlsh:ops> EXPAND ON;\ncqlsh:ops> SELECT * FROM accounts WHERE name = '{name}';\n\n@ Row 1\n----------+------------------\n name     | {name}\n host     | {at}\n password | {secret}\n\n(1 rows)"
                ),
                format!(
                    "ops> db.accounts.findOne({{name: \"{name}\"}})\n{{\n  _id: ObjectId('65f0c2a9e4b0a1b2c3d4e5f6'),\n  name: '{name}',\n  host: '{at}',\n  password: '{secret}'\n}}"
                ),
            ],
        );
        text(secret, line)
    }),
    ("plain-text-and-wiki-tables-with-secret-columns", |rng| {
        let secret = any_secret(rng);
        let (name, at) = (user(rng), host(rng));
        let head = secret_header(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "| Host | User | {head} | Notes |\n|:-----|:----:|-------:|-------|\n| {at} | {name} | {secret} | rotated in Q3 |"
                ),
                format!(
                    "| host | login | {head} |\n|------+-------+------|\n| {at} | {name} | {secret} |"
                ),
                format!(
                    "=================  ==========  ====================\nhost               user        {head}\n=================  ==========  ====================\n{at}  {name}  {secret}\n=================  ==========  ===================="
                ),
                format!("||Host||User||{head}||\n|{at}|{name}|{secret}|"),
                format!(
                    "{{| class=\"wikitable\"\n! Host !! User !! {head}\n|-\n| {at} || {name} || {secret}\n|}}"
                ),
                format!(
                    "<table>\n  <tr><th>Host</th><th>User</th><th>{head}</th></tr>\n  <tr><td>{at}</td><td>{name}</td><td>{secret}</td></tr>\n</table>"
                ),
                format!(
                    "$ column -t -s, creds.csv\nhost                     user        {head}\n{at}  {name}  {secret}"
                ),
                format!(
                    "\\begin{{tabular}}{{lll}}\nHost & User & {head} \\\\\n\\hline\n{at} & {name} & {secret} \\\\\n\\end{{tabular}}"
                ),
            ],
        );
        text(secret, line)
    }),
    ("header-line-logs-and-delimited-exports", |rng| {
        let secret = any_pw(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "#separator \\x09\n#path\tftp\n#fields\tts\tuid\tid.orig_h\tid.resp_h\tuser\tpassword\tcommand\targ\n#types\ttime\tstring\taddr\taddr\tstring\tstring\tstring\tstring\n1733562842.118\tCk3vQ21\t10.0.4.2\t{at}\t{name}\t{secret}\tRETR\tftp://{at}/backup.tgz"
                ),
                format!(
                    "#fields\tts\tuid\thost\turi\tusername\tpassword\tstatus_code\n1733562842.118\tCx9e1a\t{at}\t/admin\t{name}\t{secret}\t200"
                ),
                format!(
                    "#Software: Microsoft Internet Information Services 10.0\n#Fields: date time s-ip cs-method cs-uri-stem cs-username cs(X-Api-Password) sc-status\n2026-12-07 09:14:02 10.0.0.5 POST /api/login {name} {secret} 200"
                ),
                format!("Benutzer;Passwort;Server\n{name};{secret};{at}"),
                format!(
                    "1> SELECT login, pwd, server FROM dbo.linked_logins;\n2> GO\nlogin        pwd                  server\n------------ -------------------- --------------------\n{name}       {secret}             {at}\n\n(1 rows affected)"
                ),
                format!(
                    "index=auth sourcetype=legacy | table _time user password dest\n_time                user      password      dest\n2026-12-07 09:14:02  {name}  {secret}  {at}"
                ),
                format!("login|password|server|enabled\n{name}|{secret}|{at}|Y"),
                format!(
                    "$ jq -r '.[] | [.user, .password, .host] | @tsv' accounts.json\n{name}\t{secret}\t{at}"
                ),
            ],
        );
        text(secret, line)
    }),
    ("name-value-objects-in-api-replies", |rng| {
        let secret = any_secret(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "$ aws ssm get-parameter --name /prod/{name}/db-password --with-decryption\n{{\n    \"Parameter\": {{\n        \"Name\": \"/prod/{name}/db-password\",\n        \"Type\": \"SecureString\",\n        \"Value\": \"{secret}\",\n        \"Version\": 4\n    }}\n}}"
                ),
                format!(
                    "\"environment\": [\n    {{\"name\": \"DB_HOST\", \"value\": \"{at}\"}},\n    {{\"name\": \"DB_PASSWORD\", \"value\": \"{secret}\"}}\n]"
                ),
                format!(
                    "{{\n  \"name\": \"staging\",\n  \"values\": [\n    {{\"key\": \"baseUrl\", \"value\": \"https://{at}\", \"type\": \"default\", \"enabled\": true}},\n    {{\"key\": \"apiSecret\", \"value\": \"{secret}\", \"type\": \"secret\", \"enabled\": true}}\n  ],\n  \"_postman_variable_scope\": \"environment\"\n}}"
                ),
                format!(
                    "\"fields\": [\n  {{\"id\": \"username\", \"type\": \"STRING\", \"purpose\": \"USERNAME\", \"label\": \"username\", \"value\": \"{name}\"}},\n  {{\"id\": \"password\", \"type\": \"CONCEALED\", \"purpose\": \"PASSWORD\", \"label\": \"password\", \"value\": \"{secret}\"}}\n]"
                ),
                format!(
                    "{{\n  \"range\": \"Logins!A1:C2\",\n  \"majorDimension\": \"ROWS\",\n  \"values\": [\n    [\"host\", \"user\", \"password\"],\n    [\"{at}\", \"{name}\", \"{secret}\"]\n  ]\n}}"
                ),
                format!(
                    "spec:\n  template:\n    spec:\n      containers:\n      - image: gcr.io/acme/ledger:1.4\n        env:\n        - name: LEDGER_HOST\n          value: {at}\n        - name: LEDGER_SECRET\n          value: {secret}"
                ),
                format!(
                    "[\n  {{\n    \"Key\": \"Host\",\n    \"Value\": \"{at}\"\n  }},\n  {{\n    \"Key\": \"Password\",\n    \"Value\": \"{secret}\"\n  }}\n]"
                ),
                format!(
                    "<attributes>\n  <attribute><key>login</key><val>{name}</val></attribute>\n  <attribute><key>passwd</key><val>{secret}</val></attribute>\n</attributes>"
                ),
            ],
        );
        text(secret, line)
    }),
];
