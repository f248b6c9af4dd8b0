//! Naming a session: a path, `sqlite:PATH#SESSION_ID` or `postgres://USER@HOST:PORT/DB#SESSION_ID`.

use std::fmt;
use std::path::{Path, PathBuf};

use super::postgres::PostgresUrl;

/// Where a session (or a store of sessions) lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Locator {
    /// A pi JSONL file (a path that names no other store; write `./sqlite:x` for a file
    /// whose name starts with `sqlite:`).
    File(PathBuf),
    /// A SQLite database holding many sessions; `session` is the part after the last `#`.
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// The session's id, when one is named.
        session: Option<String>,
    },
    /// A Postgres database holding many sessions; `session` is the part after the first `#`.
    /// The URL holds no password (credentials come from `PGPASSWORD` or `~/.pgpass`).
    Postgres {
        /// The database.
        url: PostgresUrl,
        /// The session's id, when one is named.
        session: Option<String>,
    },
}

/// A locator that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{locator}`: {reason}")]
pub struct LocatorError {
    /// The locator as given.
    pub locator: String,
    /// What is wrong with it.
    pub reason: String,
}

impl Locator {
    /// Reads a locator: `sqlite:PATH[#ID]`, `postgres://USER@HOST:PORT/DB[#ID]` (or
    /// `postgresql://`; a password in it is refused, and the error does not repeat it);
    /// anything else is a file path.
    pub fn parse(text: &str) -> Result<Locator, LocatorError> {
        let error = |reason: &str| LocatorError { locator: text.to_owned(), reason: reason.into() };
        if let Some(rest) = text.strip_prefix("sqlite:") {
            let (path, session) = match rest.rsplit_once('#') {
                Some((path, "")) => (path, None),
                Some((path, id)) => (path, Some(id.to_owned())),
                None => (rest, None),
            };
            let path = path.strip_prefix("//").unwrap_or(path);
            if path.is_empty() {
                return Err(error("no database path after `sqlite:`"));
            }
            return Ok(Locator::Sqlite { path: PathBuf::from(path), session });
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            let (url, session) = match text.split_once('#') {
                Some((url, "")) => (url, None),
                Some((url, id)) => (url, Some(id.to_owned())),
                None => (text, None),
            };
            return match PostgresUrl::parse(url) {
                Ok(url) => Ok(Locator::Postgres { url, session }),
                Err(reason) => Err(LocatorError { locator: without_password(text), reason }),
            };
        }
        Ok(Locator::File(PathBuf::from(text)))
    }

    /// Reads a path argument: a locator when it is valid UTF-8, else a file.
    pub fn from_path(path: &Path) -> Result<Locator, LocatorError> {
        match path.to_str() {
            Some(text) => Locator::parse(text),
            None => Ok(Locator::File(path.to_path_buf())),
        }
    }

    /// The session this locator names (a file is its one session, named by its header).
    pub fn session(&self) -> Option<&str> {
        match self {
            Locator::File(_) => None,
            Locator::Sqlite { session, .. } | Locator::Postgres { session, .. } => {
                session.as_deref()
            }
        }
    }

    /// The same store naming `session`.
    pub fn with_session(&self, id: &str) -> Locator {
        match self {
            Locator::File(path) => Locator::File(path.clone()),
            Locator::Sqlite { path, .. } => {
                Locator::Sqlite { path: path.clone(), session: Some(id.to_owned()) }
            }
            Locator::Postgres { url, .. } => {
                Locator::Postgres { url: url.clone(), session: Some(id.to_owned()) }
            }
        }
    }

    /// Whether this names a pi file.
    pub fn is_file(&self) -> bool {
        matches!(self, Locator::File(_))
    }
}

impl fmt::Display for Locator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Locator::File(path) => write!(f, "{}", path.display()),
            Locator::Sqlite { path, session: None } => write!(f, "sqlite:{}", path.display()),
            Locator::Sqlite { path, session: Some(id) } => {
                write!(f, "sqlite:{}#{id}", path.display())
            }
            Locator::Postgres { url, session: None } => write!(f, "{url}"),
            Locator::Postgres { url, session: Some(id) } => write!(f, "{url}#{id}"),
        }
    }
}

/// A `postgres://` locator with the password part of its user information left out.
fn without_password(text: &str) -> String {
    let Some((scheme, rest)) = text.split_once("://") else { return text.to_owned() };
    let authority_end = rest.find(['/', '#', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((user, host)) => {
            let user = user.split_once(':').map_or(user, |(user, _)| user);
            format!("{scheme}://{user}@{host}{tail}")
        }
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_each_kind_of_locator() {
        assert_eq!(Locator::parse("a/s.jsonl").unwrap(), Locator::File("a/s.jsonl".into()));
        assert_eq!(
            Locator::parse("sqlite:/tmp/db.sqlite#abc").unwrap(),
            Locator::Sqlite { path: "/tmp/db.sqlite".into(), session: Some("abc".into()) }
        );
        assert_eq!(
            Locator::parse("sqlite:db#").unwrap(),
            Locator::Sqlite { path: "db".into(), session: None }
        );
        assert_eq!(
            Locator::parse("sqlite:///abs/db").unwrap(),
            Locator::Sqlite { path: "/abs/db".into(), session: None }
        );
        assert_eq!(Locator::parse("./sqlite:x").unwrap(), Locator::File("./sqlite:x".into()));
        assert!(Locator::parse("sqlite:").is_err());
        assert!(Locator::parse("sqlite:#id").is_err());
        let postgres = Locator::parse("postgres://u@h:5432/db#id").unwrap();
        assert_eq!(postgres.session(), Some("id"));
        assert!(matches!(&postgres, Locator::Postgres { url, .. } if url.host == "h"));
        assert!(matches!(
            Locator::parse("postgresql://u@h/db").unwrap(),
            Locator::Postgres { session: None, .. }
        ));
        let secret = Locator::parse("postgres://u:hunter2@h:5432/db#id").unwrap_err();
        assert!(!secret.to_string().contains("hunter2"), "{secret}");
        assert!(secret.to_string().contains("`postgres://u@h:5432/db#id`"), "{secret}");
        assert!(secret.reason.contains("PGPASSWORD"), "{secret}");
    }

    #[test]
    fn displays_as_parsed() {
        for text in [
            "sqlite:/tmp/db#id",
            "sqlite:db",
            "s.jsonl",
            "postgres://u@127.0.0.1:5432/db#id",
            "postgresql://h/db",
        ] {
            assert_eq!(Locator::parse(text).unwrap().to_string(), text);
        }
    }
}
