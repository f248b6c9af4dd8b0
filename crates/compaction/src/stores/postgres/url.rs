//! `postgres://USER@HOST:PORT/DB` URLs, and the password found for one in the environment
//! (`PGPASSWORD`, then the password file, as libpq reads them).
//!
//! Invariants:
//! - A URL never holds a password: one written into it is refused, so nothing that prints a
//!   URL (messages, `describe()`, `--json` output) can show one.
//! - The password file is read only when it is a regular file of at most
//!   [`MAX_PASSFILE_BYTES`] that neither group nor others may read.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The port when a URL names none.
pub const DEFAULT_PORT: u16 = 5432;

/// The password file is refused above this size.
pub const MAX_PASSFILE_BYTES: u64 = 1 << 20;

/// A Postgres database, as a `postgres://` or `postgresql://` URL names it.
#[derive(Clone, PartialEq, Eq)]
pub struct PostgresUrl {
    /// `postgres` or `postgresql`, as written.
    pub scheme: String,
    /// The user, when the URL names one (otherwise `PGUSER`, then `USER`).
    pub user: Option<String>,
    /// The host name or address.
    pub host: String,
    /// The port, when the URL names one.
    pub port: Option<u16>,
    /// The database, when the URL names one (otherwise the user's name).
    pub database: Option<String>,
}

impl fmt::Debug for PostgresUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PostgresUrl({self})")
    }
}

impl fmt::Display for PostgresUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://", self.scheme)?;
        if let Some(user) = &self.user {
            write!(f, "{user}@")?;
        }
        if self.host.contains(':') {
            write!(f, "[{}]", self.host)?;
        } else {
            write!(f, "{}", self.host)?;
        }
        if let Some(port) = self.port {
            write!(f, ":{port}")?;
        }
        if let Some(database) = &self.database {
            write!(f, "/{database}")?;
        }
        Ok(())
    }
}

/// Decodes `%XX` escapes; `None` when one is cut short or decodes to invalid UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' {
            let hex = text.get(index + 1..index + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            index += 3;
        } else {
            out.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8(out).ok()
}

impl PostgresUrl {
    /// Reads `SCHEME://[USER@]HOST[:PORT][/DB]` (without the `#SESSION` part). The error
    /// says what is wrong; it never repeats a password.
    pub fn parse(text: &str) -> Result<PostgresUrl, String> {
        let (scheme, rest) = text
            .split_once("://")
            .filter(|(scheme, _)| *scheme == "postgres" || *scheme == "postgresql")
            .ok_or_else(|| "a Postgres URL starts with `postgres://`".to_owned())?;
        if rest.contains('?') {
            return Err("connection options after `?` are not supported; the URL names user, \
                        host, port and database only"
                .to_owned());
        }
        let (authority, database) = match rest.split_once('/') {
            Some((authority, database)) => (authority, Some(database)),
            None => (rest, None),
        };
        let (user, host_port) = match authority.rsplit_once('@') {
            Some((user, host_port)) => (Some(user), host_port),
            None => (None, authority),
        };
        if user.is_some_and(|user| user.contains(':')) {
            return Err("a password in the URL is refused (it would show in process lists and \
                        shell history); set PGPASSWORD or put it in ~/.pgpass"
                .to_owned());
        }
        let (host, port) = if let Some(bracketed) = host_port.strip_prefix('[') {
            let (host, after) = bracketed
                .split_once(']')
                .ok_or_else(|| "an IPv6 host needs its closing `]`".to_owned())?;
            (host, after.strip_prefix(':'))
        } else {
            match host_port.split_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (host_port, None),
            }
        };
        if host.is_empty() {
            return Err("no host (write `postgres://USER@HOST:PORT/DB`)".to_owned());
        }
        let port = match port {
            None => None,
            Some(port) => Some(
                port.parse::<u16>()
                    .ok()
                    .filter(|&port| port != 0)
                    .ok_or_else(|| format!("`{port}` is not a port number"))?,
            ),
        };
        let decode = |part: &str, what: &str| {
            percent_decode(part).ok_or_else(|| format!("the {what} has a broken `%` escape"))
        };
        let user = user.filter(|user| !user.is_empty()).map(|user| decode(user, "user"));
        let database =
            database.filter(|db| !db.is_empty()).map(|database| decode(database, "database"));
        Ok(PostgresUrl {
            scheme: scheme.to_owned(),
            user: user.transpose()?,
            host: decode(host, "host")?,
            port,
            database: database.transpose()?,
        })
    }

    /// The user connected as: the URL's, else `PGUSER`, else `USER`, else `postgres`.
    pub fn user_or_default(&self) -> String {
        self.user
            .clone()
            .or_else(|| std::env::var("PGUSER").ok().filter(|user| !user.is_empty()))
            .or_else(|| std::env::var("USER").ok().filter(|user| !user.is_empty()))
            .unwrap_or_else(|| "postgres".to_owned())
    }

    /// The port connected to.
    pub fn port_or_default(&self) -> u16 {
        self.port.unwrap_or(DEFAULT_PORT)
    }

    /// The database connected to: the URL's, else the user's name.
    pub fn database_or(&self, user: &str) -> String {
        self.database.clone().unwrap_or_else(|| user.to_owned())
    }
}

