//! Round 12 families in how files and data are shown and changed: views with line numbers,
//! commented-out lines, tables, document fields, query results, dumps, patches, test failures,
//! crashes and templates.

use super::super::families::{Family, pick_line, text};
use super::super::values::{token, token_between};
use super::plain_pw;

pub(super) const FAMILIES: &[Family] = &[
    ("line-numbered-file-views", |rng| {
        let pw = plain_pw(rng);
        let n = rng.range(3, 40);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "$ cat -n .env.production\n     1\tAPP_ENV=production\n     2\tDB_HOST=db.internal\n     {n}\tDB_PASSWORD={pw}"
                ),
                format!(
                    "$ grep -rn password config/\nconfig/database.yml:{n}:  password: {pw}\nconfig/cable.yml:4:  adapter: redis"
                ),
                format!(
                    "───────┬────────────────────────\n       │ File: settings.toml\n───────┼────────────────────────\n   {n}   │ smtp_password = \"{pw}\"\n   {}   │ smtp_port = 587",
                    n + 1
                ),
                format!("{n:>6}  [mail]\n{:>6}  pass = {pw}\n{:>6}  port = 993", n + 1, n + 2),
                format!(
                    "src/settings.py-{}-DEBUG = False\nsrc/settings.py:{n}:EMAIL_HOST_PASSWORD = '{pw}'\nsrc/settings.py-{}-EMAIL_PORT = 587",
                    n - 1,
                    n + 1
                ),
            ],
        );
        text(pw, line)
    }),
    ("commented-out-config-lines", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("# old one, rotated?\n# DB_PASSWORD={pw}\nDB_PASSWORD=${{DB_PASSWORD}}"),
                format!(
                    "const config = {{\n  // apiSecret: \"{pw}\",\n  apiSecret: process.env.API_SECRET,\n}};"
                ),
                format!("-- CREATE USER report WITH PASSWORD '{pw}';\nCREATE USER report;"),
                format!("<!-- smtp password: {pw} -->\n<smtp host=\"mail.acme.dev\" />"),
                format!("; mail_password = {pw}\nmail_password = ${{MAIL_PASSWORD}}"),
                format!("REM set ADMIN_PASSWORD={pw}\ncall deploy.cmd"),
            ],
        );
        text(pw, line)
    }),
    ("markdown-and-wiki-tables", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "| Service | User | Password |\n|---------|------|----------|\n| staging db | app | {pw} |\n| grafana | admin | (see vault) |"
                ),
                format!("||Host||Login||Password||\n|ftp.acme.dev|deploy|{pw}|"),
                format!(
                    "| system  | login | secret |\n|---------+-------+--------|\n| router  | admin | {pw} |"
                ),
                format!(
                    "+---------+--------+\n| Account | Passwd |\n+=========+========+\n| root    | {pw} |\n+---------+--------+"
                ),
                format!("[cols=\"1,1\"]\n|===\n|Login |Password\n|ops |{pw}\n|==="),
            ],
        );
        text(pw, line)
    }),
    ("document-markup-fields", |rng| {
        let tok = token_between(rng, 24, 40);
        let line = pick_line(
            rng,
            vec![
                format!(":author: Ops team\n:api-token: {tok}\n:toc:"),
                format!(".. note::\n\n   :username: ci\n   :password: {tok}"),
                format!(
                    "* Staging\n  :PROPERTIES:\n  :HOST:     stg.acme.dev\n  :PASSWORD: {tok}\n  :END:"
                ),
                format!(
                    "\\newcommand{{\\apitoken}}{{{tok}}}\n\\newcommand{{\\apihost}}{{api.acme.dev}}"
                ),
                format!(
                    "---\ntitle: Deploy notes\ndeploy_token: {tok}\ndraft: true\n---\n# Deploy"
                ),
            ],
        );
        text(tok, line)
    }),
    ("query-result-tables", |rng| {
        let tok = token_between(rng, 28, 40);
        let line = pick_line(
            rng,
            vec![
                format!(
                    " id | name |            api_key\n----+------+----------------------------------\n  1 | ci   | {tok}\n(1 row)"
                ),
                format!(
                    "+----+-------+----------------------------------+\n| id | login | token                            |\n+----+-------+----------------------------------+\n|  7 | bot   | {tok} |\n+----+-------+----------------------------------+\n1 row in set (0.00 sec)"
                ),
                format!(
                    "-[ RECORD 1 ]-----------\nid         | 3\nclient_id  | web\nclient_secret | {tok}"
                ),
                format!(
                    "sqlite> select name, secret from webhooks;\nname        secret\n----------  ------\ndeploy      {tok}"
                ),
                format!(
                    "*************************** 1. row ***************************\n     id: 4\n  login: svc\napi_key: {tok}"
                ),
            ],
        );
        text(tok, line)
    }),
    ("sql-copy-and-dump-blocks", |rng| {
        let tok = token_between(rng, 30, 40);
        let id = rng.range(1, 900);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "COPY public.api_clients (id, name, secret, created_at) FROM stdin;\n{id}\tbilling\t{tok}\t2026-01-04 10:00:00\n\\."
                ),
                format!(
                    "\\copy users(id,email,auth_token) from stdin with csv\n{id},ops@acme.dev,{tok}\n\\."
                ),
                format!("id,login,access_token,scope\n{id},deploy-bot,{tok},repo\n"),
                format!("COPY 1\n=> SELECT * FROM tokens;\n{id}|cli|{tok}|t"),
                format!(
                    "LOCK TABLES `oauth_clients` WRITE;\nINSERT INTO `oauth_clients` VALUES ({id},'mobile','{tok}','https://app.acme.dev/cb');\nUNLOCK TABLES;"
                ),
            ],
        );
        text(tok, line)
    }),
    ("cli-key-value-table-outputs", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "$ vault kv get secret/app\n====== Data ======\nKey         Value\n---         -----\npassword    {pw}\nusername    app"
                ),
                format!(
                    "PS> Get-ChildItem Env: | Sort Name\n\nName                           Value\n----                           -----\nSQL_SA_PASSWORD                {pw}\nTEMP                           C:\\Temp"
                ),
                format!(
                    "-------------------------------------\n|           GetParameter            |\n+-------+---------------------------+\n|  Name |  /prod/db/password        |\n|  Value|  {pw}        |\n+-------+---------------------------+"
                ),
                format!(
                    "$ doppler secrets get SMTP_PASS --plain=false\n┌───────────┬──────────────┐\n│ NAME      │ VALUE        │\n├───────────┼──────────────┤\n│ SMTP_PASS │ {pw} │\n└───────────┴──────────────┘"
                ),
                format!(
                    "$ heroku config -a shop\n=== shop Config Vars\nADMIN_PASS:    {pw}\nLANG:          en_US.UTF-8"
                ),
            ],
        );
        text(pw, line)
    }),
    ("git-config-and-show-output", |rng| {
        let tok = token(rng, 36);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "$ git config --list --show-origin\nfile:.git/config\tcore.bare=false\nfile:.git/config\turl.https://x-access-token:{tok}@github.com/.insteadof=https://github.com/"
                ),
                format!(
                    "commit 3f2a9c1\nAuthor: Dev <dev@acme.dev>\n\n    add ci config\n\ndiff --git a/ci.env b/ci.env\nnew file mode 100644\n--- /dev/null\n+++ b/ci.env\n@@ -0,0 +1,2 @@\n+REGISTRY=ghcr.io\n+REGISTRY_TOKEN={tok}"
                ),
                format!(
                    "$ git stash show -p\n--- a/.npmrc\n+++ b/.npmrc\n@@ -1 +1 @@\n-//npm.acme.dev/:_authToken=${{NPM_TOKEN}}\n+//npm.acme.dev/:_authToken={tok}"
                ),
                format!("$ git grep -n token -- '*.ini'\ndeploy.ini:3:token = {tok}"),
                format!("$ git log -S'{tok}' --oneline\na41be20 remove hard-coded webhook token"),
            ],
        );
        text(tok, line)
    }),
    ("apply-patch-bodies", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "*** Begin Patch\n*** Add File: deploy/.env.prod\n+APP_ENV=production\n+REDIS_PASSWORD={pw}\n*** End Patch"
                ),
                format!(
                    "*** Begin Patch\n*** Update File: config/mail.yml\n@@ production:\n-  password: changeme\n+  password: \"{pw}\"\n*** End Patch"
                ),
                format!(
                    "patch -p1 <<'EOF'\n--- a/app.ini\n+++ b/app.ini\n@@ -4 +4 @@\n-secret =\n+secret = {pw}\nEOF"
                ),
                format!("sed -i 's/^ADMIN_PASSWORD=.*/ADMIN_PASSWORD={pw}/' /srv/app/.env"),
                format!(
                    "{{\"op\": \"replace\", \"path\": \"/spec/auth/password\", \"value\": \"{pw}\"}}"
                ),
            ],
        );
        text(pw, line)
    }),
    ("test-failure-diffs", |rng| {
        let tok = token_between(rng, 24, 36);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "E       AssertionError: assert {{'api_key': '{tok}', 'region': 'eu'}} == {{'region': 'eu'}}\nE         Left contains 1 more item:"
                ),
                format!(
                    "    - Expected\n    + Received\n\n      Object {{\n    -   \"token\": undefined,\n    +   \"token\": \"{tok}\",\n      }}"
                ),
                format!(
                    "assertion `left == right` failed\n  left: Settings {{ host: \"api\", secret: \"{tok}\" }}\n right: Settings {{ host: \"api\", secret: \"\" }}"
                ),
                format!(
                    "Error:      \tNot equal:\n            \texpected: \"\"\n            \tactual  : \"{tok}\"\nTest:       \tTestLoadSecret"
                ),
                format!(
                    "  1) Client signs requests\n     Failure/Error: expect(client.signing_key).to be_nil\n       expected: nil\n            got: \"{tok}\""
                ),
            ],
        );
        text(tok, line)
    }),
    ("panic-and-crash-messages", |rng| {
        let tok = token_between(rng, 24, 36);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "thread 'main' panicked at src/client.rs:41:10:\ncalled `Result::unwrap()` on an `Err` value: Unauthorized {{ bearer: \"{tok}\", status: 401 }}"
                ),
                format!(
                    "panic: dial failed\n\ngoroutine 1 [running]:\nmain.connect({{0xc0000b4000, 0x9}}, {{\"{tok}\", 0x20}})\n\t/src/main.go:27 +0x1a5"
                ),
                format!(
                    "java.lang.IllegalStateException: login failed for Credentials[user=svc, secret={tok}]\n\tat com.acme.Auth.login(Auth.java:88)"
                ),
                format!(
                    "UnhandledPromiseRejection: Error: 403\n    at request (/app/client.js:12:9) {{\n  config: {{ headers: {{ 'X-Auth': '{tok}' }} }}\n}}"
                ),
                format!(
                    "** (MatchError) no match of right hand side value: {{:error, %{{reason: :expired, refresh: \"{tok}\"}}}}"
                ),
            ],
        );
        text(tok, line)
    }),
    ("template-language-assignments", |rng| {
        let tok = token_between(rng, 24, 40);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "{{% set analytics_key = \"{tok}\" %}}\n<script data-key=\"{{{{ analytics_key }}}}\"></script>"
                ),
                format!(
                    "{{{{- $authToken := \"{tok}\" -}}}}\nAuthorization: Bearer {{{{ $authToken }}}}"
                ),
                format!("{{% assign stripe_publish_secret = '{tok}' %}}"),
                format!("{{{{> payment-form merchantSecret=\"{tok}\" }}}}"),
                format!(
                    "<% signing_secret = \"{tok}\" %>\n<%= form_tag(url, data: {{ sig: sign(signing_secret) }}) %>"
                ),
            ],
        );
        text(tok, line)
    }),
];
