//! The class "a setting changed in place": an edit changes one value of a setting (a
//! language standard, a port, a base image, a limit), and later edits add other lines to
//! the same file. A resuming agent needs the setting's current value; a Done item that
//! names only the newest lines added to the file has lost it, and a line that still states
//! the old value misleads. Each family is one file format (CMake, nginx, a Dockerfile,
//! go.mod, sshd_config, redis.conf, YAML, TOML, a .env file), with three instances.

use super::super::*;
use super::Instance;
use super::families::{call, filler};

const CLASS: &str = "a setting changed in place";

fn edit(id: &str, path: &str, old: &str, new: &str) -> [AgentMessage; 2] {
    [
        call(id, "Edit", json!({ "file_path": path, "old_string": old, "new_string": new })),
        result(id, "Edit", &format!("The file {path} has been updated."), false),
    ]
}

/// One instance: (request, old line, new line, the setting's key, its new value, three
/// lines later edits add to the file).
type Change =
    (&'static str, &'static str, &'static str, &'static str, &'static str, [&'static str; 3]);

fn family(index: usize, path: &str, changes: [Change; 3]) -> Vec<Instance> {
    let mut out = Vec::new();
    for (n, (request, old, new, key, value, later)) in changes.into_iter().enumerate() {
        let id = format!("v{index}{n}");
        let mut messages = vec![user(request)];
        // The setting's line with the comment above it, as agents edit it.
        messages.extend(edit(
            &format!("{id}a"),
            path,
            &format!("# settings\n{old}"),
            &format!("# settings\n{new}"),
        ));
        messages.push(assistant("Changed it.", &[]));
        messages.push(user(&format!("Good. Now add the rest of the setup to {path}.")));
        for (k, line) in later.iter().enumerate() {
            messages.extend(edit(&format!("{id}b{k}"), path, "# end", &format!("{line}\n# end")));
        }
        messages.push(assistant("Added the rest of the setup.", &[]));
        messages.extend(filler(1 + n, index));
        out.push(
            Instance::new(CLASS, index, messages).expect(&[key], value).never_current(&[old], &[]),
        );
    }
    out
}

