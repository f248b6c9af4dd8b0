//! Round 13 families in carriers nobody wrote yet: assembly and IR string constants, SQL
//! crypto functions and secret objects, config edits by jq/yq/crudini, vCard and iCalendar
//! fields, OCR'd and PDF-extracted text, unusual separators, spreadsheet formulas, banner
//! boxes, serial console sessions, diagram labels, test fixtures, commit messages, terminal
//! recordings.

use super::super::families::{Family, pick_line, text};
use super::super::values::token_between;
use super::plain_pw;

pub(super) const FAMILIES: &[Family] = &[
    ("assembly-and-ir-string-constants", |rng| {
        let tok = token_between(rng, 24, 36);
        let n = tok.len() + 1;
        let line = pick_line(
            rng,
            vec![
                format!("api_key:\n    .asciz \"{tok}\""),
                format!("section .data\n    db_pass db \"{tok}\", 0"),
                format!("@auth_token = private unnamed_addr constant [{n} x i8] c\"{tok}\\00\""),
                format!("(data (i32.const 1024) \"{tok}\") ;; license secret"),
                format!("ldstr \"{tok}\"\nstsfld string Config::ApiSecret"),
                format!(
                    "LDC \"{tok}\"\nPUTSTATIC com/acme/Keys.SIGNING_SECRET : Ljava/lang/String;"
                ),
            ],
        );
        text(tok, line)
    }),
    ("sql-crypto-functions-and-secret-objects", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("SELECT pgp_sym_encrypt(ssn, '{pw}') FROM customers;"),
                format!("UPDATE users SET card = AES_ENCRYPT(card, '{pw}');"),
                format!("CREATE SECRET s3prod (TYPE S3, KEY_ID 'AKIAEXAMPLE', SECRET '{pw}');"),
                format!("SELECT set_config('app.jwt_secret', '{pw}', false);"),
                format!("OPEN SYMMETRIC KEY CardKey DECRYPTION BY PASSWORD = '{pw}';"),
                format!("CREATE MASTER KEY ENCRYPTION BY PASSWORD = '{pw}';"),
            ],
        );
        text(pw, line)
    }),
    ("config-edit-commands", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("jq '.auth.token = \"{pw}\"' config.json > tmp && mv tmp config.json"),
                format!("yq -i '.spec.database.password = \"{pw}\"' values.yaml"),
                format!("crudini --set /etc/app/app.ini database password {pw}"),
                format!("toml set --toml-path pyproject.toml tool.poetry.http-basic.pw {pw}"),
                format!("xmlstarlet ed -L -u '//connection/@password' -v '{pw}' app.config"),
                format!("npm config set //registry.internal/:_password {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("vcard-and-icalendar-fields", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "BEGIN:VCARD\nVERSION:4.0\nFN:Router Admin\nNOTE:login admin / pass {pw}\nEND:VCARD"
                ),
                format!("BEGIN:VCARD\nFN:Shared Mailbox\nX-PASSWORD:{pw}\nEND:VCARD"),
                format!(
                    "BEGIN:VEVENT\nSUMMARY:DB cutover\nDESCRIPTION:creds for the new cluster: postgres / {pw}\nEND:VEVENT"
                ),
                format!("BEGIN:VEVENT\nLOCATION:Room 4\nX-ALT-DESC:wifi key {pw}\nEND:VEVENT"),
            ],
        );
        text(pw, line)
    }),
    ("ocr-and-pdf-extracted-text", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("P a s s w o r d :  {pw}"),
                format!("Pass-\nword: {pw}"),
                format!("PASSW0RD: {pw}"),
                format!("Pass word {pw}"),
                format!("U s e r n a m e   ops\nP a s s w o r d   {pw}"),
                format!("Acc ess tok en: {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("unusual-separators-and-leaders", |rng| {
        let pw = plain_pw(rng);
        let name = *rng.pick(&["password", "Password", "api token", "secret", "passphrase"]);
        let line = pick_line(
            rng,
            vec![
                format!("{name} ⇒ {pw}"),
                format!("{name} → {pw}"),
                format!("{name} ............ {pw}"),
                format!("{name} :: {pw}"),
                format!("{name}\t\t{pw}"),
                format!("{name} —— {pw}"),
                format!("{name} ≔ {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("spreadsheet-formulas-and-cells", |rng| {
        let tok = token_between(rng, 24, 36);
        let line = pick_line(
            rng,
            vec![
                format!("=IMPORTJSON(\"https://api.acme.dev/v2/orders\", \"/\", \"\", \"{tok}\")"),
                format!("B7\tAPI token\t{tok}"),
                format!("Sheet \"Vendors\", row 12: Stripe | live key | {tok} | owner: finance"),
                format!("=WEBSERVICE(\"https://api.acme.dev/report?apikey=\"&\"{tok}\")"),
                format!("A;B\nservice;secret\nsendgrid;{tok}"),
            ],
        );
        text(tok, line)
    }),
    ("banner-boxes-and-motd", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "╔════════════════════════════════════╗\n║  Initial admin password:           ║\n║  {pw:<34}║\n╚════════════════════════════════════╝"
                ),
                format!(
                    "+------------------------------------+\n| login: admin   pass: {pw:<14}|\n+------------------------------------+"
                ),
                format!("*** Welcome to build-07 ***\n*** root pw {pw} (temporary) ***"),
                format!("##########\n# SECRET #  {pw}\n##########"),
            ],
        );
        text(pw, line)
    }),
    ("serial-console-and-telnet-sessions", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("Router> enable\nPassword: {pw}\nRouter#"),
                format!(
                    "Trying 10.0.0.1...\nConnected to 10.0.0.1.\nlogin: admin\nPassword:{pw}\nLast login: Mon"
                ),
                format!("U-Boot> setenv bootpass {pw}\nU-Boot> saveenv"),
                format!("switch(config)# username admin privilege 15 password 0 {pw}"),
                format!(
                    "minicom: [root@edge ~]# passwd\nNew password: {pw}\nRetype new password: {pw}"
                ),
            ],
        );
        text(pw, line)
    }),
    ("diagram-labels", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("graph LR\n  app -->|user=app pw={pw}| db[(Postgres)]"),
                format!("note right of DB\n  root / {pw}\nend note"),
                format!("digraph {{ db [label=\"postgres\\nadmin pass {pw}\"]; }}"),
                format!("C4Container(db, \"Orders DB\", \"PostgreSQL\", \"password {pw}\")"),
            ],
        );
        text(pw, line)
    }),
    ("test-fixtures-and-factories", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "factory :admin do\n  email {{ 'ops@acme.dev' }}\n  password {{ '{pw}' }}\nend"
                ),
                format!("@pytest.mark.parametrize(\"user,pw\", [(\"ops\", \"{pw}\")])"),
                format!("admin = User.objects.create_superuser('ops', 'ops@acme.dev', '{pw}')"),
                format!("it('logs in', () => {{ cy.get('#pw').type('{pw}') }})"),
                format!("await page.fill('input[type=password]', '{pw}');"),
            ],
        );
        text(pw, line)
    }),
    ("commit-messages-and-changelogs", |rng| {
        let tok = token_between(rng, 24, 36);
        let line = pick_line(
            rng,
            vec![
                format!("commit 4f9c2e1\n    Rotate Stripe key (old one was {tok}, revoked)"),
                format!("* fix(ci): use {tok} for the npm publish step"),
                format!("## 2.4.1\n- Removed hard-coded license {tok} from the installer"),
                format!("Revert \"temporarily hardcode {tok} as the webhook signing value\""),
            ],
        );
        text(tok, line)
    }),
    ("terminal-recordings", |rng| {
        let pw = plain_pw(rng);
        let line = pick_line(
            rng,
            vec![
                format!("[2.104, \"o\", \"Password: \"]\n[5.870, \"i\", \"{pw}\\r\"]"),
                format!(
                    "Script started on 2026-03-02 10:14\n$ mysql -u root -p\r\nEnter password: {pw}\r\r\n"
                ),
                format!("[0.5, \"o\", \"export GITHUB_TOKEN={pw}\\r\\n\"]"),
                format!("\u{1b}[1m$\u{1b}[0m sudo -S apt update <<< {pw}"),
            ],
        );
        text(pw, line)
    }),
];
