use super::*;
use serde_json::json;

#[test]
fn read_write_edit_calls_and_details() {
    let message: AgentMessage = serde_json::from_value(json!({"role":"assistant","content":[
        {"type":"toolCall","id":"1","name":"read","arguments":{"path":"src/b.rs"}},
        {"type":"toolCall","id":"2","name":"read","arguments":{"path":"src/a.rs"}},
        {"type":"toolCall","id":"3","name":"edit","arguments":{"path":"src/a.rs"}},
        {"type":"toolCall","id":"4","name":"write","arguments":{"path":"new.rs"}},
        {"type":"toolCall","id":"5","name":"read","arguments":{"file_path":"ignored.rs"}},
        {"type":"toolCall","id":"6","name":"bash","arguments":{"path":"ignored-too"}}]}))
    .unwrap();
    let mut files = FileOperations::default();
    files.add_message(&message);
    files.add_details(&json!({"readFiles":["docs/x.md"],"modifiedFiles":["Cargo.toml"]}));
    assert_eq!(files.read_only(), ["docs/x.md", "src/b.rs"]);
    assert_eq!(files.modified(), ["Cargo.toml", "new.rs", "src/a.rs"]);
    assert_eq!(
        file_lists_appendix(&files.read_only(), &files.modified()),
        "\n\n<read-files>\ndocs/x.md\nsrc/b.rs\n</read-files>\n\n<modified-files>\nCargo.toml\nnew.rs\nsrc/a.rs\n</modified-files>"
    );
    assert_eq!(file_lists_appendix(&[], &[]), "");
}

#[test]
fn other_roles_bad_arguments_and_bad_details_add_nothing() {
    let mut files = FileOperations::default();
    let user: AgentMessage = serde_json::from_value(json!({"role":"user","content":[
        {"type":"toolCall","id":"1","name":"read","arguments":{"path":"a"}}]}))
    .unwrap();
    files.add_message(&user);
    let assistant: AgentMessage = serde_json::from_value(json!({"role":"assistant","content":[
        {"type":"toolCall","id":"1","name":"read","arguments":{"path":""}},
        {"type":"toolCall","id":"2","name":"edit","arguments":{"path":7}},
        {"type":"toolCall","id":"3","name":"write","arguments":["path"]}]}))
    .unwrap();
    files.add_message(&assistant);
    files.add_details(&json!({"readFiles":"not a list","modifiedFiles":[3, null]}));
    assert_eq!(files, FileOperations::default());
}

#[test]
fn files_moved_or_deleted_through_bash_are_listed_under_their_new_names_or_not_at_all() {
    let message: AgentMessage = serde_json::from_value(json!({"role":"assistant","content":[
        {"type":"toolCall","id":"1","name":"edit","arguments":{"path":"src/export/palette.ts"}},
        {"type":"toolCall","id":"2","name":"edit","arguments":{"path":"ledger/importers/csv.py"}},
        {"type":"toolCall","id":"3","name":"read","arguments":{"path":"src/legacy/old.ts"}},
        {"type":"toolCall","id":"4","name":"edit","arguments":{"path":"scripts/gone.py"}},
        {"type":"toolCall","id":"5","name":"bash","arguments":{"command":"git mv src/export/palette.ts src/export/paletteExport.ts && npm test"}},
        {"type":"toolCall","id":"6","name":"bash","arguments":{"command":"git mv ledger/importers/ ledger/io"}},
        {"type":"toolCall","id":"7","name":"bash","arguments":{"command":"rm -f src/legacy/old.ts; git rm -q scripts/gone.py"}},
        {"type":"toolCall","id":"8","name":"bash","arguments":{"command":"mv 'a b.txt' notes/c.txt"}},
        {"type":"toolCall","id":"9","name":"bash","arguments":{"command":"rm -rf build/*"}}]}))
    .unwrap();
    let mut files = FileOperations::default();
    files.add_message(&message);
    assert_eq!(
        files.modified(),
        ["ledger/io/csv.py", "notes/c.txt", "src/export/paletteExport.ts"]
    );
    assert!(files.read_only().is_empty(), "{:?}", files.read_only());
    assert_eq!(shell_file_effects("grep -rn mv src | head; echo rm"), Vec::<FileEffect>::new());
}

