//! Round 22 families of saved sources: connections saved by IDEs and GUI clients, package
//! sources in lockfiles and secrets in commit messages, and plain-text entries of servers'
//! user files.

use base64::Engine as _;

use super::super::families::{B64, Family, Made, pick_line, text};
use super::super::values::bare_token;
use super::{any_pw, any_secret, host, user};
use crate::secrets::families::Carrier;

pub(super) const FAMILIES: &[Family] = &[
    ("ide-and-gui-client-saved-connections", |rng| {
        let secret = any_secret(rng);
        let (name, at) = (user(rng), host(rng));
        let b64 = B64.encode(&secret);
        let (form, line) = match rng.below(8) {
            0 => (
                secret.clone(),
                format!(
                    "// .vscode/settings.json\n{{\n  \"editor.formatOnSave\": true,\n  \"sqltools.connections\": [\n    {{\n      \"previewLimit\": 50,\n      \"server\": \"{at}\",\n      \"port\": 5432,\n      \"driver\": \"PostgreSQL\",\n      \"name\": \"orders-prod\",\n      \"database\": \"orders\",\n      \"username\": \"{name}\",\n      \"password\": \"{secret}\"\n    }}\n  ]\n}}"
                ),
            ),
            1 => (
                secret.clone(),
                format!(
                    "<!-- .idea/runConfigurations/OrdersApp.xml -->\n<component name=\"ProjectRunConfigurationManager\">\n  <configuration name=\"OrdersApp\" type=\"SpringBootApplicationConfigurationType\">\n    <envs>\n      <env name=\"SPRING_PROFILES_ACTIVE\" value=\"local\" />\n      <env name=\"ORDERS_DB_SECRET\" value=\"{secret}\" />\n    </envs>\n  </configuration>\n</component>"
                ),
            ),
            2 => (
                b64.clone(),
                format!(
                    "<!-- %APPDATA%\\FileZilla\\sitemanager.xml -->\n<Server>\n    <Host>{at}</Host>\n    <Port>21</Port>\n    <Protocol>0</Protocol>\n    <Type>0</Type>\n    <User>{name}</User>\n    <Pass encoding=\"base64\">{b64}</Pass>\n    <Name>orders ftp</Name>\n</Server>"
                ),
            ),
            3 => (
                secret.clone(),
                format!(
                    "// sftp-config.json (Sublime SFTP)\n{{\n    \"type\": \"sftp\",\n    \"upload_on_save\": true,\n    \"host\": \"{at}\",\n    \"user\": \"{name}\",\n    \"password\": \"{secret}\",\n    //\"ssh_key_file\": \"~/.ssh/id_rsa\",\n    \"remote_path\": \"/var/www/orders/\"\n}}"
                ),
            ),
            4 => (
                secret.clone(),
                format!(
                    "// .vscode/settings.json\n{{\n  \"rest-client.environmentVariables\": {{\n    \"$shared\": {{ \"version\": \"v2\" }},\n    \"prod\": {{\n      \"host\": \"https://{at}\",\n      \"apiKey\": \"{secret}\"\n    }}\n  }}\n}}"
                ),
            ),
            5 => (
                secret.clone(),
                format!(
                    "// .vscode/launch.json\n{{\n  \"version\": \"0.2.0\",\n  \"configurations\": [\n    {{\n      \"type\": \"node\",\n      \"request\": \"launch\",\n      \"name\": \"orders api\",\n      \"program\": \"${{workspaceFolder}}/src/index.js\",\n      \"env\": {{ \"NODE_ENV\": \"development\", \"ORDERS_UPSTREAM_KEY\": \"{secret}\" }}\n    }}\n  ]\n}}"
                ),
            ),
            6 => (
                secret.clone(),
                format!(
                    "// DBeaver credentials-config.json, decrypted\n{{\"postgres-jdbc-18c2a1f4e4b-6a1d\":{{\"#connection\":{{\"user\":\"{name}\",\"password\":\"{secret}\"}}}}}}"
                ),
            ),
            _ => (
                secret.clone(),
                format!(
                    "# Insomnia export\nresources:\n  - _id: env_8c1f2b\n    _type: environment\n    name: Production\n    data:\n      base_url: https://{at}\n      bearer: {secret}"
                ),
            ),
        };
        Made { needles: vec![secret.clone(), form], secret, carrier: Carrier::Text(line) }
    }),
    ("lockfile-sources-and-commit-messages", |rng| {
        let secret = if rng.chance(0.6) { bare_token(rng) } else { any_pw(rng) };
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "# yarn.lock\n\"@acme/ui-kit@^4.2.0\":\n  version \"4.2.3\"\n  resolved \"https://{name}:{secret}@{at}/npm/@acme/ui-kit/-/ui-kit-4.2.3.tgz#8f2c1e\"\n  integrity sha512-Qm9xk2o1"
                ),
                format!(
                    "// package-lock.json\n    \"node_modules/@acme/ui-kit\": {{\n      \"version\": \"4.2.3\",\n      \"resolved\": \"https://{at}/npm/@acme/ui-kit/-/ui-kit-4.2.3.tgz?token={secret}\",\n      \"integrity\": \"sha512-Qm9xk2o1\"\n    }}"
                ),
                format!(
                    "// Pipfile.lock\n    \"_meta\": {{\n        \"sources\": [\n            {{\n                \"name\": \"internal\",\n                \"url\": \"https://{name}:{secret}@{at}/simple\",\n                \"verify_ssl\": true\n            }}\n        ]\n    }},"
                ),
                format!(
                    "# Gemfile.lock\nGEM\n  remote: https://{name}:{secret}@{at}/gems/\n  specs:\n    acme-billing (2.4.1)\n"
                ),
                format!(
                    "# uv.lock\n[[package]]\nname = \"acme-billing\"\nversion = \"2.4.1\"\nsource = {{ registry = \"https://{name}:{secret}@{at}/simple\" }}"
                ),
                format!(
                    "$ git log -1\ncommit 5d1e0a3c9b7f2e4a6c8d0b1f3e5a7c9d1b3f5e7a\nAuthor: {name} <{name}@example.org>\nDate:   Mon Dec 7 10:14:22 2026 +0000\n\n    hotfix: point orders at the new broker\n\n    The broker password is now {secret} until the vault sync lands."
                ),
                format!(
                    "$ git commit -am \"temporarily hard-code upstream key {secret} (revert before release)\"\n[main 5d1e0a3] temporarily hard-code upstream key {secret} (revert before release)\n 1 file changed, 1 insertion(+), 1 deletion(-)"
                ),
                format!(
                    "# poetry.lock\n[package.source]\ntype = \"legacy\"\nurl = \"https://{name}:{secret}@{at}/simple\"\nreference = \"internal\""
                ),
            ],
        );
        text(secret, line)
    }),
    ("cleartext-entries-in-server-user-files", |rng| {
        let secret = any_pw(rng);
        let name = user(rng);
        let line = pick_line(
            rng,
            vec![
                format!(
                    "@Bean\nUserDetailsService users() {{\n    return new InMemoryUserDetailsManager(User.withUsername(\"{name}\")\n        .password(\"{{noop}}{secret}\").roles(\"ADMIN\").build());\n}}"
                ),
                format!(
                    "# /etc/freeradius/3.0/mods-config/files/authorize\n{name}  Cleartext-Password := \"{secret}\"\n        Reply-Message := \"Hello, %{{User-Name}}\""
                ),
                format!(
                    "<!-- conf/tomcat-users.xml -->\n<tomcat-users>\n  <role rolename=\"manager-gui\"/>\n  <user username=\"{name}\" password=\"{secret}\" roles=\"manager-gui,admin-gui\"/>\n</tomcat-users>"
                ),
                format!(
                    "# etc/realm.properties (Jetty)\n{name}: {secret},admin,user\nguest: OBF:1v2j1uum1xtv1zej1zer1xtn1uvk1v1v,user"
                ),
                format!(
                    "# conf/users.properties (ActiveMQ)\n{name}={secret}\nmonitor=OBF:1uh81uha1uha"
                ),
                format!(
                    "KafkaServer {{\n   org.apache.kafka.common.security.plain.PlainLoginModule required\n   username=\"broker\"\n   password=\"broker-secret\"\n   user_{name}=\"{secret}\";\n}};"
                ),
                format!(
                    "# /etc/dovecot/users\n{name}:{{PLAIN}}{secret}:1001:1001::/home/{name}::userdb_mail=maildir:~/Maildir"
                ),
                format!(
                    "# /etc/lighttpd/lighttpd.user (auth.backend = \"plain\")\n{name}:{secret}"
                ),
            ],
        );
        text(secret, line)
    }),
];
