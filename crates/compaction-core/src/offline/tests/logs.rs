//! Log output read by its level, and errors a log repeats.

use super::*;

#[test]
fn a_log_line_is_an_error_by_its_level_not_by_the_words_it_mentions() {
    for line in [
        "2025-10-03T22:38:52.280033Z ERROR exec error: Not a directory (os error 20)",
        "[12:00:02.514] ERROR (4121): listen EACCES: permission denied 0.0.0.0:80",
        "2025-03-01 10:00:09,441 CRITICAL worker: out of memory",
        "time=2025-03-01T10:00:09Z level=error msg=\"store open failed\"",
        "{\"time\":\"2025-03-01T10:00:09Z\",\"level\":\"fatal\",\"msg\":\"no config\"}",
    ] {
        assert!(error_line(line), "{line}");
    }
    for line in [
        "2025-10-03T22:38:01.120331Z  INFO ERR: No such file or directory (os error 2)",
        "2025-03-01 10:00:01,112 INFO worker: heartbeat ok, 0 errors in last window",
        "[12:00:01.101] WARN (4121): retrying request (error: timeout)",
        "time=2025-03-01T10:00:09Z level=info msg=\"error tracking enabled\"",
    ] {
        assert!(!error_line(line), "{line}");
    }
    // Without a stamp the words decide, as before.
    assert!(error_line("ERR: No such file or directory (os error 2)"));
}

#[test]
fn an_error_a_log_repeats_under_new_stamps_is_kept_once() {
    let scan = scan_output(
        "2025-10-03T22:38:01.120331Z ERROR ERR: No such file or directory (os error 2)\n\
         2025-10-03T22:38:04.554949Z ERROR ERR: No such file or directory (os error 2)\n\
         2025-10-03T22:38:09.004364Z ERROR ERR: No such file or directory (os error 2)\n\
         2025-10-03T22:38:52.280033Z ERROR MCP client failed to start: Permission denied (os error 13)"
            .lines(),
    );
    assert_eq!(scan.errors.len(), 2, "{:?}", scan.errors);
    assert!(scan.errors[1].contains("Permission denied (os error 13)"), "{:?}", scan.errors);
    // Lines that differ in more than a stamp stay apart.
    let scan = scan_output("FAIL tests/test1.py\nFAIL tests/test2.py".lines());
    assert_eq!(scan.errors.len(), 2, "{:?}", scan.errors);
}

#[test]
fn a_log_line_the_user_pasted_is_no_rule_at_any_level() {
    for line in [
        "2025-03-01 10:00:01,112 INFO scheduler: jobs must run one at a time",
        "[12:00:01.101] WARN (4121): never retry a request more than 3 times",
        "time=2025-03-01T10:00:09Z level=info msg=\"always use the cache\"",
    ] {
        assert!(!is_rule(line), "{line}");
    }
    assert!(is_rule("Always run the jobs one at a time."));
}
