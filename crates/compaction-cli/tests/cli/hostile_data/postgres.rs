//! A Postgres store is hostile input too: rows and schema objects of someone else's making
//! in the `compaction` schema of a real throwaway cluster (see
//! `compaction_testdata::postgres`). Code that would run when the tool writes (a trigger, a
//! rule, a function), a view in place of a table, lying sizes, path columns that loop, NULL
//! where bytes are expected, an empty version table.
//!
//! Held: code and views are refused naming the database, and its rows are unchanged;
//! odd rows are read, or refused with an error naming the session (never a crash, a hang or
//! a statement cancelled by the server's timeout, which each database here sets to 15 s so
//! that a loop in a recursive query ends).

use compaction_testdata::postgres::Cluster;

use super::{Tally, instance_root, run_in};

/// One hostile shape: its name, whether every command must refuse it, its SQL.
const SHAPES: [(&str, bool, &str); 14] = [
    (
        "a trigger on lines",
        true,
        "CREATE TABLE public.pwned (what text); \
         CREATE FUNCTION public.spy() RETURNS trigger LANGUAGE plpgsql AS \
         $$BEGIN INSERT INTO public.pwned VALUES ('x'); RETURN NEW; END$$; \
         CREATE TRIGGER spy AFTER INSERT ON compaction.lines FOR EACH ROW EXECUTE FUNCTION public.spy();",
    ),
    (
        "a trigger on sessions",
        true,
        "CREATE FUNCTION public.keep() RETURNS trigger LANGUAGE plpgsql AS \
         $$BEGIN RETURN NULL; END$$; \
         CREATE TRIGGER keep BEFORE UPDATE ON compaction.sessions FOR EACH ROW EXECUTE FUNCTION public.keep();",
    ),
    (
        "a rule on lines",
        true,
        "CREATE TABLE public.pwned (what text); \
         CREATE RULE spy AS ON INSERT TO compaction.lines DO ALSO INSERT INTO public.pwned VALUES ('x');",
    ),
    (
        "`sessions` is a view over another table",
        true,
        "ALTER TABLE compaction.sessions RENAME TO real_sessions; \
         CREATE VIEW compaction.sessions AS SELECT * FROM compaction.real_sessions;",
    ),
    (
        "a function in the tool's schema",
        true,
        "CREATE FUNCTION compaction.now() RETURNS timestamptz LANGUAGE sql AS $$SELECT pg_catalog.now()$$;",
    ),
    ("an empty version table", true, "DELETE FROM compaction.schema_version;"),
    (
        "a session's byte count of i64::MAX",
        false,
        "UPDATE compaction.sessions SET bytes = 9223372036854775807;",
    ),
    (
        "parent columns pointing at their own line",
        false,
        "UPDATE compaction.lines SET parent_seq = seq WHERE seq > 1;",
    ),
    (
        "marker columns pointing at their own line",
        false,
        "UPDATE compaction.lines SET marker_seq = seq WHERE seq > 1;",
    ),
    (
        "assistant columns pointing at their own line",
        false,
        "UPDATE compaction.lines SET assistant_seq = seq WHERE seq > 1;",
    ),
    (
        "a line's bytes NULL",
        false,
        "ALTER TABLE compaction.lines ALTER COLUMN bytes DROP NOT NULL; \
         UPDATE compaction.lines SET bytes = NULL WHERE seq = 3;",
    ),
    (
        "a line that is not JSON",
        false,
        "UPDATE compaction.lines SET bytes = '\\x7b2274797065223a' WHERE seq = 4;",
    ),
    // Added after the fix (appended, so earlier instances keep their numbers).
    (
        "a column default calling a function",
        true,
        "CREATE TABLE public.pwned (what text); \
         CREATE FUNCTION public.spy_default() RETURNS text LANGUAGE plpgsql AS \
         $$BEGIN INSERT INTO public.pwned VALUES ('x'); RETURN NULL; END$$; \
         ALTER TABLE compaction.lines ALTER COLUMN type SET DEFAULT public.spy_default();",
    ),
    (
        "a check constraint calling a function",
        true,
        "CREATE FUNCTION public.spy_check(b bytea) RETURNS boolean LANGUAGE sql AS \
         $$SELECT true$$; \
         ALTER TABLE compaction.lines ADD CONSTRAINT spy CHECK (public.spy_check(bytes));",
    ),
];

const COMMANDS: [&[&str]; 4] = [
    &["store", "list", "URL"],
    &["stats", "URL#ID"],
    &["store", "export", "URL#ID", "-o", "out.jsonl"],
    &["run", "URL#ID", "--keep-recent", "500", "--min-turns", "0"],
];

/// The rows of the tool's tables (whatever they are now), as one digest.
fn digest(cluster: &Cluster, database: &str) -> String {
    cluster.psql(
        database,
        "SELECT md5(coalesce((SELECT string_agg(t::text, '|' ORDER BY t::text) FROM \
         (SELECT * FROM compaction.lines) t), '') || coalesce((SELECT string_agg(s::text, '|' \
         ORDER BY s::text) FROM pg_catalog.pg_class s WHERE relnamespace = \
         'compaction'::regnamespace), ''))",
    )
}

#[test]
fn a_postgres_store_with_code_or_odd_rows_of_someone_elses_is_refused_or_read_never_crashing() {
    let Some(cluster) = Cluster::shared() else { return };
    let fixture = std::fs::read_to_string(super::super::fixture("offline-coding.jsonl")).unwrap();
    let header: serde_json::Value = serde_json::from_str(fixture.lines().next().unwrap()).unwrap();
    let id = header["id"].as_str().unwrap().to_owned();
    let mut tally = Tally::default();
    let mut index = 0;
    for (name, must_refuse, sql) in SHAPES {
        for command in COMMANDS {
            let (_root, work, tmp, home) = instance_root();
            let database = cluster.create_database();
            let url = cluster.url(&database);
            cluster.psql(
                &database,
                &format!("ALTER DATABASE {database} SET statement_timeout = '15s'"),
            );
            std::fs::write(work.join("s.jsonl"), &fixture).unwrap();
            let env = [("PGPASSWORD", cluster.password())];
            let made = run_in(
                &work,
                &home,
                &tmp,
                &["store".into(), "import".into(), "s.jsonl".into(), "--to".into(), url.clone()],
                &env,
            );
            assert_eq!(made.code, 0, "{}", made.stderr);
            cluster.psql(&database, sql);
            let before = digest(&cluster, &database);
            let args: Vec<String> =
                command.iter().map(|arg| arg.replace("URL", &url).replace("ID", &id)).collect();
            let ran = run_in(&work, &home, &tmp, &args, &env);
            let after = digest(&cluster, &database);
            let what = format!("{name} × `{}`", command[..2].join(" "));
            let names = if must_refuse { database.as_str() } else { id.as_str() };
            let miss = match ran.code {
                0 if must_refuse => Some(format!("{what}: accepted")),
                0 => None,
                1 | 2 if ran.stderr.contains("statement timeout") => {
                    Some(format!("{what}: ran until the server's timeout: {}", ran.stderr.trim()))
                }
                1 | 2 if !ran.stderr.contains(names) => {
                    Some(format!("{what}: the error does not name {names}: {}", ran.stderr.trim()))
                }
                1 | 2 if before != after => Some(format!("{what}: failed but changed the rows")),
                1 | 2 => None,
                code => Some(format!("{what}: exit {code}: {}", ran.stderr.trim())),
            };
            tally.count(index, miss);
            index += 1;
        }
    }
    tally.report("Postgres stores made by someone else");
}
