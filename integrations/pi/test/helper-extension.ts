// Test-only extension.
// - `/e2e-goto <entry id>`: RPC mode has no tree-navigation command, so the end-to-end tests
//   navigate through this command, which calls the same `navigateTree` as `/tree` with
//   "summarize" chosen.
// - A tool result whose text holds `OMIT-THIS-OUTPUT` is omitted from the model's context
//   at the end of its turn (a `context_edit` entry with `replacement: null`, proposed from
//   `turn_end` as pi 1.6 allows), as an extension that drops secrets or noise would do.

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

/** The marker of tool output this extension omits. */
const OMIT_MARKER = "OMIT-THIS-OUTPUT";

export default function (pi: ExtensionAPI) {
	pi.registerCommand("e2e-goto", {
		description: "Navigate to an entry, summarizing the branch left behind",
		handler: async (args, ctx) => {
			const result = await ctx.navigateTree(args.trim(), { summarize: true });
			ctx.ui.notify(`e2e-goto: ${JSON.stringify({ cancelled: result.cancelled })}`, "info");
		},
	});

	pi.on("turn_end", async (event) => {
		const omit = event.toolResults.flatMap((result, index) => {
			const text = (result.content ?? []).map((block: any) => block.text ?? "").join("");
			return text.includes(OMIT_MARKER) ? [event.toolResultEntryIds[index]] : [];
		});
		if (omit.length === 0) return undefined;
		return {
			entries: [
				...event.entries,
				...omit.map((targetId) => ({ type: "context_edit" as const, targetId, replacement: null })),
			],
		};
	});

	pi.on("context", async (event) => {
		const last = event.messages.at(-1) as any;
		const text = typeof last?.content === "string" ? last.content : (last?.content ?? []).map((b: any) => b.text ?? "").join("");
		if (!text.includes("DROP-FIRST-MESSAGE")) return undefined;
		return { messages: event.messages.slice(1) };
	});
}
