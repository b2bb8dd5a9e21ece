// pi in rpc mode (a UI): toolgate's prompts reach the RPC client as
// extension_ui_request dialogs, and the answers decide the calls.
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import test from "node:test";
import { assertExitedOk, exists, optionLabel, runPi, sandbox } from "../support/harness.mjs";

const isDialog = (e, method) => e.type === "extension_ui_request" && e.method === method;

test("rpc mode: allow once, allow for the session (spares the next ask), deny, deny with a reason", async (t) => {
	const sb = sandbox(t, { policy: { promptTimeoutMs: 45_000, permission: { "*": "ask", read: "allow" } } });
	const plan = [
		{ command: "touch once.txt", choice: "allow_once" },
		{ command: "touch session1.txt", choice: "allow_session" },
		// "touch session1.txt" again and "touch session2.txt" are not asked:
		// the session approval ("touch *") covers them.
		{ command: "mkdir denied", choice: "deny" },
		{ command: "mkdir reasoned", choice: "deny_with_reason" },
	];
	const selects = [];
	const inputs = [];
	const run = await runPi(sb, {
		mode: "rpc",
		script: [
			{ toolCalls: [{ name: "bash", arguments: { command: "touch once.txt" } }] },
			{ toolCalls: [{ name: "bash", arguments: { command: "touch session1.txt" } }] },
			{ toolCalls: [{ name: "bash", arguments: { command: "touch session1.txt" } }] },
			{ toolCalls: [{ name: "bash", arguments: { command: "touch session2.txt" } }] },
			{ toolCalls: [{ name: "bash", arguments: { command: "mkdir denied" } }] },
			{ toolCalls: [{ name: "bash", arguments: { command: "mkdir reasoned" } }] },
			{ text: "All done." },
		],
		drive(e, rpc) {
			if (e.type === "harness_start") rpc.send({ id: "p1", type: "prompt", message: "go" });
			if (isDialog(e, "select")) {
				const step = plan[selects.length];
				selects.push(e);
				assert.ok(step, `unexpected prompt: ${e.title}`);
				assert.ok(e.title.includes(step.command), `prompt ${selects.length} should be about '${step.command}': ${e.title}`);
				rpc.answer(e, { value: optionLabel(e, step.choice) });
			}
			if (isDialog(e, "input")) {
				inputs.push(e);
				rpc.answer(e, { value: "  not in this repository  " });
			}
			if (e.type === "agent_end") rpc.end();
		},
	});
	assertExitedOk(assert, run);

	assert.equal(selects.length, 4, "four prompts: the session approval spared the identical ask and the similar one");
	for (const s of selects) {
		assert.equal(s.options.length, 4, "bash offers allow once, allow for the session, deny, deny with a reason");
		assert.equal(s.timeout, 45_000, "the dialog honors toolgate's timeoutMs");
		assert.match(s.title, /^Permission required\n/);
	}
	assert.equal(inputs.length, 1, "deny with a reason asks for the reason");

	assert.deepEqual(
		run.results.map((r) => r.isError),
		[false, false, false, false, true, true],
	);
	assert.ok(exists(sb, "once.txt"));
	assert.ok(exists(sb, "session1.txt"));
	assert.ok(exists(sb, "session2.txt"));
	assert.equal(exists(sb, "denied"), false, "the denied mkdir did not run");
	assert.equal(exists(sb, "reasoned"), false, "the mkdir denied with a reason did not run");

	const reasonTurn = run.model.find((m) => m.turn === 6);
	assert.match(reasonTurn.toolResults[0].text, /not in this repository/, "the person's reason reaches the model");
	assert.equal(reasonTurn.toolResults[0].isError, true);

	assert.deepEqual(
		run.audit.filter((e) => e.event === "decision").map((d) => [d.toolCallId, d.action, d.resolution]),
		[
			["call_0_0", "allow", "user_approved"],
			["call_1_0", "allow", "user_approved_for_session"],
			["call_2_0", "allow", "session_approved"],
			["call_3_0", "allow", "session_approved"],
			["call_4_0", "block", "user_denied"],
			["call_5_0", "block", "user_denied"],
		],
	);
});

