//! A throwaway Postgres cluster for the tests of the Postgres store: `initdb` into a
//! temporary folder, `pg_ctl start` on a free port of 127.0.0.1 (TCP only, its socket in
//! that folder), password authentication (SCRAM) for the superuser `postgres`, and
//! `pg_ctl stop` when the last handle is dropped.
//!
//! The binaries are found on `PATH` (following a link to the folder `initdb` is in), else under `/usr/lib/postgresql/*/bin` (Debian's
//! `postgresql` package; the newest version wins). Postgres refuses to run as root: when the
//! tests run as root (CI does), `initdb`, `pg_ctl` and the server run as the `postgres`
//! system user the package creates (`runuser -u postgres --`), with the folder handed to it.
//!
//! Only the absence of the binaries makes [`Cluster::shared`] return `None` (and say why on
//! stderr); a cluster that is there but cannot start is a test failure.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

/// The superuser's password in every test cluster.
const PASSWORD: &str = "compaction-test-password";

/// A running throwaway cluster.
#[derive(Debug)]
pub struct Cluster {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    as_postgres: bool,
    /// Removes the folder after the server stopped (declared last: dropped last).
    _temp: tempfile::TempDir,
}

static SHARED: Mutex<Weak<Cluster>> = Mutex::new(Weak::new());
static DATABASES: AtomicUsize = AtomicUsize::new(0);

/// The folder holding `initdb` and `pg_ctl`, if Postgres is installed.
pub fn binaries() -> Option<PathBuf> {
    let has_tools = |dir: &Path| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file();
    if let Some(path) = std::env::var_os("PATH")
        && let Some(dir) = std::env::split_paths(&path).find(|dir| has_tools(dir))
    {
        // The folder `initdb` really is in (a link on PATH may point into
        // /usr/lib/postgresql/N/bin), where the client tools are too.
        let real = std::fs::canonicalize(dir.join("initdb")).ok();
        return Some(real.and_then(|real| real.parent().map(Path::to_path_buf)).unwrap_or(dir));
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = entry.path().join("bin");
            has_tools(&bin).then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

fn run(command: &mut Command, what: &str) -> Output {
    let output = command.output().unwrap_or_else(|error| panic!("{what}: cannot run: {error}"));
    if !output.status.success() {
        panic!(
            "{what} failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    output
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .unwrap_or_else(|error| panic!("no free port on 127.0.0.1: {error}"))
}

impl Cluster {
    /// A running cluster shared by the tests of this process that use one at the same
    /// time (it stops when the last of them drops its handle); `None`, with the reason
    /// printed, when no Postgres binaries are installed.
    pub fn shared() -> Option<Arc<Cluster>> {
        let mut shared = SHARED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(cluster) = shared.upgrade() {
            return Some(cluster);
        }
        let cluster = Arc::new(Cluster::start()?);
        *shared = Arc::downgrade(&cluster);
        Some(cluster)
    }

    /// Starts a cluster of its own; `None`, with the reason printed, when no Postgres
    /// binaries are installed.
    pub fn start() -> Option<Cluster> {
        let Some(bin) = binaries() else {
            eprintln!(
                "SKIPPED: no Postgres binaries (initdb and pg_ctl on PATH or under \
                 /usr/lib/postgresql/*/bin); install Debian's `postgresql` to run this test"
            );
            return None;
        };
        let temp = tempfile::Builder::new()
            .prefix("compaction-pg-")
            .tempdir()
            .unwrap_or_else(|error| panic!("cannot make a temporary folder: {error}"));
        let dir = temp.path().to_path_buf();
        let as_postgres = is_root(&dir);
        std::fs::write(dir.join("password"), PASSWORD)
            .unwrap_or_else(|error| panic!("cannot write the password file: {error}"));
        if as_postgres {
            run(
                Command::new("chown").args(["-R", "postgres:postgres"]).arg(&dir),
                "chown the cluster folder to postgres",
            );
        }
        let mut cluster = Cluster { bin, dir, port: 0, as_postgres, _temp: temp };
        let data = cluster.dir.join("data");
        run(
            cluster
                .server_command("initdb")
                .arg("-D")
                .arg(&data)
                .args(["-U", "postgres", "--auth=scram-sha-256", "-E", "UTF8", "--locale=C"])
                .args(["--no-sync", "--no-instructions"])
                .arg(format!("--pwfile={}", cluster.dir.join("password").display())),
            "initdb",
        );
        // A port found free may be taken before the server binds it: try a few.
        let mut last_error = String::new();
        for _ in 0..5 {
            cluster.port = free_port();
            let options = format!(
                "-c listen_addresses=127.0.0.1 -p {} -k {} -c fsync=off \
                 -c synchronous_commit=off -c full_page_writes=off -c max_connections=200",
                cluster.port,
                cluster.dir.display()
            );
            let output = cluster
                .server_command("pg_ctl")
                .arg("-D")
                .arg(&data)
                .arg("-l")
                .arg(cluster.dir.join("server.log"))
                .args(["-w", "-t", "60", "-o", &options, "start"])
                .output()
                .unwrap_or_else(|error| panic!("pg_ctl start: cannot run: {error}"));
            if output.status.success() {
                return Some(cluster);
            }
            let log = std::fs::read_to_string(cluster.dir.join("server.log")).unwrap_or_default();
            last_error = format!("{}{log}", String::from_utf8_lossy(&output.stderr));
        }
        panic!("pg_ctl start failed five times:\n{last_error}");
    }

    /// A command running a server binary, as the `postgres` user when the tests run as
    /// root.
    fn server_command(&self, program: &str) -> Command {
        let program = self.bin.join(program);
        if self.as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(program);
            command
        } else {
            Command::new(program)
        }
    }

    /// A client binary (`createdb`, `psql`) connecting to this cluster as `postgres`.
    fn client_command(&self, program: &str) -> Command {
        let mut command = Command::new(self.bin.join(program));
        command
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", "postgres"])
            .env("PGPASSWORD", PASSWORD)
            .env_remove("PGPASSFILE");
        command
    }

    /// The port the server listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The superuser's password (give it as `PGPASSWORD` to the processes under test).
    pub fn password(&self) -> &'static str {
        PASSWORD
    }

    /// The URL of database `name` (without a password): `postgres://postgres@127.0.0.1:PORT/name`.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// Creates a new, empty database of its own name and returns that name.
    pub fn create_database(&self) -> String {
        let number = DATABASES.fetch_add(1, Ordering::Relaxed);
        let name = format!("test_{}_{number}", std::process::id());
        run(self.client_command("createdb").arg(&name), "createdb");
        name
    }

    /// Runs SQL in database `name` with `psql` and returns its unaligned output.
    pub fn psql(&self, name: &str, sql: &str) -> String {
        let output = run(
            self.client_command("psql").args([
                "-X",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-d",
                name,
                "-c",
                sql,
            ]),
            "psql",
        );
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self
            .server_command("pg_ctl")
            .arg("-D")
            .arg(self.dir.join("data"))
            .args(["-m", "immediate", "-w", "stop"])
            .output();
    }
}

/// Whether this process runs as root: the owner of a folder it just made.
fn is_root(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(dir).map(|metadata| metadata.uid() == 0).unwrap_or(false)
}
