// Child process of the abort test: real pi's AgentSession (what RPC mode and the terminal
// UI drive) with this package loaded, compacting the session file given as argument.
// Writes `{"type":"started"}`, calls `abortCompaction()` (what Escape calls in pi's UI) when
// a line arrives on stdin, then writes `{"type":"result", ok, error}`.

import { createAgentSession, DefaultResourceLoader, SessionManager } from "@earendil-works/pi-coding-agent";
import { PACKAGE_DIR } from "./harness.mjs";

const [file, cwd] = process.argv.slice(2);
const agentDir = process.env.PI_CODING_AGENT_DIR;
const loader = new DefaultResourceLoader({
	cwd,
	agentDir,
	additionalExtensionPaths: [PACKAGE_DIR],
	noSkills: true,
	noPromptTemplates: true,
	noThemes: true,
	noContextFiles: true,
});
await loader.reload();
const { session } = await createAgentSession({ cwd, agentDir, sessionManager: SessionManager.open(file), resourceLoader: loader });
process.stdin.once("data", () => session.abortCompaction());
const compacting = session.compact().then(
	() => ({ ok: true }),
	(error) => ({ ok: false, error: error.message }),
);
console.log(JSON.stringify({ type: "started" }));
console.log(JSON.stringify({ type: "result", ...(await compacting) }));
process.exit(0);
