//! Round 19 families of carriers: CLI tables drawn with box-drawing characters, quoted e-mail
//! replies, ORM and driver logs of bound parameters, tracing span attributes and
//! error-tracker breadcrumbs, and `.http`, Bruno and Hoppscotch request files.

use super::super::families::{Family, pick_line, text};
use super::super::values::bare_token;
use super::{chosen_pw, host, user, word_pw};

pub(super) const FAMILIES: &[Family] = &[
    ("box-drawing-cli-tables", |rng| {
        let pw = if rng.chance(0.5) { chosen_pw(rng) } else { word_pw(rng) };
        let (name, at) = (user(rng), host(rng));
        let pad = |s: &str, width: usize| format!("{s:<width$}");
        let w = pw.len().max(8);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "┌──────────┬──────────────────┬{bar}┐\n│ User     │ Host             │ {p} │\n├──────────┼──────────────────┼{bar}┤\n│ {n} │ {h} │ {v} │\n└──────────┴──────────────────┴{bar}┘",
                    bar = "─".repeat(w + 2),
                    p = pad("Password", w),
                    n = pad(name, 8),
                    h = pad(at, 16),
                    v = pad(&pw, w)
                ),
                format!(
                    "╭───────────┬{bar}╮\n│ Field     │ {v0} │\n├───────────┼{bar}┤\n│ username  │ {n} │\n│ password  │ {v} │\n│ host      │ {h} │\n╰───────────┴{bar}╯",
                    bar = "─".repeat(w.max(16) + 2),
                    v0 = pad("Value", w.max(16)),
                    n = pad(name, w.max(16)),
                    v = pad(&pw, w.max(16)),
                    h = pad(at, w.max(16))
                ),
                format!(
                    "╔════════╦{bar}╗\n║ KEY    ║ {v0} ║\n╠════════╬{bar}╣\n║ SECRET ║ {v} ║\n╚════════╩{bar}╝",
                    bar = "═".repeat(w + 2),
                    v0 = pad("VALUE", w),
                    v = pad(&pw, w)
                ),
                format!(
                    "$ vault kv get -format=table secret/db\n===== Data =====\nKey         Value\n---         -----\npassword    {pw}\nusername    {name}"
                ),
                format!(
                    "$ op item get \"{at}\" --fields label=username,label=password\n┃ {name} ┃ {pw} ┃"
                ),
                format!(
                    " NAME      │ ROLE   │ TOKEN\n───────────┼────────┼{}\n {} │ deploy │ {pw}",
                    "─".repeat(w + 2),
                    pad(name, 9)
                ),
                format!("┃ Kennwort ┃ {pw} ┃\n┃ Benutzer ┃ {name} ┃"),
            ],
        );
        text(pw, line)
    }),
    ("quoted-email-replies-with-credentials", |rng| {
        let pw = if rng.chance(0.5) { chosen_pw(rng) } else { word_pw(rng) };
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "Thanks, that worked!\n\nOn Mon, Dec 7, 2026 at 9:14 AM Dana Ruiz <dana@example.com> wrote:\n> Hi, your account on {at} is ready.\n> Username: {name}\n> Password: {pw}\n> Please change it after the first login."
                ),
                format!(
                    "Looping in Sam.\n\n>> The staging login is {name} / {pw}\n>> (same as last quarter)\n> Can we rotate this?\nYes, next sprint."
                ),
                format!(
                    "-----Original Message-----\nFrom: IT Helpdesk <helpdesk@example.com>\nSent: Monday, December 7, 2026 9:02 AM\nSubject: RE: VPN access\n\nYour temporary password is {pw}\nYou will be asked to change it."
                ),
                format!(
                    "| From: ops@example.com\n| Subject: new DB creds\n|\n| pass: {pw}\n| host: {at}"
                ),
                format!(
                    "Le lun. 7 déc. 2026 à 09:14, Luc <luc@example.fr> a écrit :\n> Le mot de passe provisoire est {pw}\n> Merci de le changer."
                ),
                format!(
                    "Am 07.12.2026 um 09:14 schrieb Jan:\n> Zugang für {at}:\n> Benutzer {name}, Passwort {pw}"
                ),
                format!(
                    "________________________________\nFrom: Priya\nSent: Monday\nTo: team\n\nFor the shared mailbox use\n  {name}\n  pw {pw}"
                ),
            ],
        );
        text(pw, line)
    }),
    ("orm-bound-parameter-logs", |rng| {
        let pw = if rng.chance(0.5) { chosen_pw(rng) } else { word_pw(rng) };
        let name = user(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "DEBUG org.hibernate.SQL - insert into app_user (login, password, role) values (?, ?, ?)\nTRACE o.h.type.descriptor.sql.BasicBinder - binding parameter [1] as [VARCHAR] - [{name}]\nTRACE o.h.type.descriptor.sql.BasicBinder - binding parameter [2] as [VARCHAR] - [{pw}]\nTRACE o.h.type.descriptor.sql.BasicBinder - binding parameter [3] as [VARCHAR] - [admin]"
                ),
                format!(
                    "  User Create (0.9ms)  INSERT INTO \"users\" (\"email\", \"password_digest_plain\", \"created_at\") VALUES ($1, $2, $3) RETURNING \"id\"  [[\"email\", \"{name}@example.com\"], [\"password_digest_plain\", \"{pw}\"], [\"created_at\", \"2026-12-07 09:14:02\"]]"
                ),
                format!(
                    "INFO sqlalchemy.engine.Engine UPDATE accounts SET secret=%(secret)s WHERE accounts.id = %(accounts_id)s\nINFO sqlalchemy.engine.Engine [generated in 0.00021s] {{'secret': '{pw}', 'accounts_id': 7}}"
                ),
                format!(
                    "Executing (default): INSERT INTO `credentials` (`id`,`user`,`pass`) VALUES (DEFAULT,?,?); {name},{pw}"
                ),
                format!(
                    "prisma:query INSERT INTO \"public\".\"ApiKey\" (\"owner\",\"key\") VALUES ($1,$2) RETURNING \"id\"\nprisma:query params [\"{name}\",\"{pw}\"]"
                ),
                format!(
                    "(0.001) UPDATE \"auth_user\" SET \"password\" = '{pw}' WHERE \"auth_user\".\"id\" = 3; args=('{pw}', 3); alias=default"
                ),
                format!(
                    "2026-12-07 09:14:02.114 DEBUG [jdbc] PreparedStatement.setString(2, \"{pw}\") -- UPDATE users SET password = ? WHERE login = ?"
                ),
                format!(
                    "[GORM] 2026/12/07 09:14:02 /app/repo.go:41 [1.2ms] [rows:1] INSERT INTO `service_accounts` (`name`,`token`) VALUES ('{name}','{pw}')"
                ),
            ],
        );
        text(pw, line)
    }),
    ("tracing-span-attributes-and-breadcrumbs", |rng| {
        let secret = if rng.chance(0.5) { bare_token(rng) } else { chosen_pw(rng) };
        let at = host(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "Span #3\n    Trace ID       : 5b8efff798038103d269b633813fc60c\n    Name           : POST /v1/charge\nAttributes:\n     -> http.request.header.x-api-key: Slice([\"{secret}\"])\n     -> server.address: Str({at})"
                ),
                format!(
                    "{{\"traceId\":\"5b8efff798038103d269b633813fc60c\",\"name\":\"db.connect\",\"attributes\":[{{\"key\":\"db.connection_string\",\"value\":{{\"stringValue\":\"Server={at};User Id=sa;Password={secret};\"}}}}]}}"
                ),
                format!(
                    "\"breadcrumbs\": {{\"values\": [{{\"category\": \"http\", \"data\": {{\"url\": \"https://{at}/login\", \"method\": \"POST\", \"body\": \"user=ci&passwd={secret}\"}}}}]}}"
                ),
                format!(
                    "dd.trace_id=871234 dd.span_id=9912 span.tags: {{http.url: https://{at}/sync, http.request.headers.authorization: \"Bearer {secret}\"}}"
                ),
                format!(
                    "jaeger: span=\"redis.AUTH\" tags=[db.system=redis db.statement=\"AUTH {secret}\" net.peer.name={at}]"
                ),
                format!(
                    "otel.event name=exception attributes={{exception.message=\"login failed for user svc with password '{secret}'\"}}"
                ),
                format!(
                    "sentry_sdk.add_breadcrumb(category=\"auth\", message=\"retrying\", data={{\"client_secret\": \"{secret}\"}})"
                ),
            ],
        );
        text(secret, line)
    }),
    ("http-request-files-bruno-and-hoppscotch", |rng| {
        let pw = if rng.chance(0.5) { chosen_pw(rng) } else { word_pw(rng) };
        let tok = bare_token(rng);
        let (name, at) = (user(rng), host(rng));
        let pick = rng.below(8);
        let secret = if pick % 2 == 0 { pw } else { tok };
        let line = match pick {
            0 => format!(
                "### Login\nPOST https://{at}/api/login\nAuthorization: Basic {name} {secret}\nContent-Type: application/json"
            ),
            1 => format!(
                "@baseUrl = https://{at}\n@token = {secret}\n\n### list\nGET {{{{baseUrl}}}}/items\nAuthorization: Bearer {{{{token}}}}"
            ),
            2 => format!(
                "meta {{\n  name: login\n  type: http\n}}\n\npost {{\n  url: https://{at}/login\n}}\n\nauth:basic {{\n  username: {name}\n  password: {secret}\n}}"
            ),
            3 => format!(
                "vars:secret [\n  apiKey\n]\nvars {{\n  host: https://{at}\n  apiKey: {secret}\n}}"
            ),
            4 => format!(
                "{{\"v\": 2, \"name\": \"staging\", \"variables\": [{{\"key\": \"adminPass\", \"value\": \"{secret}\", \"secret\": true}}]}}"
            ),
            5 => format!(
                "auth:bearer {{\n  token: {secret}\n}}\n\nheaders {{\n  accept: application/json\n}}"
            ),
            6 => format!(
                "POST https://{at}/oauth/token\nContent-Type: application/x-www-form-urlencoded\n\ngrant_type=password&username={name}&password={secret}"
            ),
            _ => format!(
                "_type: request\nname: Get orders\nurl: https://{at}/orders\nauthentication:\n  type: apikey\n  key: X-Api-Key\n  value: {secret}\n  addTo: header"
            ),
        };
        text(secret, line)
    }),
];
