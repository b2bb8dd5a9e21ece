// Test harness: runs the real pi CLI (the pinned dev dependency) headless,
// isolated from the machine, with the toolgate bridge and the scripted fake
// model loaded by -e, against a sandbox directory per test.
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

export const EXAMPLE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SUPPORT_DIR = path.join(EXAMPLE_DIR, "support");
const PI_CLI = path.join(EXAMPLE_DIR, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "cli.js");
const RUN_TIMEOUT_MS = 30_000;

/** The toolgate binary under test (built from this checkout by run-tests.mjs or e2e_test.go). */
export function toolgateBin() {
	const bin = process.env.TOOLGATE_BIN;
	if (!bin || !fs.existsSync(bin)) {
		throw new Error(`TOOLGATE_BIN must name the toolgate binary built from this checkout (got ${JSON.stringify(bin)}); "npm test" builds it`);
	}
	return bin;
}

/**
 * A fresh directory tree for one pi run:
 *   home/             HOME
 *   agent/            PI_CODING_AGENT_DIR, holding the global policy
 *   work/             the session's cwd: a git repo with hello.txt and x/keep
 *   bin/toolgate      a wrapper that records its pid in toolgate.pids, then execs the real binary
 */
export function sandbox(t, { policy, toolgate } = {}) {
	const root = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-pi-e2e-"));
	if (!process.env.KEEP_SANDBOX) t.after(() => fs.rmSync(root, { recursive: true, force: true }));
	const sb = {
		root,
		home: path.join(root, "home"),
		agentDir: path.join(root, "agent"),
		work: path.join(root, "work"),
		bin: path.join(root, "bin", "toolgate"),
		pidFile: path.join(root, "toolgate.pids"),
		modelLog: path.join(root, "model.jsonl"),
		debugLog: path.join(root, "bridge-debug.jsonl"),
		fakeToolgateLog: path.join(root, "fake-toolgate.jsonl"),
		policyFile: path.join(root, "agent", "extensions", "pi-permission-system", "config.json"),
		auditLog: path.join(root, "agent", "extensions", "pi-permission-system", "logs", "toolgate-audit.jsonl"),
	};
	for (const dir of [sb.home, sb.agentDir, path.join(sb.work, "x"), path.dirname(sb.bin), path.dirname(sb.policyFile)]) {
		fs.mkdirSync(dir, { recursive: true });
	}
	fs.writeFileSync(path.join(sb.work, "hello.txt"), "hi\n");
	fs.writeFileSync(path.join(sb.work, "x", "keep"), "keep me\n");
	execFileSync("git", ["init", "-q"], { cwd: sb.work, env: { PATH: process.env.PATH, HOME: sb.home, GIT_CONFIG_NOSYSTEM: "1" } });
	if (policy !== undefined) {
		fs.writeFileSync(sb.policyFile, `// written by the e2e test\n${JSON.stringify(policy, null, 2)}\n`);
	}
	// toolgate: "real" (default), "fake" (support/fake-toolgate.mjs) or "missing".
	const kind = toolgate ?? "real";
	if (kind === "missing") {
		sb.bin = path.join(root, "bin", "no-such-toolgate");
	} else {
		const target = kind === "fake" ? `"${process.execPath}" "${path.join(SUPPORT_DIR, "fake-toolgate.mjs")}"` : `"${toolgateBin()}"`;
		fs.writeFileSync(sb.bin, `#!/bin/sh\necho $$ >> "${sb.pidFile}"\nexec ${target} "$@"\n`, { mode: 0o755 });
	}
	return sb;
}

export function readJsonl(file) {
	if (!fs.existsSync(file)) return [];
	return fs
		.readFileSync(file, "utf8")
		.split("\n")
		.filter((line) => line.trim() !== "")
		.map((line) => JSON.parse(line));
}

export function pids(sb) {
	if (!fs.existsSync(sb.pidFile)) return [];
	return fs.readFileSync(sb.pidFile, "utf8").split("\n").filter(Boolean).map(Number);
}

export function alive(pid) {
	try {
		process.kill(pid, 0);
	} catch {
		return false;
	}
	// A zombie still answers kill 0; it is not running.
	try {
		return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
	} catch {
		return false;
	}
}

/** tool_execution_end events as {toolName, isError, text}. */
export function toolResults(events) {
	return events
		.filter((e) => e.type === "tool_execution_end")
		.map((e) => ({
			toolName: e.toolName,
			isError: e.isError,
			text: (e.result?.content ?? []).map((c) => c.text ?? "").join(""),
		}));
}

/**
 * Runs pi once. mode "json": the prompt is an argument, stdin is closed.
 * mode "rpc": `drive(event, rpc)` sees every stdout event and may
 * rpc.send(command), rpc.answer(request, response) or rpc.end(); by default
 * the prompt is sent at start and stdin is closed at agent_end.
 */
