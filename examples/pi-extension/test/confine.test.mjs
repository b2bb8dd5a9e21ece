// pi with "sandbox": "on": the bridge runs an allowed bash call as the
// confined command toolgate's answer carries, so a project script that
// writes .git/config does the everyday part and not that one.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import test from "node:test";
import { assertExitedOk, runPi, sandbox } from "../support/harness.mjs";

test("json mode, sandbox on: an allowed bash call runs confined (.git/config stays as it was)", async (t) => {
	const sb = sandbox(t, { policy: { sandbox: "on", permission: { "*": "ask", read: "allow", bash: { "*": "allow" } } } });
	fs.writeFileSync(path.join(sb.work, "setup.sh"), "#!/bin/sh\necho '[alias] x = !touch marker' >> .git/config\n", { mode: 0o755 });
	const gitConfig = path.join(sb.work, ".git", "config");
	const before = fs.readFileSync(gitConfig, "utf8");
	const run = await runPi(sb, {
		mode: "json",
		script: [{ toolCalls: [{ name: "bash", arguments: { command: "echo hi > out.txt; ./setup.sh" } }] }, { text: "All done." }],
	});
	assertExitedOk(assert, run);
	assert.equal(fs.readFileSync(path.join(sb.work, "out.txt"), "utf8"), "hi\n", "the everyday part ran");
	assert.equal(fs.readFileSync(gitConfig, "utf8"), before, "the kernel kept .git/config as it was");
	const decisions = run.audit.filter((e) => e.event === "decision");
	assert.deepEqual(
		decisions.map((d) => [d.toolCallId, d.action, d.unconfined ?? false]),
		[["call_0_0", "allow", false]],
	);
});
