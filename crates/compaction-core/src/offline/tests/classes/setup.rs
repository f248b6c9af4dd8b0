//! The class "a run behind setup steps": a build or a test run is written behind steps that
//! only prepare where it runs (`cd web && npm test`, `mkdir -p build && cd build && cmake ..
//! && make`, `export RUST_LOG=debug && cargo test`, `source .venv/bin/activate && pytest`).
//! It fails; after a fix the same program passes, written bare (the shell kept the folder)
//! or behind other steps. The failure is settled: a summary that still lists it as Blocked,
//! or asks to resolve it, states a failure the transcript shows was fixed. Each family is
//! one ecosystem with three ways of writing the two runs.

use super::super::*;
use super::Instance;
use super::families::{BLOCKED, NEXT, edit, shell};

const CLASS: &str = "a run behind setup steps";

/// One instance: the failing line, its output, the passing line, its output.
type Runs = (&'static str, &'static str, &'static str, &'static str);

fn family(index: usize, file: &str, runs: [Runs; 3]) -> Vec<Instance> {
    let mut out = Vec::new();
    for (n, (failing, error, passing, passed)) in runs.into_iter().enumerate() {
        let id = format!("p{index}{n}");
        let messages = vec![
            user("Build it and run the tests, then fix what fails."),
            shell(&format!("{id}a"), failing),
            result(&format!("{id}a"), "Bash", &format!("{error}\nExit code 1"), true),
            assistant("It fails; fixing the cause.", &[]),
            edit(&format!("{id}b"), file, "old_name", "new_name")[0].clone(),
            edit(&format!("{id}b"), file, "old_name", "new_name")[1].clone(),
            shell(&format!("{id}c"), passing),
            result(&format!("{id}c"), "Bash", passed, false),
            assistant("It passes now.", &[]),
            user("Good. Commit it."),
            shell(&format!("{id}d"), "git commit -am 'Fix the build'"),
            result(&format!("{id}d"), "Bash", "[main 9c1e2f7] Fix the build", false),
            assistant("Committed.", &[]),
        ];
        let first_error = error.lines().next().unwrap_or(error);
        out.push(
            Instance::new(CLASS, index, messages)
                .absent(failing, &[BLOCKED, NEXT])
                .absent(first_error, &[BLOCKED]),
        );
    }
    out
}