pub(super) fn settings_changed_in_place() -> Vec<Instance> {
    let mut out = Vec::new();
    out.extend(family(
        0,
        "CMakeLists.txt",
        [
            (
                "Build with C17 instead of C99.",
                "set(CMAKE_C_STANDARD 99)",
                "set(CMAKE_C_STANDARD 17)",
                "CMAKE_C_STANDARD",
                "17",
                [
                    "add_compile_options(-Wall -Wextra)",
                    "enable_testing()",
                    "add_subdirectory(tests)",
                ],
            ),
            (
                "Move the project to C++20.",
                "set(CMAKE_CXX_STANDARD 14)",
                "set(CMAKE_CXX_STANDARD 20)",
                "CMAKE_CXX_STANDARD",
                "20",
                [
                    "find_package(Threads REQUIRED)",
                    "add_library(core src/core.cpp)",
                    "target_link_libraries(core Threads::Threads)",
                ],
            ),
            (
                "Require CMake 3.24 at least.",
                "cmake_minimum_required(VERSION 3.16)",
                "cmake_minimum_required(VERSION 3.24)",
                "cmake_minimum_required",
                "3.24",
                [
                    "project(vsla C)",
                    "option(BUILD_CUDA \"CUDA backend\" OFF)",
                    "include(GNUInstallDirs)",
                ],
            ),
        ],
    ));
    out.extend(family(
        1,
        "deploy/nginx.conf",
        [
            (
                "Serve on 8080, port 80 is taken.",
                "listen 80;",
                "listen 8080;",
                "listen",
                "8080",
                ["server_name api.local;", "location /static/ { root /srv; }", "gzip on;"],
            ),
            (
                "Raise the upload limit to 50 MB.",
                "client_max_body_size 10m;",
                "client_max_body_size 50m;",
                "client_max_body_size",
                "50m",
                ["proxy_read_timeout 120s;", "proxy_set_header Host $host;", "access_log off;"],
            ),
            (
                "Use 4 worker processes.",
                "worker_processes 1;",
                "worker_processes 4;",
                "worker_processes",
                "4",
                [
                    "worker_rlimit_nofile 8192;",
                    "pid /run/nginx.pid;",
                    "error_log /var/log/nginx/error.log warn;",
                ],
            ),
        ],
    ));
    out.extend(family(
        2,
        "Dockerfile",
        [
            (
                "Build on Node 20.",
                "FROM node:18-alpine",
                "FROM node:20-alpine",
                "FROM",
                "node:20-alpine",
                ["WORKDIR /app", "COPY package*.json ./", "RUN npm ci --omit=dev"],
            ),
            (
                "Use Python 3.12 for the image.",
                "FROM python:3.10-slim",
                "FROM python:3.12-slim",
                "FROM",
                "python:3.12-slim",
                [
                    "ENV PYTHONUNBUFFERED=1",
                    "COPY requirements.txt .",
                    "RUN pip install -r requirements.txt",
                ],
            ),
            (
                "Expose the API on 9000.",
                "EXPOSE 8000",
                "EXPOSE 9000",
                "EXPOSE",
                "9000",
                [
                    "USER app",
                    "HEALTHCHECK CMD curl -f http://localhost:9000/health",
                    "CMD [\"./server\"]",
                ],
            ),
        ],
    ));
    out.extend(family(
        3,
        "go.mod",
        [
            (
                "Bump the Go version to 1.22.",
                "go 1.20",
                "go 1.22",
                "go 1.22",
                "1.22",
                [
                    "require github.com/go-chi/chi/v5 v5.0.12",
                    "require golang.org/x/sync v0.7.0",
                    "toolchain go1.23.1",
                ],
            ),
            (
                "Upgrade chi to v5.1.0.",
                "require github.com/go-chi/chi/v5 v5.0.10",
                "require github.com/go-chi/chi/v5 v5.1.0",
                "chi/v5",
                "v5.1.0",
                [
                    "require github.com/rs/zerolog v1.33.0",
                    "require github.com/stretchr/testify v1.9.0",
                    "replace example.com/old => ../old",
                ],
            ),
            (
                "Pin the toolchain to go1.22.5.",
                "toolchain go1.21.8",
                "toolchain go1.22.5",
                "toolchain",
                "go1.22.5",
                [
                    "require golang.org/x/net v0.26.0",
                    "require golang.org/x/text v0.16.0",
                    "exclude golang.org/x/net v0.20.0",
                ],
            ),
        ],
    ));
    out.extend(family(
        4,
        "/etc/ssh/sshd_config",
        [
            (
                "Move SSH to port 4822.",
                "Port 22",
                "Port 4822",
                "Port",
                "4822",
                ["AllowUsers deploy", "ClientAliveInterval 120", "MaxAuthTries 3"],
            ),
            (
                "Disable root logins over SSH.",
                "PermitRootLogin yes",
                "PermitRootLogin no",
                "PermitRootLogin",
                "no",
                ["PubkeyAuthentication yes", "X11Forwarding no", "UsePAM yes"],
            ),
            (
                "Lower the login grace time to 30 seconds.",
                "LoginGraceTime 120",
                "LoginGraceTime 30",
                "LoginGraceTime",
                "30",
                ["MaxStartups 10:30:60", "Banner /etc/issue.net", "Subsystem sftp internal-sftp"],
            ),
        ],
    ));
    out.extend(family(
        5,
        "redis.conf",
        [
            (
                "Give Redis 512 MB.",
                "maxmemory 256mb",
                "maxmemory 512mb",
                "maxmemory",
                "512mb",
                ["appendonly yes", "save 900 1", "tcp-keepalive 300"],
            ),
            (
                "Evict least recently used keys.",
                "maxmemory-policy noeviction",
                "maxmemory-policy allkeys-lru",
                "maxmemory-policy",
                "allkeys-lru",
                ["lazyfree-lazy-eviction yes", "timeout 0", "databases 4"],
            ),
            (
                "Run Redis on 6380.",
                "port 6379",
                "port 6380",
                "port",
                "6380",
                ["bind 127.0.0.1", "protected-mode yes", "loglevel notice"],
            ),
        ],
    ));
    out.extend(family(
        6,
        "k8s/deployment.yaml",
        [
            (
                "Scale the API to 4 replicas.",
                "replicas: 2",
                "replicas: 4",
                "replicas",
                "4",
                ["revisionHistoryLimit: 5", "minReadySeconds: 10", "progressDeadlineSeconds: 300"],
            ),
            (
                "Give the pod 1Gi of memory.",
                "memory: 512Mi",
                "memory: 1Gi",
                "memory",
                "1Gi",
                ["cpu: 500m", "ephemeral-storage: 2Gi", "nvidia.com/gpu: 0"],
            ),
            (
                "Use the 2.4.1 image.",
                "image: ghcr.io/acme/api:2.3.0",
                "image: ghcr.io/acme/api:2.4.1",
                "image",
                "ghcr.io/acme/api:2.4.1",
                [
                    "imagePullPolicy: IfNotPresent",
                    "terminationGracePeriodSeconds: 30",
                    "serviceAccountName: api",
                ],
            ),
        ],
    ));
    out.extend(family(
        7,
        "Cargo.toml",
        [
            (
                "Move the crate to edition 2021.",
                "edition = \"2018\"",
                "edition = \"2021\"",
                "edition",
                "2021",
                ["rust-version = \"1.74\"", "license = \"MIT\"", "readme = \"README.md\""],
            ),
            (
                "Upgrade tokio to 1.38.",
                "tokio = \"1.28\"",
                "tokio = \"1.38\"",
                "tokio",
                "1.38",
                [
                    "serde = { version = \"1\", features = [\"derive\"] }",
                    "anyhow = \"1\"",
                    "tracing = \"0.1\"",
                ],
            ),
            (
                "Use opt-level 2 for release builds.",
                "opt-level = 3",
                "opt-level = 2",
                "opt-level",
                "2",
                ["lto = \"thin\"", "codegen-units = 4", "debug = false"],
            ),
        ],
    ));
    out.extend(family(
        8,
        ".env",
        [
            (
                "Run 8 workers.",
                "WORKERS=2",
                "WORKERS=8",
                "WORKERS",
                "8",
                ["LOG_LEVEL=info", "CACHE_TTL=300", "QUEUE_NAME=jobs"],
            ),
            (
                "Point the app at the staging API.",
                "API_URL=https://api.dev.acme.io",
                "API_URL=https://api.staging.acme.io",
                "API_URL",
                "https://api.staging.acme.io",
                ["FEATURE_FLAGS=search,export", "SENTRY_ENV=staging", "TZ=UTC"],
            ),
            (
                "Time requests out after 45 seconds.",
                "REQUEST_TIMEOUT=30",
                "REQUEST_TIMEOUT=45",
                "REQUEST_TIMEOUT",
                "45",
                ["RETRY_LIMIT=3", "POOL_SIZE=10", "METRICS_PORT=9102"],
            ),
        ],
    ));
    out
}
