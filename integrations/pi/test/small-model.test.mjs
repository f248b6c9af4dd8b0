// A small local model in pi 1.6: a 16 384-token window, for which pi's default budgets
// (reserveTokens 16384, keepRecentTokens 20000) leave nothing to compact. The package tells
// the user at start which `compaction.modelOverrides` entry to add; with that entry pi
// compacts through the engine, exactly when `/compaction-stats` says the trigger is reached.

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { compactionBinary, compactionJson, makeWorld, Pi, readEntries } from "./harness.mjs";
import { contentText, defaultAnswer, startMock } from "./mock-openai.mjs";

const WINDOW = 16384;

let mock;
before(async () => {
	compactionBinary();
	mock = await startMock();
});
after(async () => {
	await mock?.close();
});

/** A world whose provider `mock` also has `m16`, a model with a 16 384-token window. */
function smallModelWorld() {
	const world = makeWorld(mock, { defaultModel: "m16" });
	const modelsFile = join(world.agentDir, "models.json");
	const models = JSON.parse(readFileSync(modelsFile, "utf8"));
	models.providers.mock.models.push({ id: "m16", contextWindow: WINDOW, maxTokens: 2048 });
	writeFileSync(modelsFile, JSON.stringify(models, null, 2));
	return world;
}

function lastUserText(body) {
	const users = (body.messages ?? []).filter((m) => m.role === "user");
	return contentText(users[users.length - 1]?.content);
}

/** A prompt long enough that a few turns outgrow a quarter of the window. */
function question(n, marker = "") {
	return `${marker}Question ${n}: ${"check how the parser treats a torn last line and what the tests say. ".repeat(30)}`;
}

async function stats(pi) {
	const from = pi.events.length;
	await pi.command("/compaction-stats");
	return pi.waitFor((e) => e.type === "extension_ui_request" && e.method === "notify", { from, what: "stats" });
}

