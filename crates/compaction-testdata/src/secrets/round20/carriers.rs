//! Round 20 families of carriers: notebook JSON, structured logs, wire dumps, CI traces and
//! masking failures, and diffs that break a name from its value.

use super::super::families::{Family, pick_line, text};
use super::super::values::bare_token;
use super::{any_pw, chosen_pw, host, user};

pub(super) const FAMILIES: &[Family] = &[
    ("notebook-cells-and-outputs", |rng| {
        let secret = if rng.chance(0.5) { bare_token(rng) } else { any_pw(rng) };
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "{{\n \"cell_type\": \"code\",\n \"execution_count\": 3,\n \"metadata\": {{}},\n \"outputs\": [],\n \"source\": [\n  \"import os\\n\",\n  \"os.environ[\\\"WANDB_API_KEY\\\"] = \\\"{secret}\\\"\\n\",\n  \"wandb.login()\"\n ]\n}}"
                ),
                format!(
                    "  \"outputs\": [\n    {{\n     \"name\": \"stdout\",\n     \"output_type\": \"stream\",\n     \"text\": [\n      \"Connecting to {at} as {name}\\n\",\n      \"using password {secret}\\n\"\n     ]\n    }}\n   ],"
                ),
                format!(
                    "# Databricks notebook source\n# COMMAND ----------\n\njdbc_user = \"{name}\"\njdbc_pass = \"{secret}\"\n\n# COMMAND ----------\n\ndf = spark.read.jdbc(url, \"orders\", properties={{\"user\": jdbc_user, \"password\": jdbc_pass}})"
                ),
                format!(
                    "```{{r setup, include=FALSE}}\nSys.setenv(DB_PWD = \"{secret}\")\ncon <- dbConnect(RPostgres::Postgres(), host = \"{at}\", user = \"{name}\")\n```"
                ),
                format!(
                    "{{\"paragraphs\": [{{\"text\": \"%sh\\nexport PGPASSWORD='{secret}'\\npsql -h {at} -U {name} -c 'select 1'\", \"status\": \"FINISHED\"}}]}}"
                ),
                format!("In [4]: %env HF_TOKEN={secret}\nenv: HF_TOKEN={secret}"),
                format!(
                    "   \"source\": [\n    \"%%bash\\n\",\n    \"curl -s -u {name}:{secret} https://{at}/api/health\\n\"\n   ]"
                ),
                format!(
                    "{{\"cell_type\": \"markdown\", \"source\": [\"Staging credentials (do not share):\\n\", \"\\n\", \"* user: `{name}`\\n\", \"* pass: `{secret}`\\n\"]}}"
                ),
            ],
        );
        text(secret, line)
    }),
    ("journald-rfc5424-cef-and-event-xml", |rng| {
        let secret = if rng.chance(0.5) { bare_token(rng) } else { any_pw(rng) };
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "__CURSOR=s=8a1b2c;i=1f3a;b=5d6e;m=2b1c;t=5f0a;x=9c2d\n__REALTIME_TIMESTAMP=1765098842000000\n_SYSTEMD_UNIT=backup.service\nSYSLOG_IDENTIFIER=backup.sh\nMESSAGE=mounting //{at}/share with user={name},password={secret}"
                ),
                format!(
                    "{{\"__REALTIME_TIMESTAMP\":\"1765098842000000\",\"_HOSTNAME\":\"web1\",\"SYSLOG_IDENTIFIER\":\"app\",\"MESSAGE\":\"auth ok, session key {secret}\",\"PRIORITY\":\"6\"}}"
                ),
                format!(
                    "<165>1 2026-12-07T09:14:02.003Z web1 billing 4121 ID47 [creds@32473 user=\"{name}\" secret=\"{secret}\"] reconnecting to {at}"
                ),
                format!(
                    "CEF:0|Acme|Gateway|4.2|100|Login|5|src=10.0.0.7 suser={name} cs1Label=apiKey cs1={secret} dhost={at}"
                ),
                format!(
                    "LEEF:2.0|Acme|Gateway|4.2|login|^|usrName={name}^src=10.0.0.7^password={secret}^dst={at}"
                ),
                format!(
                    "{{\"version\":\"1.1\",\"host\":\"web1\",\"short_message\":\"token refresh\",\"level\":6,\"_user\":\"{name}\",\"_refresh_token\":\"{secret}\"}}"
                ),
                format!(
                    "<EventData>\n  <Data Name=\"TargetUserName\">{name}</Data>\n  <Data Name=\"Password\">{secret}</Data>\n  <Data Name=\"IpAddress\">10.0.0.7</Data>\n</EventData>"
                ),
                format!(
                    "Dec  7 09:14:02 web1 sudo[4121]: {name} : TTY=pts/0 ; PWD=/srv ; USER=root ; COMMAND=/usr/bin/mysqladmin -u root -p{secret} flush-hosts"
                ),
            ],
        );
        text(secret, line)
    }),
    ("wire-dumps-curl-verbose-and-captures", |rng| {
        let secret = if rng.chance(0.5) { bare_token(rng) } else { chosen_pw(rng) };
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "*   Trying {at}:443...\n* Connected to {at} port 443\n> POST /v2/sync HTTP/2\n> Host: {at}\n> User-Agent: curl/8.5.0\n> X-Auth-Token: {secret}\n> Accept: */*\n>\n< HTTP/2 200"
                ),
                format!(
                    "---request begin---\nGET /export HTTP/1.1\nHost: {at}\nPrivate-Token: {secret}\nConnection: Keep-Alive\n---request end---"
                ),
                format!(
                    "T 10.0.0.7:51234 -> 10.60.3.14:21 [AP] #4\n  USER {name}..\nT 10.0.0.7:51234 -> 10.60.3.14:21 [AP] #6\n  PASS {secret}.."
                ),
                format!(
                    "09:14:02.114 IP 10.0.0.7.51234 > 10.60.3.14.110: Flags [P.], length 22\nE..J..@.@...........\n+OK ready..USER {name}..PASS {secret}.."
                ),
                format!(
                    "{{\"request\": {{\"method\": \"POST\", \"url\": \"https://{at}/login\", \"postData\": {{\"mimeType\": \"application/x-www-form-urlencoded\", \"params\": [{{\"name\": \"username\", \"value\": \"{name}\"}}, {{\"name\": \"password\", \"value\": \"{secret}\"}}]}}}}}}"
                ),
                format!(
                    "\"headers\": [\n  {{\"name\": \"accept\", \"value\": \"application/json\"}},\n  {{\"name\": \"x-api-key\", \"value\": \"{secret}\"}}\n]"
                ),
                format!(
                    "$ openssl s_client -quiet -connect {at}:993\n* OK IMAP4rev1 ready\na1 LOGIN {name} {secret}\na1 OK LOGIN completed"
                ),
                format!(
                    "POST /token HTTP/1.1\nHost: {at}\nContent-Type: application/json\n\n{{\"client_id\":\"{name}\",\"client_secret\":\"{secret}\"}}\n\nHTTP/1.1 200 OK"
                ),
            ],
        );
        text(secret, line)
    }),
    ("ci-traces-and-masking-failures", |rng| {
        let secret = if rng.chance(0.5) { bare_token(rng) } else { chosen_pw(rng) };
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "2026-12-07T09:14:02.1234567Z ##[group]Run ./deploy.sh\n2026-12-07T09:14:02.1301234Z + docker login -u {name} -p {secret} {at}\n2026-12-07T09:14:03.0012345Z WARNING! Using --password via the CLI is insecure."
                ),
                format!(
                    "[Pipeline] sh\n+ set -x\n+ curl -fsS -u {name}:{secret} https://{at}/job/build/buildWithParameters\n[Pipeline] }}"
                ),
                format!(
                    "#9 [build 4/7] RUN npm config set //{at}/:_authToken {secret} && npm ci\n#9 0.412 npm warn config set in .npmrc\n#9 DONE 14.2s"
                ),
                format!(
                    "$ docker history --no-trunc app:latest\nIMAGE          CREATED BY\nsha256:4f1e…   /bin/sh -c #(nop)  ENV SENTRY_AUTH={secret}\nsha256:9a2c…   /bin/sh -c #(nop)  WORKDIR /app"
                ),
                format!(
                    "Run echo \"***\" | base64\n  echo \"***\" | base64\n  shell: /usr/bin/bash -e {{0}}\n  env:\n    DEPLOY_KEY: ***\n(masked above, but printed by a later step:) deploy key is {secret}"
                ),
                format!(
                    "section_start:1765098842:step_script\r\u{1b}[0K\u{1b}[32;1m$ mysql -h {at} -u{name} -p\"{secret}\" < migrate.sql\u{1b}[0;m\nsection_end:1765098843:step_script"
                ),
                format!(
                    "[2026-12-07T09:14:02Z] Running command: helm upgrade app ./chart --set db.password={secret}\n[2026-12-07T09:14:05Z] Release \"app\" has been upgraded."
                ),
                format!(
                    "##[debug]Evaluating: secrets.REGISTRY_PASSWORD\n##[debug]=> '{secret}'\n##[debug]Result: '{secret}'"
                ),
            ],
        );
        text(secret, line)
    }),
    ("word-diffs-side-by-side-and-conflicts", |rng| {
        let secret = if rng.chance(0.5) { bare_token(rng) } else { any_pw(rng) };
        let old = any_pw(rng);
        let at = host(rng);
        let line = pick_line(
            rng,
            vec![
                format!("$ git diff --word-diff\n@@ -3 +3 @@\napi_key: [-{old}-]{{+{secret}+}}"),
                format!(
                    "$ diff -y old.env new.env\nDB_HOST={at}\t\t\t\tDB_HOST={at}\nDB_PASS={old}\t\t\t|\tDB_PASS={secret}"
                ),
                format!(
                    "<<<<<<< HEAD\nsmtp:\n  password: {old}\n=======\nsmtp:\n  password: {secret}\n>>>>>>> rotate-smtp"
                ),
                format!(
                    "*** config.ini\t2026-12-01\n--- config.ini\t2026-12-07\n***************\n*** 4 ****\n! secret = {old}\n--- 4 ----\n! secret = {secret}"
                ),
                format!(
                    "commit 1a2b3c4d5e6f\nAuthor: Dev <dev@example.com>\n\n    rotate token\n\ndiff --git a/ci/vars.yml b/ci/vars.yml\n@@ -1,2 +1,2 @@\n-registry_token: {old}\n+registry_token: {secret}"
                ),
                format!(
                    "  41   41 │ services:\n  42      │-  token: {old}\n       42 │+  token: {secret}"
                ),
                format!(
                    "$ git diff --color-words\n\u{1b}[1mdiff --git a/.env b/.env\u{1b}[m\nDB_PASSWORD=\u{1b}[31m{old}\u{1b}[m\u{1b}[32m{secret}\u{1b}[m"
                ),
                format!(
                    "$ git log -p -S\"{secret}\" -- settings.py\n-SECRET_KEY = '{old}'\n+SECRET_KEY = '{secret}'"
                ),
            ],
        );
        text(secret, line)
    }),
];
