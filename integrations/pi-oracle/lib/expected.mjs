// Which expected files exist: every fixture session under FIXTURE_DIR, each at every keep
// value of KEEPS, named NAME.kKEEP.json in FIXTURE_DIR/expected.

import { readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const FIXTURE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../../crates/compaction-core/tests/fixtures/pi16");
export const EXPECTED_DIR = join(FIXTURE_DIR, "expected");

/**
 * keepRecentTokens values of the expected files: small enough that most leaves of the short
 * sessions are compactable (200, 1000), and pi's default (20000) with 4000 for the long one.
 */
export const KEEPS = [200, 1000, 4000, 20000];

/** The fixture sessions (NAME.jsonl), sorted. */
export function fixtureSessions() {
	return readdirSync(FIXTURE_DIR)
		.filter((file) => file.endsWith(".jsonl"))
		.sort();
}

/** Every (session file, keep, expected file) triple. */
export function expectedFiles() {
	return fixtureSessions().flatMap((session) =>
		KEEPS.map((keep) => ({
			session: join(FIXTURE_DIR, session),
			keep,
			expected: join(EXPECTED_DIR, `${session.replace(/\.jsonl$/, "")}.k${keep}.json`),
		})),
	);
}
