// Whenever the bridge cannot get a confident allow from toolgate, the tool
// call is blocked and does not run: toolgate missing, killed, slow, answering
// with an error or with nonsense.
import assert from "node:assert/strict";
import test from "node:test";
import { alive, assertExitedOk, exists, pids, readJsonl, runPi, sandbox } from "../support/harness.mjs";

const UNAVAILABLE = /^toolgate is unavailable \(.+\), so this tool call is blocked/;
const bash = (command) => ({ toolCalls: [{ name: "bash", arguments: { command } }] });

test("toolgate missing: every tool call is blocked, even one any policy would allow", async (t) => {
	const sb = sandbox(t, { policy: { permission: { "*": "allow" } }, toolgate: "missing" });
	const run = await runPi(sb, {
		mode: "json",
		script: [bash("touch ran.txt"), { toolCalls: [{ name: "read", arguments: { path: "hello.txt" } }] }, { text: "ok" }],
	});
	assertExitedOk(assert, run);
	assert.deepEqual(run.results.map((r) => r.isError), [true, true]);
	for (const r of run.results) assert.match(r.text, UNAVAILABLE);
	assert.match(run.results[0].text, /cannot run .*no-such-toolgate/);
	assert.equal(exists(sb, "ran.txt"), false);
	assert.match(run.model[1].toolResults[0].text, UNAVAILABLE, "the model is told why");
	assert.equal(run.debug.filter((e) => e.event === "spawn").length, 2, "one start and one restart, then it gives up");
});

test("toolgate missing: a /skill: input is swallowed with a notification", async (t) => {
	const sb = sandbox(t, { toolgate: "missing" });
	const notifications = [];
	const run = await runPi(sb, {
		mode: "rpc",
		script: [{ text: "should not be reached" }],
		drive(e, rpc) {
			if (e.type === "harness_start") rpc.send({ id: "p1", type: "prompt", message: "/skill:anything please" });
			if (e.type === "extension_ui_request" && e.method === "notify") notifications.push(e);
			if (e.type === "response" && e.id === "p1") rpc.end();
		},
	});
	assertExitedOk(assert, run);
	assert.equal(run.model.length, 0, "the model never saw the input");
	assert.ok(
		notifications.some((n) => /toolgate is unavailable .*so this skill is blocked/.test(n.message)),
		JSON.stringify(notifications),
	);
});

test("toolgate killed mid-session: the call waiting on it is blocked; it is restarted once, then calls are blocked", async (t) => {
	const sb = sandbox(t, { policy: { permission: { "*": "ask", bash: { "touch *": "allow", "mkdir *": "ask" } } } });
	let selects = 0;
	const run = await runPi(sb, {
		mode: "rpc",
		script: [
			bash("touch before.txt"), // allowed
			bash("mkdir asked1"), // asks; toolgate is killed while the prompt is open
			bash("touch restarted.txt"), // allowed by the restarted toolgate
			bash("mkdir asked2"), // asks; the restarted toolgate is killed too
			bash("touch after.txt"), // allowed by the policy, but there is no toolgate any more
			{ text: "done" },
		],
		drive(e, rpc) {
			if (e.type === "harness_start") rpc.send({ id: "p1", type: "prompt", message: "go" });
			if (e.type === "extension_ui_request" && e.method === "select") {
				selects++;
				const running = pids(sb);
				assert.equal(running.length, selects, "one toolgate per prompt so far");
				process.kill(running[running.length - 1], "SIGKILL"); // and never answer
			}
			if (e.type === "agent_end") rpc.end();
		},
	});
	assertExitedOk(assert, run);
	assert.equal(selects, 2);
	assert.deepEqual(run.results.map((r) => r.isError), [false, true, false, true, true]);
	assert.ok(exists(sb, "before.txt"));
	assert.equal(exists(sb, "asked1"), false);
	assert.ok(exists(sb, "restarted.txt"), "the restarted toolgate decided the next call");
	assert.equal(exists(sb, "asked2"), false);
	assert.equal(exists(sb, "after.txt"), false, "with toolgate gone for good, an allowed command is blocked");
	for (const i of [1, 3, 4]) assert.match(run.results[i].text, UNAVAILABLE);
	assert.match(run.results[1].text, /SIGKILL/);
	assert.equal(pids(sb).length, 2, "restarted exactly once");
	for (const pid of pids(sb)) assert.equal(alive(pid), false);
});

test("toolgate slow, erroring, malformed or noisy: blocked; U+2028 inside an answer is not a line break", async (t) => {
	const sb = sandbox(t, { toolgate: "fake" });
	const run = await runPi(sb, {
		mode: "json",
		env: { TOOLGATE_TIMEOUT_MS: "3000" },
		script: [
			bash("touch u2028.txt"), // allowed, with raw U+2028/U+2029 in the answer
			bash("touch error.txt"), // JSON-RPC error
			bash("touch malformed.txt"), // action "maybe"
			bash("touch hang.txt"), // never answered
			bash("touch garbage.txt"), // a non-JSON line, then allowed
			{ text: "done" },
		],
	});
	assertExitedOk(assert, run);
	assert.deepEqual(run.results.map((r) => r.isError), [false, true, true, true, false]);
	assert.ok(exists(sb, "u2028.txt"));
	assert.ok(exists(sb, "garbage.txt"));
	for (const f of ["error.txt", "malformed.txt", "hang.txt"]) assert.equal(exists(sb, f), false, `${f} must not exist`);
	for (const i of [1, 2, 3]) assert.match(run.results[i].text, UNAVAILABLE);
	assert.match(run.results[1].text, /JSON-RPC error -32603.*fake internal error/);
	assert.match(run.results[2].text, /malformed answer to tool_call/);
	assert.match(run.results[3].text, /no answer to tool_call within 3000 ms/);

	// What the bridge sent: initialize first, then each tool call as {toolCallId, toolName, input, hasUI}.
	const received = readJsonl(sb.fakeToolgateLog);
	assert.equal(received[0].method, "initialize");
	assert.equal(received[0].params.protocolVersion, 1);
	assert.equal(received[0].params.cwd, sb.work);
	assert.equal(received[0].params.hasUI, false);
	assert.equal(received[0].params.host.name, "pi");
	const call = received.find((m) => m.method === "tool_call");
	assert.deepEqual(call.params, { toolCallId: "call_0_0", toolName: "bash", input: { command: "touch u2028.txt" }, hasUI: false });
	assert.equal(received.at(-1).method, "shutdown", "the session ends with shutdown");

	// toolgate's stderr is captured into the debug log, never inherited by pi.
	assert.doesNotMatch(run.stderr, /fake-toolgate: diagnostics/);
	assert.ok(run.debug.some((e) => e.event === "stderr" && /fake-toolgate: diagnostics/.test(e.text)));
});