pub(super) fn runs_behind_setup_steps() -> Vec<Instance> {
    let mut out = Vec::new();
    out.extend(family(
        0,
        "src/tensor.c",
        [
            (
                "mkdir -p build && cd build && cmake .. && make -j$(nproc)",
                "/work/vsla/src/tensor.c:41:5: error: implicit declaration of function 'fill_zero'",
                "make -j4",
                "[100%] Built target vsla",
            ),
            (
                "cd /work/vsla && rm -rf build && mkdir build && cd build && cmake -DCMAKE_BUILD_TYPE=Debug .. && make",
                "/work/vsla/src/tensor.c:77:12: error: 'vsla_tensor_t' has no member named 'cap'",
                "cd build && make",
                "[100%] Built target vsla_tests",
            ),
            (
                "cd build && cmake .. && make && ctest --output-on-failure",
                "The following tests FAILED:\n\t  2 - tensor_tests (Failed)",
                "ctest --output-on-failure",
                "100% tests passed, 0 tests failed out of 4",
            ),
        ],
    ));
    out.extend(family(
        1,
        "web/src/cart.ts",
        [
            (
                "cd web && npm test",
                "FAIL src/cart.test.ts\n  ● totals include tax\nTests:       1 failed, 11 passed, 12 total",
                "npm test",
                "PASS src/cart.test.ts\nTests:       12 passed, 12 total",
            ),
            (
                "cd /home/dev/shop/web && npm ci && npm run build",
                "src/cart.ts(9,3): error TS2339: Property 'tax' does not exist on type 'Cart'.",
                "npm run build",
                "> web@0.1.0 build\n> tsc -p .",
            ),
            (
                "pushd web && npx vitest run src/cart.test.ts",
                "FAIL  src/cart.test.ts > totals include tax\nAssertionError: expected 100 to be 119",
                "cd web && npx vitest run src/cart.test.ts",
                " ✓ src/cart.test.ts (12 tests) 31ms",
            ),
        ],
    ));
    out.extend(family(
        2,
        "app/models.py",
        [
            (
                "source .venv/bin/activate && pytest -q",
                "FAILED tests/test_models.py::test_total - assert 100 == 119\n1 failed, 40 passed in 1.21s",
                "pytest -q",
                "41 passed in 1.18s",
            ),
            (
                "cd /srv/app && . .venv/bin/activate && python -m pytest tests/test_models.py",
                "E       AttributeError: 'Order' object has no attribute 'tax'\n1 failed, 7 passed in 0.33s",
                "python -m pytest tests/test_models.py",
                "8 passed in 0.31s",
            ),
            (
                "export DJANGO_SETTINGS_MODULE=app.settings.test && python manage.py test orders",
                "FAIL: test_total (orders.tests.OrderTests)\nFAILED (failures=1)",
                "python manage.py test orders",
                "Ran 14 tests in 0.201s\n\nOK",
            ),
        ],
    ));
    out.extend(family(
        3,
        "src/parser.rs",
        [
            (
                "cd crates/core && cargo test",
                "test parser::tests::nested ... FAILED\ntest result: FAILED. 30 passed; 1 failed",
                "cargo test",
                "test result: ok. 31 passed; 0 failed",
            ),
            (
                "export RUST_BACKTRACE=1 && cargo build --release",
                "error[E0308]: mismatched types\n --> src/parser.rs:88:16",
                "cargo build --release",
                "    Finished `release` profile [optimized] target(s) in 12.40s",
            ),
            (
                "cd /work/lang && mkdir -p target/tmp && cargo test parser",
                "test parser::tests::unicode ... FAILED\ntest result: FAILED. 12 passed; 1 failed",
                "cd /work/lang && cargo test parser",
                "test result: ok. 13 passed; 0 failed",
            ),
        ],
    ));
    out.extend(family(
        4,
        "internal/store/store.go",
        [
            (
                "cd services/api && go test ./...",
                "--- FAIL: TestStoreGet (0.00s)\nFAIL\tapi/internal/store\t0.011s",
                "go test ./...",
                "ok  \tapi/internal/store\t0.010s",
            ),
            (
                "export CGO_ENABLED=0 && go build -o bin/api ./cmd/api",
                "internal/store/store.go:33:2: undefined: openPool",
                "go build -o bin/api ./cmd/api",
                "",
            ),
            (
                "cd /src/api && go vet ./... && go test ./internal/store",
                "--- FAIL: TestStorePut (0.01s)\nFAIL\tapi/internal/store\t0.014s",
                "go test ./internal/store",
                "ok  \tapi/internal/store\t0.012s",
            ),
        ],
    ));
    out.extend(family(
        5,
        "lib/invoice.rb",
        [
            (
                "cd billing && bundle install && bundle exec rspec",
                "rspec ./spec/invoice_spec.rb:12 # Invoice totals include tax\n30 examples, 1 failure",
                "bundle exec rspec",
                "30 examples, 0 failures",
            ),
            (
                "export RAILS_ENV=test && bin/rails test test/models/invoice_test.rb",
                "Failure:\nInvoiceTest#test_total [test/models/invoice_test.rb:9]\n5 runs, 5 assertions, 1 failures, 0 errors, 0 skips",
                "bin/rails test test/models/invoice_test.rb",
                "5 runs, 5 assertions, 0 failures, 0 errors, 0 skips",
            ),
            (
                "cd /app && rake build",
                "rake aborted!\nNameError: uninitialized constant Invoice::TAX_RATE",
                "rake build",
                "billing 1.2.0 built to pkg/billing-1.2.0.gem.",
            ),
        ],
    ));
    out.extend(family(
        6,
        "src/main/java/shop/Cart.java",
        [
            (
                "cd backend && ./gradlew test",
                "CartTest > totalIncludesTax() FAILED\n    org.opentest4j.AssertionFailedError at CartTest.java:21\n3 tests completed, 1 failed",
                "./gradlew test",
                "BUILD SUCCESSFUL in 8s",
            ),
            (
                "export JAVA_HOME=/opt/jdk-21 && mvn -q package",
                "[ERROR] /work/shop/src/main/java/shop/Cart.java:[14,20] cannot find symbol",
                "mvn -q package",
                "[INFO] BUILD SUCCESS",
            ),
            (
                "cd /work/shop && mvn -q -Dtest=CartTest test",
                "[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0",
                "mvn -q -Dtest=CartTest test",
                "[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0",
            ),
        ],
    ));
    out.extend(family(
        7,
        "src/Cart.php",
        [
            (
                "cd api && composer install && vendor/bin/phpunit",
                "There was 1 failure:\n1) CartTest::testTotal\nFAILURES!\nTests: 9, Assertions: 14, Failures: 1.",
                "vendor/bin/phpunit",
                "OK (9 tests, 14 assertions)",
            ),
            (
                "export APP_ENV=testing && php artisan test --filter=CartTest",
                "FAILED  Tests\\Unit\\CartTest > total\nTests:    1 failed, 8 passed",
                "php artisan test --filter=CartTest",
                "Tests:    9 passed (14 assertions)",
            ),
            (
                "cd /var/www/api && npm run build && php artisan test",
                "FAILED  Tests\\Feature\\CheckoutTest > checkout\nTests:    1 failed, 20 passed",
                "php artisan test",
                "Tests:    21 passed (40 assertions)",
            ),
        ],
    ));
    out.extend(family(
        8,
        "Sources/Cart/Cart.swift",
        [
            (
                "cd Packages/Cart && swift test",
                "Test Case '-[CartTests.CartTests testTotal]' failed (0.002 seconds).\nExecuted 7 tests, with 1 failure (0 unexpected) in 0.01 seconds",
                "swift test",
                "Executed 7 tests, with 0 failures (0 unexpected) in 0.01 seconds",
            ),
            (
                "cd /work/app && xcodegen && xcodebuild -scheme Cart build",
                "Sources/Cart/Cart.swift:19:9: error: cannot find 'taxRate' in scope\n** BUILD FAILED **",
                "xcodebuild -scheme Cart build",
                "** BUILD SUCCEEDED **",
            ),
            (
                "export DEVELOPER_DIR=/Applications/Xcode.app && swift build",
                "Sources/Cart/Cart.swift:7:1: error: expected declaration",
                "swift build",
                "Build complete! (3.20s)",
            ),
        ],
    ));
    out
}