#[test]
fn files_written_by_shell_commands_are_modified_and_heredoc_bodies_are_not_commands() {
    let written = |command: &str| -> Vec<String> {
        shell_file_effects(command)
            .into_iter()
            .map(|effect| match effect {
                FileEffect::Written { path } => path,
                FileEffect::Moved { from, to } => format!("moved {from} {to}"),
                FileEffect::Deleted { path } => format!("deleted {path}"),
            })
            .collect()
    };
    assert_eq!(
        written("sed -i 's/from a import/from b import/' pipeline/run.py ./tests/test_a.py"),
        ["pipeline/run.py", "tests/test_a.py"]
    );
    assert_eq!(written("sed -i '' -e 's/a/b/' -e 's/c/d/' src/x.go"), ["src/x.go"]);
    assert_eq!(written("sed -i.bak 's/a/b/' conf.ini"), ["conf.ini"]);
    assert_eq!(written("sed -n '1,20p' src/x.go"), Vec::<String>::new());
    assert_eq!(written("perl -pi -e 's/foo/bar/g' lib/a.pm lib/b.pm"), ["lib/a.pm", "lib/b.pm"]);
    assert_eq!(written("echo 'node_modules' >> .gitignore"), [".gitignore"]);
    assert_eq!(written("npm test > /tmp/test.log 2>&1"), Vec::<String>::new());
    assert_eq!(written("go test ./... 2> errors.txt"), Vec::<String>::new());
    assert_eq!(written("printf 'x' | tee -a notes/todo.md >/dev/null"), ["notes/todo.md"]);
    assert_eq!(written("cp config.example.toml config.toml"), ["config.toml"]);
    assert_eq!(written("cp templates/base.html site/"), ["site/base.html"]);
    assert_eq!(written("rm build.log 2>/dev/null"), ["deleted build.log"]);
    let heredoc =
        "cat > src/setup.py << 'EOF'\nimport os\nrm -rf build\nmv a b\nEOF\npython src/setup.py";
    assert_eq!(written(heredoc), ["src/setup.py"]);
    assert_eq!(written("cat <<EOF > docs/a.md\nmv x y\nEOF"), ["docs/a.md"]);
    assert_eq!(written("grep -c x <<< \"$TEXT\""), Vec::<String>::new());

    let message: AgentMessage = serde_json::from_value(json!({"role":"assistant","content":[
        {"type":"toolCall","id":"1","name":"read","arguments":{"path":"pipeline/run.py"}},
        {"type":"toolCall","id":"2","name":"bash","arguments":{"command":"sed -i 's/a/b/' pipeline/run.py"}}]}))
    .unwrap();
    let mut files = FileOperations::default();
    files.add_message(&message);
    assert_eq!(files.modified(), ["pipeline/run.py"]);
    assert!(files.read_only().is_empty());
}

#[test]
fn apply_patch_adds_updates_moves_and_deletes_are_file_operations() {
    let patch = "*** Begin Patch\n*** Add File: web/src/money.ts\n+export {}\n\
                 *** Update File: web/src/cart.ts\n@@\n-a\n+b\n\
                 *** Update File: src/old.rs\n*** Move to: src/new.rs\n@@\n-x\n+y\n\
                 *** Delete File: notes.txt\n*** End Patch";
    let message: AgentMessage = serde_json::from_value(json!({"role":"assistant","content":[
        {"type":"toolCall","id":"1","name":"read","arguments":{"path":"notes.txt"}},
        {"type":"toolCall","id":"2","name":"apply_patch","arguments":{"input":patch}},
        {"type":"toolCall","id":"3","name":"bash","arguments":{"command":
            "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: docs/a.md\n+x\n*** End Patch\nEOF"}},
        {"type":"toolCall","id":"4","name":"apply_patch","arguments":{"input":"no patch here"}}]}))
    .unwrap();
    let mut operations = FileOperations::default();
    operations.add_message(&message);
    assert_eq!(
        operations.modified(),
        ["docs/a.md", "src/new.rs", "web/src/cart.ts", "web/src/money.ts"]
    );
    assert!(operations.read_only().is_empty(), "the deleted file is listed nowhere");
}