export function runPi(sb, { mode = "json", script, prompt = "go", env = {}, args = [], drive } = {}) {
	const scriptFile = path.join(sb.root, `script-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
	fs.writeFileSync(scriptFile, JSON.stringify(script ?? []));
	const piArgs = [
		PI_CLI,
		"--no-session",
		"--no-extensions",
		"--no-skills",
		"--no-prompt-templates",
		"--no-context-files",
		"--no-themes",
		"-e",
		path.join(SUPPORT_DIR, "fake-model.ts"),
		"-e",
		EXAMPLE_DIR,
		"--model",
		"fake/scripted",
		"--mode",
		mode,
		...args,
		...(mode === "json" ? [prompt] : []),
	];
	const childEnv = {
		PATH: process.env.PATH,
		HOME: sb.home,
		PI_CODING_AGENT_DIR: sb.agentDir,
		PI_OFFLINE: "1",
		GIT_CONFIG_NOSYSTEM: "1",
		TOOLGATE_BIN: sb.bin,
		TOOLGATE_DEBUG_LOG: sb.debugLog,
		FAKE_MODEL_SCRIPT: scriptFile,
		FAKE_MODEL_LOG: sb.modelLog,
		FAKE_TOOLGATE_LOG: sb.fakeToolgateLog,
		...env,
	};
	const child = spawn(process.execPath, piArgs, {
		cwd: sb.work,
		env: childEnv,
		stdio: [mode === "rpc" ? "pipe" : "ignore", "pipe", "pipe"],
	});
	const events = [];
	let stderr = "";
	let buffer = "";
	const rpc = {
		pid: child.pid,
		send: (command) => child.stdin.write(`${JSON.stringify(command)}\n`),
		answer: (request, response) => rpc.send({ type: "extension_ui_response", id: request.id, ...response }),
		end: () => child.stdin.end(),
	};
	const drivePi = drive ?? ((event, r) => event.type === "agent_end" && r.end());
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => {
			child.kill("SIGKILL");
			reject(new Error(`pi did not finish within ${RUN_TIMEOUT_MS} ms\nstderr:\n${stderr}\nlast events:\n${events.slice(-5).map((e) => JSON.stringify(e)).join("\n")}`));
		}, RUN_TIMEOUT_MS);
		child.stderr.setEncoding("utf8");
		child.stderr.on("data", (chunk) => (stderr += chunk));
		child.stdout.setEncoding("utf8");
		child.stdout.on("data", (chunk) => {
			// pi's JSONL: split on "\n" only (not readline, which also splits on U+2028/U+2029).
			buffer += chunk;
			let newline;
			while ((newline = buffer.indexOf("\n")) >= 0) {
				const line = buffer.slice(0, newline).replace(/\r$/, "");
				buffer = buffer.slice(newline + 1);
				if (!line.trim()) continue;
				let event;
				try {
					event = JSON.parse(line);
				} catch {
					events.push({ type: "unparsed", line });
					continue;
				}
				events.push(event);
				if (mode === "rpc") {
					try {
						drivePi(event, rpc);
					} catch (err) {
						child.kill("SIGKILL");
						reject(err);
					}
				}
			}
		});
		if (mode === "rpc") {
			child.stdin.on("error", () => {});
			if (!drive) rpc.send({ id: "p1", type: "prompt", message: prompt });
			else drivePi({ type: "harness_start" }, rpc);
		}
		child.on("error", (err) => {
			clearTimeout(timer);
			reject(err);
		});
		child.on("close", (code, signal) => {
			clearTimeout(timer);
			resolve({
				code,
				signal,
				events,
				stderr,
				results: toolResults(events),
				model: readJsonl(sb.modelLog),
				audit: readJsonl(sb.auditLog),
				debug: readJsonl(sb.debugLog),
			});
		});
	});
}

/** Fails with pi's stderr when pi did not exit 0. */
export function assertExitedOk(assert, run) {
	assert.equal(run.code, 0, `pi exited with ${run.code} (signal ${run.signal})\nstderr:\n${run.stderr}`);
}

/** The label of a prompt option, by toolgate's option id (options come in protocol order). */
export function optionLabel(request, id) {
	const ids = request.options.length === 4 ? ["allow_once", "allow_session", "deny", "deny_with_reason"] : ["allow_once", "deny", "deny_with_reason"];
	const index = ids.indexOf(id);
	if (index < 0) throw new Error(`option ${id} not offered in ${JSON.stringify(request.options)}`);
	return request.options[index];
}

export function exists(sb, rel) {
	return fs.existsSync(path.join(sb.work, rel));
}
