use super::*;

fn found(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    values_after_names(text, &mut out);
    out.into_iter().map(|span| &text[span]).collect()
}

#[test]
fn a_password_like_word_after_a_name_is_found_in_any_syntax() {
    assert_eq!(found("consul kv put config/api/db_password '7BoYwHHvf7xKAl'"), ["7BoYwHHvf7xKAl"]);
    assert_eq!(
        found("Backlog SSID1 Home; Password1 Saffron^8102Cobalt; MqttHost x"),
        ["Saffron^8102Cobalt"]
    );
    // A value five words after its name.
    assert_eq!(
        found("A temporary password is generated for root@localhost: 9dbemJTHn3JDmTxDTI1"),
        ["9dbemJTHn3JDmTxDTI1"]
    );
    // A short form ending a name, and the word in other languages.
    assert_eq!(found("etcdctl put /svc/smtp-pass  x3Jq#92kLm"), ["x3Jq#92kLm"]);
    assert_eq!(found("Backlog WifiPwd Saffron^8102Cobalt"), ["Saffron^8102Cobalt"]);
    assert_eq!(found("Пароль от базы Falcon-river-448x"), ["Falcon-river-448x"]);
    assert_eq!(found("şifre: Qz8!rT2vLp"), ["Qz8!rT2vLp"]);
    assert_eq!(found("redis-cli HSET creds password Qz8!rT2vLp"), ["Qz8!rT2vLp"]);
    // Short words for a password or a login, as whole words.
    assert_eq!(found("[10:42] mike: pw for prod redis Qz8!rT2vLp"), ["Qz8!rT2vLp"]);
    assert_eq!(found("**carol** — 3:12 PM\nadmin login: sunset-U6s6S65"), ["sunset-U6s6S65"]);
    assert_eq!(
        found("RADDR is allowed to login as LOCUSER.  Non-IPv4 (e.g., IPv6) are"),
        Vec::<&str>::new()
    );
    assert_eq!(found("upward Qz8!rT2vLp"), Vec::<&str>::new());
    // Words and a number after a short name are judged as after `password`; not after
    // `login`, which as often gives a user.
    assert_eq!(found("pw for prod redis: Harvest-pebble-4821"), ["Harvest-pebble-4821"]);
    assert_eq!(found("router pass? Winter_lantern_7963"), ["Winter_lantern_7963"]);
    assert_eq!(found("login: release-bot-2024"), Vec::<&str>::new());
    // A name inside another word (`turkey`) leaves a value a value; a name that is a part
    // of the word (`DB_KEY_FILE`) makes it a name.
    assert_eq!(found("pw for the vpn: turkey-Rq8xK2mZ9w"), ["turkey-Rq8xK2mZ9w"]);
    assert_eq!(found("password: DB_KEY_FILE_A8x92"), Vec::<&str>::new());
}

#[test]
fn a_value_on_the_line_after_its_label_is_found() {
    assert_eq!(found("Password:\nSaffron^8102Cobalt"), ["Saffron^8102Cobalt"]);
    assert_eq!(found("<dt>Password</dt>\n<dd>MpHtEvOIxecaqepCQv</dd>"), ["MpHtEvOIxecaqepCQv"]);
    assert_eq!(found("Admin password (generated)\n-----------\nbGokJy^e4SGQ"), ["bGokJy^e4SGQ"]);
    assert_eq!(found("DB_PASSWORD=\\\nCobalt^5630lantern"), ["Cobalt^5630lantern"]);
    assert_eq!(
        found("Ana: what's the router admin password again?\nBen: HFf4xut8QXjcbgepi"),
        ["HFf4xut8QXjcbgepi"]
    );
    assert_eq!(
        found("name=\"passwd\"\r\n\r\nember-thistle-151\r\n--boundary--"),
        ["ember-thistle-151"]
    );
    // Not past a line that holds its own value, nor two lines on, nor after a sentence.
    assert_eq!(found("password: Saffron^8102Cobalt\nQz8!rT2vLpQ"), ["Saffron^8102Cobalt"]);
    assert_eq!(found("Password:\nuser: ops\nQz8!rT2vLpQ"), Vec::<&str>::new());
    assert_eq!(
        found("the password is kept in the vault for everyone\nQz8!rT2vLpQ"),
        Vec::<&str>::new()
    );
}

