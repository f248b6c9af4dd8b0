//! Credentials in configuration and code: environment names, YAML, TOML and INI, XML,
//! Java properties, custom headers, code literals, container environments, git remotes and
//! SMTP authentication.

use super::*;

pub(super) const FAMILIES: &[Family] = &[
    ("env-names-with-secret-parts", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("PAYMENTS_PASSPHRASE={pw}"),
                format!("export SMTP_PASS={pw}"),
                format!("REDIS_AUTH={pw}"),
                format!("LDAP_BIND_CREDENTIAL={pw}"),
                format!("DB_PWD={pw}"),
                format!("set ADMIN_PASSWD={pw}"),
            ],
        );
        text(pw, line)
    }),
    ("yaml-nested-secrets", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("database:\n  host: db\n  password: {pw}\n  pool: 5"),
                format!("smtp:\n  user: alerts\n  auth_pass: \"{pw}\""),
                format!("oauth:\n  clientId: web\n  clientSecret: {pw}"),
                format!("spring:\n  datasource:\n    username: app\n    password: '{pw}'"),
            ],
        );
        text(pw, line)
    }),
    ("toml-ini-secrets", |rng| {
        let pw = password(rng).replace(['"', '\''], "");
        let line = pick_line(
            rng,
            vec![
                format!("[smtp]\nhost = mail\npass = {pw}"),
                format!("[service]\nsecret_key = \"{pw}\"\ntimeout = 30"),
                format!("[client]\nuser=root\npassword={pw}"),
                format!("[api]\nauth_token = '{pw}'"),
            ],
        );
        text(pw, line)
    }),
    ("xml-config-secrets", |rng| {
        let pw = password(rng).replace(['<', '>', '&', '"'], "");
        let line = pick_line(
            rng,
            vec![
                format!("<add key=\"StorageAccountKey\" value=\"{pw}\" />"),
                format!(
                    "<server><id>nexus</id><username>ci</username><password>{pw}</password></server>"
                ),
                format!("<property name=\"javax.net.ssl.keyStorePassword\" value=\"{pw}\"/>"),
                format!("<entry key=\"api.secret\">{pw}</entry>"),
                format!("<connectionString>Server=db;Uid=app;Pwd={pw}</connectionString>"),
            ],
        );
        text(pw, line)
    }),
    ("java-properties", |rng| {
        let pw = password(rng);
        let line = pick_line(
            rng,
            vec![
                format!("spring.datasource.password={pw}"),
                format!("mail.smtp.auth.pass = {pw}"),
                format!("db.credential={pw}"),
                format!("keystore.pass: {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("custom-auth-headers", |rng| {
        let tok = token_between(rng, 24, 44);
        let line = pick_line(
            rng,
            vec![
                format!("curl -H 'X-Api-Secret: {tok}' https://api.example.com/v2/items"),
                format!("Authorization: Token token={tok}"),
                format!("X-Service-Auth: {tok}"),
                format!("curl -H \"PRIVATE-TOKEN: {tok}\" https://git.example.com/api/v4/projects"),
                format!("Proxy-Authorization: Bearer {tok}"),
            ],
        );
        text(tok, line)
    }),
    ("code-literals", |rng| {
        let pw = password(rng).replace(['"', '\\'], "");
        let line = pick_line(
            rng,
            vec![
                format!("const apiSecret = \"{pw}\";"),
                format!("self.password = \"{pw}\""),
                format!("client = Client(token=\"{pw}\", timeout=30)"),
                format!("const PASSWORD: &str = \"{pw}\";"),
                format!("conn := sql.Open(\"mysql\", \"root:{pw}@tcp(db:3306)/shop\")"),
            ],
        );
        text(pw, line)
    }),
    ("container-env", |rng| {
        let pw = password(rng).replace(['"', '\''], "");
        let line = pick_line(
            rng,
            vec![
                format!("docker run -e MYSQL_ROOT_PASSWORD={pw} -d mysql:8"),
                format!("docker run --env \"APP_TOKEN={pw}\" app:latest"),
                format!("environment:\n  - POSTGRES_PASSWORD={pw}\n  - POSTGRES_USER=app"),
                format!("kubectl create secret generic db --from-literal=password={pw}"),
                format!("stringData:\n  password: {pw}\n  username: app"),
            ],
        );
        text(pw, line)
    }),
    ("git-remote-tokens", |rng| {
        let tok = token_between(rng, 30, 40);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "git remote set-url origin https://oauth2:{tok}@gitlab.example.com/grp/repo.git"
                ),
                format!("https://x-access-token:{tok}@github.com/org/repo"),
                format!("url = https://{tok}@git.example.org/team/repo.git"),
            ],
        );
        text(tok, line)
    }),
    ("smtp-auth-plain", |rng| {
        let pw = password(rng);
        let user = rng.pick(&["alerts@example.com", "bob", "noreply@shop.example"]);
        let blob = B64.encode(format!("\0{user}\0{pw}"));
        let line = pick_line(
            rng,
            vec![
                format!("C: AUTH PLAIN {blob}\nS: 235 2.7.0 Authentication successful"),
                format!("swaks --auth PLAIN --auth-user {user} ... \n -> AUTH PLAIN {blob}"),
            ],
        );
        Made { secret: pw.clone(), needles: vec![pw, blob], carrier: Carrier::Text(line) }
    }),
];
