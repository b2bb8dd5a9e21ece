// pi in json mode (no UI) with a policy: allowed calls run, a denied call is
// blocked and never runs, the model sees toolgate's reason, and every
// decision is in toolgate's audit log.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import test from "node:test";
import { alive, assertExitedOk, exists, pids, runPi, sandbox, toolgateBin } from "../support/harness.mjs";

const POLICY = {
	permission: {
		"*": "ask",
		read: "allow",
		bash: { "git status": "allow", "git status *": "allow", "rm *": "deny" },
	},
};

test("json mode: git status runs, rm is blocked and the file survives, read runs; all audited", async (t) => {
	const sb = sandbox(t, { policy: POLICY });
	const run = await runPi(sb, {
		mode: "json",
		script: [
			{ toolCalls: [{ name: "bash", arguments: { command: "git status --short" } }] },
			{ toolCalls: [{ name: "bash", arguments: { command: "rm -rf x" } }] },
			{ toolCalls: [{ name: "read", arguments: { path: "hello.txt" } }] },
			{ text: "All done." },
		],
	});
	assertExitedOk(assert, run);

	// What pi did with each call.
	assert.deepEqual(
		run.results.map((r) => [r.toolName, r.isError]),
		[
			["bash", false],
			["bash", true],
			["read", false],
		],
	);
	assert.match(run.results[0].text, /\?\? hello\.txt/, "git status really ran");
	assert.equal(run.results[2].text, "hi\n", "read really ran");
	assert.ok(exists(sb, "x/keep"), "the rm was blocked, x/keep still exists");

	// What the model was told: toolgate's reason, naming the rule.
	const turn2 = run.model.find((m) => m.turn === 2);
	assert.equal(turn2.toolResults.length, 1);
	assert.equal(turn2.toolResults[0].isError, true);
	assert.match(turn2.toolResults[0].text, /^toolgate: .*rm -rf x.*denied by rule 'rm \*'/);
	assert.equal(run.results[1].text, turn2.toolResults[0].text);

	// The audit log: one decision per call, chained and verifiable.
	const decisions = run.audit.filter((e) => e.event === "decision");
	assert.deepEqual(
		decisions.map((d) => [d.toolCallId, d.toolName, d.action, d.resolution]),
		[
			["call_0_0", "bash", "allow", "policy_allow"],
			["call_1_0", "bash", "block", "policy_deny"],
			["call_2_0", "read", "allow", "policy_allow"],
		],
	);
	execFileSync(toolgateBin(), ["audit", "verify", sb.auditLog], { stdio: "pipe" });

	// session_shutdown stopped toolgate: the bridge saw it exit, and it is gone.
	const [pid] = pids(sb);
	assert.equal(pids(sb).length, 1, "one toolgate for the session");
	assert.ok(run.debug.some((e) => e.event === "exit" && e.pid === pid), "the bridge saw toolgate exit before pi did");
	assert.equal(alive(pid), false);
	// Decision notifications went to the debug log (and nowhere else).
	assert.equal(run.debug.filter((e) => e.event === "decision").length, 3);
});

test("json mode: an ask with no UI is blocked, not prompted", async (t) => {
	const sb = sandbox(t, { policy: POLICY });
	const run = await runPi(sb, {
		mode: "json",
		script: [{ toolCalls: [{ name: "bash", arguments: { command: "touch asked.txt" } }] }, { text: "ok" }],
	});
	assertExitedOk(assert, run);
	assert.deepEqual(run.results.map((r) => r.isError), [true]);
	assert.match(run.results[0].text, /^toolgate: /);
	assert.equal(exists(sb, "asked.txt"), false);
	assert.deepEqual(
		run.audit.filter((e) => e.event === "decision").map((d) => d.resolution),
		["confirmation_unavailable"],
	);
});

test("json mode: when the active agent changes, its policy applies (agent front matter over the global file)", async (t) => {
	const sb = sandbox(t, { policy: { permission: { "*": "ask", bash: { "touch *": "allow" } } } });
	fs.mkdirSync(path.join(sb.agentDir, "agents"));
	fs.writeFileSync(
		path.join(sb.agentDir, "agents", "reviewer.md"),
		'---\nname: reviewer\npermission:\n  bash:\n    "touch *": deny\n---\nReviews, never writes.\n',
	);
	const run = await runPi(sb, {
		mode: "json",
		script: [
			{ toolCalls: [{ name: "bash", arguments: { command: "touch by-default.txt" } }] },
			{ activeAgent: "reviewer", toolCalls: [{ name: "bash", arguments: { command: "touch by-reviewer.txt" } }] },
			{ text: "ok" },
		],
	});
	assertExitedOk(assert, run);
	assert.deepEqual(run.results.map((r) => r.isError), [false, true]);
	assert.ok(exists(sb, "by-default.txt"));
	assert.equal(exists(sb, "by-reviewer.txt"), false);
	const decisions = run.audit.filter((e) => e.event === "decision");
	assert.deepEqual(
		decisions.map((d) => [d.resolution, d.origin.scope]),
		[
			["policy_allow", "global"],
			["policy_deny", "agent"],
		],
	);
});