#[test]
fn a_number_after_a_pin_or_password_name_is_found() {
    assert_eq!(found("SIM PIN: 76121825\nPUK: (on the card)"), ["76121825"]);
    assert_eq!(found("  door_pin: 4501"), ["4501"]);
    assert_eq!(found("SetupPIN 537424 ; printer"), ["537424"]);
    assert_eq!(found("yubico-piv-tool -a verify-pin --pin=8317326"), ["8317326"]);
    assert_eq!(found("participant PIN 482913#"), ["482913"]);
    assert_eq!(found("Passcode: 8812"), ["8812"]);
    assert_eq!(found("{\"pin\": \"2383453\"}"), ["2383453"]);
    assert_eq!(found("mysql password 48213377"), ["48213377"]);
    // Numbers that are no PIN: counts, constants, years, dates, short PINs after a
    // password's name, a digest after a certificate pin.
    for text in [
        "PASS_MAX_DAYS\t99999",
        "#define NID_kx_psk              1043",
        "\tAVS_TKN_PIN_FMT_INDEX_U32\t\t\t= 2201,",
        "#define FDC_82078\t0x60\t/* 44pin 82078 or 64pin 82078SL */",
        "yppasswdd\t100009\typpasswd",
        "#  define NSS_BUFLEN_PASSWD\t1024",
        "#define YPPASSWDPROG 100009",
        "GPIO pin 17 drives the relay",
        "the PIN 2026 campaign",
        "password last changed 20260101",
        "password: 4821",
        "spinning at 7200 rpm",
        "Public-Key-Pins: pin-sha256=\"E9CZ9INDbd+2eRQozYqqbQ2yXLVKB9+xcprMF+44U1g=\"",
        "the token expires in 360000 seconds",
    ] {
        assert_eq!(found(text), Vec::<&str>::new(), "{text}");
    }
}

#[test]
fn words_and_a_number_after_a_password_name_are_found() {
    assert_eq!(found("passwd river-maple-495"), ["river-maple-495"]);
    assert_eq!(found("wifi password: ember.thistle.151"), ["ember.thistle.151"]);
    for text in [
        "#password_encryption = scram-sha-256\t# scram-sha-256 or md5",
        "    submodule honor -c credential.* from command line, 2016-02-29)",
        "INCS:=$(shell $(PKG_CONFIG) --cflags libsecret-1 glib-2.0)",
        "token: release-bot-2024",
        "password: change-me-later",
    ] {
        assert_eq!(found(text), Vec::<&str>::new(), "{text}");
    }
}

#[test]
fn a_word_and_a_number_right_after_a_password_name_is_found() {
    assert_eq!(found("password: cinder9457"), ["cinder9457"]);
    assert_eq!(found("await page.getByLabel('Password').fill('Hickory1987');"), ["Hickory1987"]);
    for text in [
        "token: release2024",
        "secret_type: base64",
        "password hashing uses pbkdf2 with sha256",
        "password_policy: strict, see the docs for windows10",
        "password: passwd2024",
        "pin: abcdef12",
        "password_hash: sha256crypt",
        "SECStatus PK11_CheckUserPassword(PK11SlotInfo *slot, const char *pw);",
    ] {
        assert_eq!(found(text), Vec::<&str>::new(), "{text}");
    }
}

#[test]
fn code_names_paths_and_addresses_after_a_name_stay() {
    for text in [
        "let token = Token::new(Kind::Ident, span);",
        "password_file: /run/secrets/db_password",
        "token: ${{ secrets.GITHUB_TOKEN }}",
        "api_key = os.environ[\"API_KEY\"]",
        "--password-stdin ghcr.io/acme/api:1.2.3",
        "secret: ops@acme.dev",
        "TokenStream2 TokenKind::Ident",
        "the token expires at 10:01:22.118Z",
        "passwordless login via https://sso.acme.dev/start",
        "secret_key_base: <%= ENV[\"SECRET_KEY_BASE\"] %>",
        "SECStatus PK11_InitToken(PK11SlotInfo *slot, PRBool loadCerts);",
        "int p11_kit_uri_match_token_info (const P11KitUri *uri,",
        "  int (*xTokenize)(Fts5Context*,",
        "    stop_token(const _Stop_state_ref& __state) noexcept",
        "<code>crypto.pbkdf2Sync(password, salt, iterations, keylen, digest)</code>",
        "<a href=\"#pbkdf2password-salt\"><code>crypto.pbkdf2Sync(password, salt)</code>",
        // A short form inside a longer word names nothing.
        "it passes Qz8!rT2vLp through; bypassing x3Jq#92kLm",
        "the compass bearing 270deg",
    ] {
        assert_eq!(found(text), Vec::<&str>::new(), "{text}");
    }
}

#[test]
fn a_value_after_a_key_named_in_two_words_is_found() {
    assert_eq!(found("Your new API key\n\n    Gq7#vR2mLx9p\n\nCopy it now."), ["Gq7#vR2mLx9p"]);
    assert_eq!(found("access key: hK3w#q9TzLmR2xQ"), ["hK3w#q9TzLmR2xQ"]);
    assert_eq!(found("License key XJ7Q-9KdW2-Lp4rTz8"), ["XJ7Q-9KdW2-Lp4rTz8"]);
    for text in [
        "the API key is stored in the vault",
        "rapi key Gq7#vR2mLx9p",
        "access key rotation: every 90 days",
    ] {
        assert_eq!(found(text), Vec::<&str>::new(), "{text}");
    }
}