#[test]
fn appendix_with_one_list() {
    let read = ["r".to_owned()];
    assert_eq!(file_lists_appendix(&read, &[]), "\n\n<read-files>\nr\n</read-files>");
    assert_eq!(file_lists_appendix(&[], &read), "\n\n<modified-files>\nr\n</modified-files>");
}

#[test]
fn javascript_sort_order_is_utf16() {
    let mut items = vec!["\u{1F600}".to_owned(), "\u{FF5E}".to_owned(), "a".to_owned()];
    sort_like_javascript(&mut items);
    // U+1F600 is the surrogate pair D83D DE00, which sorts before U+FF5E in UTF-16.
    assert_eq!(items, ["a", "\u{1F600}", "\u{FF5E}"]);
}

fn effects(command: &str) -> Vec<String> {
    shell_file_effects(command)
        .into_iter()
        .map(|effect| match effect {
            FileEffect::Written { path } => path,
            FileEffect::Moved { from, to } => format!("moved {from} {to}"),
            FileEffect::Deleted { path } => format!("deleted {path}"),
        })
        .collect()
}

#[test]
fn a_cd_prefix_is_applied_to_the_relative_paths_after_it() {
    assert_eq!(
        effects("cd packages/app/src && mv utils/config.ts ."),
        ["moved packages/app/src/utils/config.ts packages/app/src/config.ts"]
    );
    assert_eq!(
        effects("cd web && rm -f dist/old.js; cd .. && rm b.txt"),
        ["deleted web/dist/old.js", "deleted b.txt"]
    );
    assert_eq!(effects("cd /srv/app\nsed -i 's/a/b/' conf.ini"), ["/srv/app/conf.ini"]);
}

#[test]
fn after_a_cd_to_an_unknown_place_relative_paths_are_not_guessed() {
    assert_eq!(effects("cd $BUILD_DIR && rm out.o"), Vec::<String>::new());
    assert_eq!(effects("cd - && mv a.txt b.txt"), Vec::<String>::new());
    assert_eq!(effects("cd ~/proj && rm /srv/app/stale.log"), ["deleted /srv/app/stale.log"]);
}

#[test]
fn a_move_into_a_directory_keeps_the_file_name_and_dot_is_never_a_file() {
    assert_eq!(effects("mv src/util.ts lib/"), ["moved src/util.ts lib/util.ts"]);
    assert_eq!(effects("mv utils/config.ts ."), ["moved utils/config.ts config.ts"]);
    assert_eq!(effects("git mv a/b.rs .."), ["moved a/b.rs ../b.rs"]);
    assert_eq!(effects("cp templates/base.html ./"), ["base.html"]);
}

#[test]
fn redacted_operations_replace_a_secret_inside_a_path_and_merge_what_redacts_alike() {
    let redactor = crate::redact::Redactor::default();
    let token = |fill: char| format!("ghp_{}", fill.to_string().repeat(36));
    let mut files = FileOperations::default();
    files.read.insert(format!("/keys/{}/a.toml", token('a')));
    files.edited.insert(format!("/keys/{}/a.toml", token('b')));
    files.written.insert("src/plain.rs".to_owned());
    let redacted = files.redacted(&redactor);
    assert_eq!(redacted.modified(), ["/keys/[REDACTED]/a.toml", "src/plain.rs"]);
    // Read under one name, modified under another that redacts alike: modified only.
    assert!(redacted.read_only().is_empty());
    let (read, modified) = FileOperations::redacted_lists(
        &[format!("x/{}.env", token('c'))],
        &[format!("y/{}.env", token('d')), format!("y/{}.env", token('e'))],
        &redactor,
    );
    assert_eq!(
        (read, modified),
        (vec!["x/[REDACTED].env".to_owned()], vec!["y/[REDACTED].env".to_owned()])
    );
}