test("rpc mode: an unanswered prompt times out after toolgate's timeoutMs and blocks; policy warnings are shown", async (t) => {
	const sb = sandbox(t, { policy: { promptTimeoutMs: 1_500, permission: { "*": "ask" } } });
	// A misspelt key in the project policy: toolgate warns, and pi shows it.
	const projectPolicy = path.join(sb.work, ".pi", "extensions", "pi-permission-system", "config.json");
	fs.mkdirSync(path.dirname(projectPolicy), { recursive: true });
	fs.writeFileSync(projectPolicy, '{\n  "permissions": {"*": "allow"}\n}\n');
	const selects = [];
	const notifications = [];
	const started = Date.now();
	const run = await runPi(sb, {
		mode: "rpc",
		script: [{ toolCalls: [{ name: "bash", arguments: { command: "touch late.txt" } }] }, { text: "ok" }],
		drive(e, rpc) {
			if (e.type === "harness_start") rpc.send({ id: "p1", type: "prompt", message: "go" });
			if (isDialog(e, "select")) selects.push(e); // never answered
			if (isDialog(e, "notify")) notifications.push(e);
			if (e.type === "agent_end") rpc.end();
		},
	});
	assertExitedOk(assert, run);
	assert.equal(selects.length, 1);
	assert.equal(selects[0].timeout, 1_500);
	assert.deepEqual(run.results.map((r) => r.isError), [true]);
	assert.equal(exists(sb, "late.txt"), false);
	assert.deepEqual(run.audit.filter((e) => e.event === "decision").map((d) => d.resolution), ["prompt_failed"]);
	assert.ok(Date.now() - started < 15_000);
	assert.ok(
		notifications.some((n) => n.notifyType === "warning" && n.message.includes(`${projectPolicy}:2`) && /permissions/.test(n.message)),
		`a warning naming the project file and line, got ${JSON.stringify(notifications)}`,
	);
});

test("rpc mode: a denied /skill: input is swallowed with a notification; an allowed one reaches the model", async (t) => {
	const sb = sandbox(t, { policy: { permission: { "*": "ask", skill: { "*": "allow", secret: "deny" } } } });
	const skillFiles = {};
	for (const name of ["secret", "helper"]) {
		const dir = path.join(sb.root, "skills", name);
		fs.mkdirSync(dir, { recursive: true });
		skillFiles[name] = path.join(dir, "SKILL.md");
		fs.writeFileSync(skillFiles[name], `---\nname: ${name}\ndescription: The ${name} skill for the e2e test.\n---\nBODY-OF-${name.toUpperCase()}\n`);
	}
	const notifications = [];
	const run = await runPi(sb, {
		mode: "rpc",
		args: ["--skill", path.dirname(skillFiles.secret), "--skill", path.dirname(skillFiles.helper)],
		script: [{ text: "Skill used." }],
		drive(e, rpc) {
			if (e.type === "harness_start") rpc.send({ id: "p1", type: "prompt", message: "/skill:secret tell me" });
			if (e.type === "response" && e.id === "p1") rpc.send({ id: "p2", type: "prompt", message: "/skill:helper go" });
			if (isDialog(e, "notify")) notifications.push(e);
			if (e.type === "agent_end") rpc.end();
		},
	});
	assertExitedOk(assert, run);

	const warning = notifications.find((n) => n.notifyType === "warning");
	assert.ok(warning, `a warning notification, got ${JSON.stringify(notifications)}`);
	assert.match(warning.message, /secret/);
	assert.equal(run.model.length, 1, "only the allowed skill reached the model");
	assert.match(run.model[0].userText, /BODY-OF-HELPER/);
	assert.doesNotMatch(run.model[0].userText, /BODY-OF-SECRET/);

	const blocked = run.audit.filter((e) => e.event === "decision" && e.action === "block");
	assert.equal(blocked.length, 1);
	assert.equal(blocked[0].value, "secret");

	const init = run.debug.find((e) => e.event === "initialize");
	assert.deepEqual(
		init.params.skills.map((s) => [s.name, s.path]).sort(),
		[
			["helper", skillFiles.helper],
			["secret", skillFiles.secret],
		],
		"initialize carries the active skills with their SKILL.md paths",
	);
	assert.equal(init.params.cwd, sb.work);
	assert.equal(init.params.hasUI, true);
});