/// The password for a connection; its `Debug` shows whether there is one, never the text.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Password(Option<String>);

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() { "Password(set)" } else { "Password(none)" })
    }
}

impl Password {
    /// No password (the server trusts the connection, or asks and the connection fails).
    pub fn none() -> Password {
        Password(None)
    }

    /// A password given by the program (tests, embedding applications).
    pub fn given(password: &str) -> Password {
        Password(Some(password.to_owned()))
    }

    /// The password, if any.
    pub fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }

    /// The password as libpq finds it: `PGPASSWORD` when set and not empty, else the first
    /// matching line of the password file (`PGPASSFILE`, else `~/.pgpass`), else none. A
    /// password file that is not a regular file, is larger than [`MAX_PASSFILE_BYTES`] or
    /// that group or others may read is refused with an error naming it.
    pub fn from_environment(url: &PostgresUrl) -> Result<Password, String> {
        if let Some(password) = std::env::var("PGPASSWORD").ok().filter(|p| !p.is_empty()) {
            return Ok(Password(Some(password)));
        }
        let file = match std::env::var_os("PGPASSFILE").filter(|path| !path.is_empty()) {
            Some(path) => PathBuf::from(path),
            None => match std::env::var_os("HOME").filter(|home| !home.is_empty()) {
                Some(home) => Path::new(&home).join(".pgpass"),
                None => return Ok(Password(None)),
            },
        };
        let user = url.user_or_default();
        let database = url.database_or(&user);
        let wanted = [url.host.as_str(), &url.port_or_default().to_string(), &database, &user];
        Ok(Password(passfile_lookup(&file, wanted)?))
    }
}

/// The password of the first line of `file` whose host, port, database and user fields
/// match `wanted` (`*` matches anything); `None` when the file does not exist or no line
/// matches.
pub fn passfile_lookup(file: &Path, wanted: [&str; 4]) -> Result<Option<String>, String> {
    use std::os::unix::fs::PermissionsExt;
    let name = file.display();
    let metadata = match std::fs::metadata(file) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(format!("password file {name}: {error}")),
    };
    if !metadata.is_file() {
        return Err(format!("password file {name} is not a regular file"));
    }
    if metadata.permissions().mode() & 0o077 != 0 {
        return Err(format!(
            "password file {name} may be read by group or others; `chmod 0600 {name}` it"
        ));
    }
    if metadata.len() > MAX_PASSFILE_BYTES {
        return Err(format!(
            "password file {name} is larger than {MAX_PASSFILE_BYTES} bytes; refused"
        ));
    }
    let mut text = String::new();
    std::fs::File::open(file)
        .and_then(|opened| opened.take(MAX_PASSFILE_BYTES + 1).read_to_string(&mut text))
        .map_err(|error| format!("password file {name}: {error}"))?;
    for line in text.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields = passfile_fields(line);
        let [host, port, database, user, password] = fields.as_slice() else { continue };
        let matches = [host, port, database, user]
            .iter()
            .zip(wanted)
            .all(|(field, wanted)| field.as_str() == "*" || field.as_str() == wanted);
        if matches {
            return Ok(Some(password.clone()));
        }
    }
    Ok(None)
}

