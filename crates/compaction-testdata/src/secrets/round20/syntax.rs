//! Round 20 families of syntax: secrets split across literals and lines, password labels in
//! scripts no earlier round used, XML whose name and value are siblings, keystrokes typed by
//! UI automation, and tabular exports.

use super::super::families::{Carrier, Family, Made, pick_line, text};
use super::super::values::bare_token;
use super::{any_pw, chosen_pw, host, user};
use crate::random::Rng;

/// A secret long enough to be cut in two parts of eight characters or more, each telling.
fn long_secret(rng: &mut Rng) -> String {
    loop {
        let secret = if rng.chance(0.5) { bare_token(rng) } else { chosen_pw(rng) };
        if secret.chars().count() >= 16 && !secret.contains(['"', '\'', '\\', '$', '`']) {
            return secret;
        }
    }
}

pub(super) const FAMILIES: &[Family] = &[
    ("secrets-split-across-literals-and-lines", |rng| {
        let secret = long_secret(rng);
        let cut = secret.len() / 2;
        let (a, b) = (secret[..cut].to_owned(), secret[cut..].to_owned());
        let at = host(rng);
        let line = pick_line(
            rng,
            vec![
                format!("API_TOKEN = \"{a}\" + \"{b}\""),
                format!("db_password = (\n    \"{a}\"\n    \"{b}\"\n)"),
                format!("const char *smtp_pass = \"{a}\"\n                        \"{b}\";"),
                format!("curl -H \"Authorization: Bearer {a}\\\n{b}\" https://{at}/v1/me"),
                format!("SELECT set_config('app.secret', '{a}' || '{b}', false);"),
                format!("SET @pw = CONCAT('{a}', '{b}');"),
                format!("const apiKey = [\"{a}\", \"{b}\"].join(\"\");"),
                format!("secret := \"{a}\" +\n\t\"{b}\""),
                format!("export CLIENT_SECRET=\"{a}\"\"{b}\""),
                format!("$token = '{a}' . '{b}';"),
            ],
        );
        Made { needles: vec![secret.clone(), a, b], secret, carrier: Carrier::Text(line) }
    }),
    ("password-labels-in-scripts-not-yet-seen", |rng| {
        let pw = any_pw(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!("சர்வர்: {at}\nபயனர்: {name}\nகடவுச்சொல்: {pw}"),
                format!("సర్వర్ {at} కోసం పాస్‌వర్డ్: {pw}"),
                format!("ಬಳಕೆದಾರ: {name}\nಪಾಸ್‌ವರ್ಡ್: {pw}"),
                format!("ഉപയോക്താവ്: {name}\nപാസ്‌വേഡ്: {pw}"),
                format!("વપરાશકર્તા: {name}, પાસવર્ડ: {pw}"),
                format!("ਯੂਜ਼ਰ: {name}\nਪਾਸਵਰਡ: {pw}"),
                format!("ຊື່ຜູ້ໃຊ້: {name}\nລະຫັດຜ່ານ: {pw}"),
                format!("Хэрэглэгч: {name}\nНууц үг: {pw}"),
                format!("Пайдаланушы: {name}\nҚұпия сөз: {pw}"),
                format!("صارف: {name}\nپاس ورڈ: {pw}"),
            ],
        );
        text(pw, line)
    }),
    ("xml-names-and-values-in-siblings", |rng| {
        let secret = if rng.chance(0.5) { bare_token(rng) } else { any_pw(rng) };
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "<struct>\n  <member><name>username</name><value><string>{name}</string></value></member>\n  <member><name>password</name><value><string>{secret}</string></value></member>\n</struct>"
                ),
                format!(
                    "<saml:Attribute Name=\"apiSecret\">\n  <saml:AttributeValue xsi:type=\"xs:string\">{secret}</saml:AttributeValue>\n</saml:Attribute>"
                ),
                format!(
                    "<setting name=\"ServicePassword\" serializeAs=\"String\">\n  <value>{secret}</value>\n</setting>"
                ),
                format!(
                    "<dict>\n\t<key>Server</key>\n\t<string>{at}</string>\n\t<key>Password</key>\n\t<string>{secret}</string>\n</dict>"
                ),
                format!(
                    "<bean id=\"ds\" class=\"org.apache.commons.dbcp2.BasicDataSource\">\n  <property name=\"username\" value=\"{name}\"/>\n  <property name=\"password\" value=\"{secret}\"/>\n</bean>"
                ),
                format!("<Property Id=\"SQLSVCPASSWORD\" Value=\"{secret}\" Hidden=\"yes\" />"),
                format!("<entry>\n  <key>api.token</key>\n  <value>{secret}</value>\n</entry>"),
                format!(
                    "<parameter>\n  <name>credential</name>\n  <value>{secret}</value>\n</parameter>"
                ),
            ],
        );
        text(secret, line)
    }),
    ("keystrokes-typed-by-ui-automation", |rng| {
        let pw = any_pw(rng);
        let name = user(rng);
        let line = pick_line(
            rng,
            vec![
                format!("tmux send-keys -t deploy:0 '{pw}' Enter"),
                format!("xdotool type --delay 50 '{pw}'; xdotool key Return"),
                format!(
                    "tell application \"System Events\" to keystroke \"{pw}\"\ntell application \"System Events\" to key code 36"
                ),
                format!("WinWait, Login\nSend, {name}{{Tab}}{pw}{{Enter}}"),
                format!(
                    "driver.find_element(By.ID, \"pass\").send_keys(\"{pw}\")\ndriver.find_element(By.ID, \"login\").click()"
                ),
                format!("await page.getByLabel('Password').fill('{pw}');"),
                format!("cy.get('input[name=pass]').type('{pw}', {{ log: false }})"),
                format!("Input Password    id=password    {pw}"),
                format!("child.expect('assword:')\nchild.sendline('{pw}')"),
                format!("adb shell input text '{pw}'"),
            ],
        );
        text(pw, line)
    }),
    ("tabular-exports-and-key-value-replies", |rng| {
        let secret = if rng.chance(0.5) { bare_token(rng) } else { any_pw(rng) };
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "COPY public.service_accounts (id, name, api_secret, created_at) FROM stdin;\n1\t{name}\t{secret}\t2026-12-07 09:14:02\n\\."
                ),
                format!(
                    "folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp\n,,login,{at},,,0,https://{at},{name},{secret},"
                ),
                format!(
                    "\"Account\",\"Login Name\",\"Password\",\"Web Site\",\"Comments\"\n\"{at}\",\"{name}\",\"{secret}\",\"https://{at}\",\"\""
                ),
                format!(
                    "127.0.0.1:6379> HGETALL svc:{name}\n1) \"host\"\n2) \"{at}\"\n3) \"password\"\n4) \"{secret}\""
                ),
                format!(
                    "CREATE TABLE `smtp_accounts` (`id` int, `login` varchar(64), `passwd` varchar(64));\nINSERT INTO `smtp_accounts` VALUES (1,'{name}','{secret}');"
                ),
                format!(
                    "sqlite> .mode line\nsqlite> select * from creds;\n    user = {name}\npassword = {secret}"
                ),
                format!("name\tkind\tvalue\n{name}\tuser\t-\ndb_password\tsecret\t{secret}"),
                format!(
                    "$ kubectl get secret app -o custom-columns=USER:.data.user,TOKEN:.stringData.token\nUSER     TOKEN\n{name}   {secret}"
                ),
            ],
        );
        text(secret, line)
    }),
];
