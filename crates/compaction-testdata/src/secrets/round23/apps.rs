//! Round 23 families of applications' configs: desktop apps' signing secrets, home
//! automation and maker tools, game and media servers, data and ML tools, and chat-ops bot
//! commands.

use super::super::families::{Family, pick_line, text};
use super::{any_pw, any_secret, chosen_pw, host, prefixed_token, user};

pub(super) const FAMILIES: &[Family] = &[
    ("desktop-app-signing-secrets", |rng| {
        let secret = chosen_pw(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "# .github/release.env (electron-builder)\nCSC_LINK=./build/certs/acme-dev-id.p12\nCSC_KEY_PASSWORD={secret}\nGH_TOKEN_FROM_SECRETS=true"
                ),
                format!(
                    "$ WIN_CSC_LINK=certs/acme-ev.pfx WIN_CSC_KEY_PASSWORD='{secret}' npx electron-builder --win --publish never\n  • electron-builder  version=24.13.3 os=6.8.0"
                ),
                format!(
                    "$ osslsigncode sign -pkcs12 acme.pfx -pass '{secret}' -n \"Acme Sync\" -t http://timestamp.digicert.com -in setup.exe -out setup-signed.exe\nSucceeded"
                ),
                format!(
                    "# tauri release job\nTAURI_SIGNING_PRIVATE_KEY_PATH=~/.tauri/acme.key\nTAURI_SIGNING_PRIVATE_KEY_PASSWORD=\"{secret}\"\ncargo tauri build --bundles dmg"
                ),
                format!(
                    "$ xcrun altool --upload-app -f AcmeSync.pkg -t macos -u {name}@example.org -p '{secret}'\n2026-12-01 10:02:11.093 *** Error: Unable to upload archive."
                ),
                format!(
                    "{{\n  \"build\": {{\n    \"appId\": \"org.example.sync\",\n    \"win\": {{\n      \"certificateFile\": \"certs/acme.pfx\",\n      \"certificatePassword\": \"{secret}\"\n    }}\n  }}\n}}"
                ),
                format!(
                    "$ npx electron-builder --mac -c.mac.notarize=false -c.mac.identity=\"Acme Ltd\"\n  • signing  file=dist/mac/Acme.app identityName=Acme Ltd keychain=/tmp/{at}.keychain\n  • keychain password (CSC_KEYCHAIN_PASSWORD): {secret}"
                ),
            ],
        );
        text(secret, line)
    }),
    ("home-automation-and-maker-configs", |rng| {
        let secret = any_secret(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "# zigbee2mqtt/data/configuration.yaml\nhomeassistant: true\nmqtt:\n  base_topic: zigbee2mqtt\n  server: mqtt://{at}:1883\n  user: {name}\n  password: {secret}\nserial:\n  port: /dev/ttyUSB0"
                ),
                format!(
                    "# frigate/config.yml\nmqtt:\n  host: {at}\n  user: {name}\n  password: \"{secret}\"\ncameras:\n  porch:\n    ffmpeg:\n      inputs:\n        - path: rtsp://{name}:{secret}@192.168.1.40:554/stream1"
                ),
                format!(
                    "// ~/.node-red/settings.js\nmodule.exports = {{\n    flowFile: 'flows.json',\n    credentialSecret: \"{secret}\",\n    uiPort: process.env.PORT || 1880,\n}}"
                ),
                format!(
                    "# ~/.octoprint/config.yaml\napi:\n  key: {secret}\nserver:\n  firstRun: false\n  onlineCheck:\n    enabled: true"
                ),
                format!(
                    "# moonraker.conf\n[mqtt]\naddress: {at}\nport: 1883\nusername: {name}\npassword: {secret}\nenable_moonraker_api: True"
                ),
                format!(
                    "$ curl -s -H \"X-Api-Key: {secret}\" http://octopi.local/api/job | jq .state\n\"Printing\""
                ),
                format!(
                    "# esp32 sketch secrets.h\n#define MQTT_BROKER \"{at}\"\n#define MQTT_USER \"{name}\"\n#define MQTT_PASSWORD \"{secret}\""
                ),
            ],
        );
        text(secret, line)
    }),
    ("game-and-media-server-configs", |rng| {
        let secret = any_pw(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "<!-- /etc/icecast2/icecast.xml -->\n<authentication>\n    <source-password>{secret}</source-password>\n    <relay-password>hackme</relay-password>\n    <admin-user>admin</admin-user>\n</authentication>"
                ),
                format!(
                    "# /etc/mumble-server.ini\ndatabase=/var/lib/mumble-server/mumble-server.sqlite\nserverpassword={secret}\nport=64738\nwelcometext=\"Welcome to {at}\""
                ),
                format!(
                    "$ ./valheim_server.x86_64 -name \"Acme Vikings\" -port 2456 -world \"Midgard\" -password \"{secret}\" -public 0\nUsing BepInEx: false"
                ),
                format!(
                    "# navidrome.toml\nMusicFolder = \"/srv/music\"\nLastFM.ApiKey = \"b25b959554ed76058ac220b7b2e0a026\"\nSpotify.ID = \"{name}\"\nSpotify.Secret = \"{secret}\""
                ),
                format!(
                    "$ curl -s \"http://{at}:8096/Users/AuthenticateByName\" -H 'Content-Type: application/json' -H 'X-Emby-Authorization: MediaBrowser Client=\"cli\", Device=\"sh\", DeviceId=\"1\", Version=\"1\"' -d '{{\"Username\":\"{name}\",\"Pw\":\"{secret}\"}}'"
                ),
                format!(
                    "# /etc/default/murmurd\nMURMUR_SUPW={secret}\n$ murmurd -ini /etc/mumble-server.ini -supw \"$MURMUR_SUPW\""
                ),
                format!(
                    "# start_server.sh (Valheim)\nexport SteamAppId=892970\n./valheim_server.x86_64 -nographics -batchmode -name \"{name}\" -world \"Dedicated\" -password {secret}"
                ),
            ],
        );
        text(secret, line)
    }),
    ("data-and-ml-tool-credentials", |rng| {
        let secret = any_secret(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "export MLFLOW_TRACKING_URI=https://{at}\nexport MLFLOW_TRACKING_USERNAME={name}\nexport MLFLOW_TRACKING_PASSWORD={secret}\npython train.py --epochs 20"
                ),
                format!(
                    "$ dvc remote modify --local storage password '{secret}'\n$ cat .dvc/config.local\n['remote \"storage\"']\n    password = {secret}"
                ),
                format!(
                    "$ airflow connections add warehouse --conn-type postgres --conn-host {at} --conn-login {name} --conn-password '{secret}' --conn-port 5432\nSuccessfully added `conn_id`=warehouse"
                ),
                format!(
                    "$ jupyter lab --no-browser --ip=0.0.0.0 --IdentityProvider.token={secret}\n[I 2026-12-01 09:14:02.311 ServerApp] Jupyter Server 2.14.1 is running at:"
                ),
                format!(
                    "# ~/.config/label-studio/.env\nLABEL_STUDIO_USERNAME={name}@example.org\nLABEL_STUDIO_PASSWORD={secret}\nLABEL_STUDIO_HOST=https://{at}"
                ),
                format!(
                    "import mlflow, os\nos.environ[\"MLFLOW_TRACKING_PASSWORD\"] = \"{secret}\"\nmlflow.set_tracking_uri(\"https://{at}\")"
                ),
                format!(
                    "# .dvc/config.local\n['remote \"s3cache\"']\n    access_key_id = AKIA2Q4HZ7L5EXAMPLE\n    secret_access_key = {secret}"
                ),
            ],
        );
        text(secret, line)
    }),
    ("chat-ops-bot-commands", |rng| {
        let secret = if rng.chance(0.4) { prefixed_token(rng) } else { any_secret(rng) };
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "[10:42] <{name}> !vault write secret/orders/db password={secret}\n[10:42] <errbot> Success! Data written to: secret/orders/db"
                ),
                format!(
                    "@hubot deploy orders-api to prod with DB_PASS {secret}\nHubot: Deploying orders-api/main to prod... done."
                ),
                format!(
                    "{name} 09:12\n/lita rotate-key {at} new={secret}\nLita APP 09:12\nKey rotated for {at}."
                ),
                format!(
                    "#ops-alerts | {name}: .setsecret STRIPE_WEBHOOK {secret}\n#ops-alerts | opsbot: stored STRIPE_WEBHOOK for env=prod (v14)"
                ),
                format!(
                    "{{\"type\": \"message\", \"channel\": \"C07OPS\", \"user\": \"U02{name}\", \"text\": \"<@U0BOT> creds set grafana-admin {secret}\", \"ts\": \"1733043122.000200\"}}"
                ),
                format!(
                    "errbot> !secret set smtp_relay {secret}\nerrbot< Secret smtp_relay stored (encrypted at rest)."
                ),
                format!(
                    "<{name}> opsbot: ssh-login {at} {name} {secret}\n<opsbot> {name}: session opened on {at} (expires in 15m)"
                ),
            ],
        );
        text(secret, line)
    }),
];
