// Test-only extension: RPC mode has no tree-navigation command, so the end-to-end tests
// navigate through `/e2e-goto <entry id>`, which calls the same `navigateTree` as `/tree`
// with "summarize" chosen.

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI) {
	pi.registerCommand("e2e-goto", {
		description: "Navigate to an entry, summarizing the branch left behind",
		handler: async (args, ctx) => {
			const result = await ctx.navigateTree(args.trim(), { summarize: true });
			ctx.ui.notify(`e2e-goto: ${JSON.stringify({ cancelled: result.cancelled })}`, "info");
		},
	});
}