test("16k model: the advice at start names the modelOverrides entry; with it pi compacts through the engine when /compaction-stats says the trigger is reached", async () => {
	const world = smallModelWorld();
	// Prompts marked HIGH report a context over 16384 − 4096 tokens, LOW ones one under it.
	mock.answer = (body) => {
		const text = lastUserText(body);
		if (text.startsWith("HIGH")) return { text: "Noted.", promptTokens: 13000 };
		if (text.startsWith("LOW")) return { text: "Noted.", promptTokens: 11000 };
		return defaultAnswer(body);
	};

	// pi's defaults: the package says what to add, once, when pi starts.
	let pi = new Pi(world, { model: "m16" });
	let advice;
	let file;
	try {
		const notice = await pi.waitFor((e) => e.method === "notify" && e.message.includes("modelOverrides"), { what: "the budget advice" });
		assert.equal(notice.notifyType, "warning");
		assert.match(notice.message, /reserveTokens 16384 \(pi's default\), keepRecentTokens 20000 \(pi's default\)/);
		advice = JSON.parse(notice.message.slice(notice.message.indexOf('{"compaction"')));
		assert.deepEqual(advice, { compaction: { modelOverrides: { "mock/m16": { reserveTokens: 4096, keepRecentTokens: 4096 } } } });
		for (let i = 1; i <= 10; i++) await pi.prompt(question(i));
		await pi.prompt(question(11, "HIGH "));
		// What pi does with its defaults: nothing to compact, automatic or asked for.
		assert.equal(pi.events.filter((e) => e.type === "compaction_end").length, 0);
		const compact = await pi.send({ type: "compact" });
		assert.equal(compact.success, false);
		assert.match(compact.error, /Nothing to compact/);
		// And what /compaction-stats says agrees: pi cannot compact, with the same entry to add.
		const report = await stats(pi);
		assert.equal(report.notifyType, "warning");
		assert.match(report.message, /^pi cannot compact this session: .*"mock\/m16":\{"reserveTokens":4096,"keepRecentTokens":4096\}/s);
		const advised = pi.notifications().filter((n) => n.message.includes("modelOverrides") && !n.message.startsWith("pi cannot"));
		assert.equal(advised.length, 1, "the advice is shown once");
		file = (await pi.state()).sessionFile;
	} finally {
		await pi.stop();
	}

	// The advised entry, merged into the settings as the advice says.
	const settingsFile = join(world.agentDir, "settings.json");
	const settings = JSON.parse(readFileSync(settingsFile, "utf8"));
	writeFileSync(settingsFile, JSON.stringify({ ...settings, ...advice }, null, 2));
	pi = new Pi(world, { model: "m16", session: file });
	try {
		// The last turn reported 13000 tokens: over 16384 − 4096. Stats say so, and pi compacts
		// (through the engine) before it sends the next prompt.
		const over = await stats(pi);
		assert.equal(over.notifyType, "info", over.message);
		assert.match(over.message, /trigger: reached \(13\d\d\d tokens > 12288, the window less reserveTokens 4096\)/);
		let from = pi.events.length;
		await pi.prompt(question(12, "LOW "));
		let end = await pi.waitFor((e) => e.type === "compaction_end", { from, what: "compaction_end" });
		assert.equal(end.reason, "threshold", JSON.stringify(end).slice(0, 400));
		assert.equal(end.aborted, false);
		let compactions = readEntries(file).filter((e) => e.type === "compaction");
		assert.equal(compactions.length, 1);
		assert.equal(compactions[0].fromHook, true, `the engine wrote the compaction; notices: ${JSON.stringify(pi.notifications().map((n) => n.message))}`);

		// Under the trigger: stats say so, and pi does not compact.
		const under = await stats(pi);
		assert.equal(under.notifyType, "info", under.message);
		assert.match(under.message, /^context: 11\d\d\d tokens of 16384/);
		assert.match(under.message, /trigger: not reached \(11\d\d\d of 12288 tokens, the window less reserveTokens 4096\)/);
		for (let i = 13; i <= 16; i++) await pi.prompt(question(i, "LOW "));
		assert.equal(readEntries(file).filter((e) => e.type === "compaction").length, 1, "no compaction under the trigger");
		assert.match((await stats(pi)).message, /trigger: not reached/);

		// Over it again: pi compacts through the engine after the turn; the engine, asked as
		// /compaction-stats asks, says the trigger was reached at that turn.
		from = pi.events.length;
		const requestsBefore = mock.requests.length;
		await pi.prompt(question(17, "HIGH "));
		end = await pi.waitFor((e) => e.type === "compaction_end", { from, what: "compaction_end" });
		assert.equal(end.reason, "threshold", JSON.stringify(end).slice(0, 400));
		const entries = readEntries(file);
		compactions = entries.filter((e) => e.type === "compaction");
		assert.equal(compactions.length, 2);
		const compaction = compactions[1];
		assert.equal(compaction.fromHook, true, "the engine wrote the compaction");
		// The offline summarizer: no summary request reached the model.
		assert.ok(mock.requests.slice(requestsBefore).every((r) => !contentText(r.messages.at(-1)?.content).includes("<conversation>")));
		const at = entries.indexOf(compaction);
		const turn = entries.slice(0, at).findLast((e) => e.type === "message" && e.message.role === "assistant");
		const plan = compactionJson(world, ["plan", file, "--leaf", turn.id, "--json", "--context-window", String(WINDOW), "--reserve", "4096", "--keep-recent", "4096"]);
		assert.ok(plan.contextTokens > WINDOW - 4096, `plan at the compacted turn: ${plan.contextTokens}`);
		assert.equal(plan.shouldCompact, true);
		assert.equal(pi.notifications().filter((n) => n.message.includes("modelOverrides")).length, 0, "no advice once the entry is there");
	} finally {
		await pi.stop();
	}
});
