//! Round 23 families of services' configs: message brokers' definitions and clients, API
//! gateways and auth proxies, metrics agents, and log shippers' outputs.

use super::super::families::{Family, pick_line, text};
use super::{any_pw, any_secret, host, prefixed_token, user};
use crate::random::Rng;

/// A token or a password: what a gateway, an agent or a shipper is given.
fn service_secret(rng: &mut Rng) -> String {
    if rng.chance(0.3) { prefixed_token(rng) } else { any_secret(rng) }
}

pub(super) const FAMILIES: &[Family] = &[
    ("message-broker-definitions-and-clients", |rng| {
        let secret = any_secret(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "# rabbitmq/definitions.json (load_definitions)\n{{\"rabbit_version\": \"3.13.1\", \"users\": [{{\"name\": \"{name}\", \"password\": \"{secret}\", \"tags\": [\"management\"]}}], \"vhosts\": [{{\"name\": \"/\"}}]}}"
                ),
                format!(
                    "# conf/client.conf (Apache Pulsar)\nwebServiceUrl=https://{at}:8443/\nbrokerServiceUrl=pulsar+ssl://{at}:6651/\nauthPlugin=org.apache.pulsar.client.impl.auth.AuthenticationToken\nauthParams=token:{secret}"
                ),
                format!(
                    "$ pulsar-admin --admin-url https://{at}:8443 --auth-plugin org.apache.pulsar.client.impl.auth.AuthenticationToken --auth-params \"token:{secret}\" tenants list"
                ),
                format!(
                    "$ nats context add prod --server tls://{at}:4222 --user {name} --password '{secret}' --select\nNATS Configuration Context \"prod\""
                ),
                format!(
                    "# nats-server.conf\naccounts {{\n  ORDERS {{\n    users = [\n      {{ user: {name}, password: \"{secret}\" }}\n    ]\n  }}\n}}"
                ),
                format!(
                    "$ ./bin/artemis create /var/lib/broker1 --user {name} --password {secret} --require-login\nCreating ActiveMQ Artemis instance at: /var/lib/broker1"
                ),
                format!(
                    "<!-- broker.xml (Artemis) -->\n<cluster-user>{name}</cluster-user>\n<cluster-password>{secret}</cluster-password>\n<connectors><connector name=\"netty\">tcp://{at}:61616</connector></connectors>"
                ),
                format!(
                    "$ rabbitmqadmin -H {at} -u {name} -p '{secret}' list queues name messages\n+--------+----------+\n| name   | messages |"
                ),
            ],
        );
        text(secret, line)
    }),
    ("api-gateway-and-auth-proxy-configs", |rng| {
        let secret = service_secret(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "# /etc/kong/kong.conf\ndatabase = postgres\npg_host = {at}\npg_user = {name}\npg_password = {secret}\npg_database = kong"
                ),
                format!(
                    "# kong.yml (deck)\n_format_version: \"3.0\"\nconsumers:\n- username: {name}\n  keyauth_credentials:\n  - key: {secret}"
                ),
                format!(
                    "# apisix/conf/config.yaml\ndeployment:\n  admin:\n    admin_key:\n      - name: admin\n        key: {secret}\n        role: admin"
                ),
                format!(
                    "resources:\n- \"@type\": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret\n  name: upstream-hmac\n  generic_secret:\n    secret:\n      inline_string: \"{secret}\""
                ),
                format!(
                    "$ oauth2-proxy --provider=oidc --client-id={name} --client-secret={secret} --upstream=http://{at}:8080 --http-address=0.0.0.0:4180"
                ),
                format!(
                    "# dex config.yaml\nstaticClients:\n- id: grafana\n  redirectURIs: ['https://{at}/login/generic_oauth']\n  name: 'Grafana'\n  secret: {secret}"
                ),
                format!(
                    "# authentik .env\nPG_PASS={secret}\nAUTHENTIK_ERROR_REPORTING__ENABLED=false\nCOMPOSE_PORT_HTTPS=9443"
                ),
                format!(
                    "$ curl -s http://{at}:9180/apisix/admin/routes/1 -H 'X-API-KEY: {secret}' -X PUT -d '{{\"uri\": \"/orders/*\"}}'"
                ),
            ],
        );
        text(secret, line)
    }),
    ("metrics-agent-configs", |rng| {
        let secret = service_secret(rng);
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "# /etc/telegraf/telegraf.conf\n[[outputs.influxdb_v2]]\n  urls = [\"https://{at}:8086\"]\n  token = \"{secret}\"\n  organization = \"acme\"\n  bucket = \"hosts\""
                ),
                format!(
                    "scrape_configs:\n  - job_name: federate\n    scheme: https\n    bearer_token: {secret}\n    static_configs:\n      - targets: ['{at}:9090']"
                ),
                format!(
                    "remote_write:\n  - url: https://{at}/api/prom/push\n    basic_auth:\n      username: \"{name}\"\n      password: \"{secret}\""
                ),
                format!(
                    "// config.alloy\nprometheus.remote_write \"cloud\" {{\n  endpoint {{\n    url = \"https://{at}/api/prom/push\"\n    basic_auth {{\n      username = \"{name}\"\n      password = \"{secret}\"\n    }}\n  }}\n}}"
                ),
                format!(
                    "# /etc/telegraf/telegraf.d/mysql.conf\n[[inputs.mysql]]\n  servers = [\"{name}:{secret}@tcp({at}:3306)/?tls=false\"]"
                ),
                format!(
                    "$ telegraf --config https://{at}/api/v2/telegrafs/0a1b2c3d4e5f6071 --once\n2026-12-01T09:00:00Z I! Loading config: https://{at}/api/v2/telegrafs/0a1b2c3d4e5f6071\n# with INFLUX_TOKEN={secret} in the unit's Environment="
                ),
                format!(
                    "# snmp_exporter generator.yml\nauths:\n  core_v3:\n    version: 3\n    username: {name}\n    security_level: authPriv\n    password: {secret}\n    auth_protocol: SHA"
                ),
            ],
        );
        text(secret, line)
    }),
    ("log-shipper-outputs", |rng| {
        let secret = if rng.chance(0.5) { service_secret(rng) } else { any_pw(rng) };
        let (name, at) = (user(rng), host(rng));
        let line = pick_line(
            rng,
            vec![
                format!(
                    "# vector.toml\n[sinks.es]\ntype = \"elasticsearch\"\ninputs = [\"app_logs\"]\nendpoints = [\"https://{at}:9200\"]\nauth.strategy = \"basic\"\nauth.user = \"{name}\"\nauth.password = \"{secret}\""
                ),
                format!(
                    "# /etc/rsyslog.d/60-es.conf\naction(type=\"omelasticsearch\" server=\"{at}\" serverport=\"9200\" uid=\"{name}\" pwd=\"{secret}\" searchIndex=\"syslog\")"
                ),
                format!(
                    "# outputs.conf (Splunk HEC)\n[httpout]\nhttpEventCollectorToken = {secret}\nuri = https://{at}:8088"
                ),
                format!(
                    "# filebeat.yml\noutput.elasticsearch:\n  hosts: [\"https://{at}:9200\"]\n  username: \"{name}\"\n  password: \"{secret}\"\n  ssl.verification_mode: full"
                ),
                format!(
                    "# /etc/logstash/conf.d/30-out.conf\noutput {{\n  opensearch {{\n    hosts => [\"https://{at}:9200\"]\n    user => \"{name}\"\n    password => \"{secret}\"\n  }}\n}}"
                ),
                format!(
                    "# /etc/promtail/config.yml\nclients:\n  - url: https://{name}:{secret}@{at}/loki/api/v1/push\n    tenant_id: ops"
                ),
                format!(
                    "# vector.yaml\nsinks:\n  loki:\n    type: loki\n    endpoint: https://{at}\n    auth:\n      strategy: basic\n      user: \"{name}\"\n      password: {secret}"
                ),
            ],
        );
        text(secret, line)
    }),
];