/// A password file line's fields: split on `:`, with `\:` and `\\` standing for themselves;
/// the fifth field (the password) is the rest of the line.
fn passfile_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        let last = fields.len() - 1;
        match c {
            '\\' => {
                if let Some(next) = chars.next() {
                    fields[last].push(next);
                }
            }
            ':' if fields.len() < 5 => fields.push(String::new()),
            _ => fields[last].push(c),
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_parts_of_a_url() {
        let url = PostgresUrl::parse("postgres://ann@db.example:6543/fleet").unwrap();
        assert_eq!(url.user.as_deref(), Some("ann"));
        assert_eq!(url.host, "db.example");
        assert_eq!(url.port, Some(6543));
        assert_eq!(url.database.as_deref(), Some("fleet"));
        assert_eq!(url.to_string(), "postgres://ann@db.example:6543/fleet");
        let url = PostgresUrl::parse("postgresql://[::1]/d%20b").unwrap();
        assert_eq!((url.host.as_str(), url.port), ("::1", None));
        assert_eq!(url.database.as_deref(), Some("d b"));
        assert_eq!(url.to_string(), "postgresql://[::1]/d b");
        assert_eq!(PostgresUrl::parse("postgres://h").unwrap().to_string(), "postgres://h");
    }

    #[test]
    fn refuses_a_password_without_repeating_it() {
        let error = PostgresUrl::parse("postgres://ann:hunter2@h:5432/db").unwrap_err();
        assert!(error.contains("PGPASSWORD"), "{error}");
        assert!(!error.contains("hunter2"), "{error}");
    }

    #[test]
    fn refuses_what_it_cannot_use() {
        for (text, expected) in [
            ("postgres://u@:5432/db", "no host"),
            ("postgres://u@h:port/db", "not a port"),
            ("postgres://u@h:0/db", "not a port"),
            ("postgres://u@h/db?sslmode=require", "not supported"),
            ("postgres://u%zz@h/db", "escape"),
            ("postgres://u@[::1/db", "`]`"),
        ] {
            let error = PostgresUrl::parse(text).unwrap_err();
            assert!(error.contains(expected), "{text}: {error}");
        }
    }

    #[test]
    fn splits_password_file_fields_with_escapes() {
        assert_eq!(passfile_fields(r"h:5432:db:u:p\:w\\d:x"), ["h", "5432", "db", "u", r"p:w\d:x"]);
        assert_eq!(passfile_fields("*:*:*:*:"), ["*", "*", "*", "*", ""]);
    }

    #[test]
    fn finds_the_first_matching_line_of_a_private_regular_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pgpass");
        std::fs::write(
            &file,
            "# comment\nother:5432:db:u:no\n127.0.0.1:5432:db:u:first\n*:*:*:*:second\n",
        )
        .unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        let lookup = |wanted| passfile_lookup(&file, wanted).unwrap();
        assert_eq!(lookup(["127.0.0.1", "5432", "db", "u"]).as_deref(), Some("first"));
        assert_eq!(lookup(["127.0.0.1", "5433", "db", "u"]).as_deref(), Some("second"));
        assert_eq!(passfile_lookup(&dir.path().join("none"), ["h", "1", "d", "u"]), Ok(None));

        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let error = passfile_lookup(&file, ["h", "1", "d", "u"]).unwrap_err();
        assert!(error.contains("chmod 0600"), "{error}");
        let error = passfile_lookup(dir.path(), ["h", "1", "d", "u"]).unwrap_err();
        assert!(error.contains("not a regular file"), "{error}");
    }

    #[test]
    fn the_password_never_shows_in_debug() {
        assert_eq!(format!("{:?}", Password::given("hunter2")), "Password(set)");
    }
}
