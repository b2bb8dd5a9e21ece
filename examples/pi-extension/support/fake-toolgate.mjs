// A misbehaving stand-in for toolgate, for the bridge's failure tests. It
// speaks just enough of the protocol: initialize is answered properly, and a
// bash tool_call is answered according to a word in its command:
//
//   hang       never answered
//   error      a JSON-RPC error response
//   malformed  a result whose action is neither allow nor block
//   u2028      allow, with raw U+2028 and U+2029 inside a JSON string
//   garbage    a line that is not JSON, then allow
//   anything else: allow
//
// Every message it receives is appended to FAKE_TOOLGATE_LOG. It writes a
// line to stderr at start, which the bridge must capture, not pass through.
import * as fs from "node:fs";

process.stderr.write("fake-toolgate: diagnostics on stderr\n");

const logFile = process.env.FAKE_TOOLGATE_LOG;
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);

function handle(message) {
	if (logFile) fs.appendFileSync(logFile, `${JSON.stringify(message)}\n`);
	const { id, method, params } = message;
	if (id === undefined) return;
	switch (method) {
		case "initialize":
			return send({ id, result: { protocolVersion: 1, serverInfo: { name: "fake-toolgate", version: "0" }, policy: { sources: [], warnings: [] } } });
		case "shutdown":
			send({ id, result: null });
			return process.exit(0);
		case "input":
			return send({ id, result: { action: "continue" } });
		case "tool_call": {
			const command = String(params?.input?.command ?? "");
			const allow = { action: "allow", decision: { gate: "tool", state: "allow", resolution: "policy_allow" }, trace: [] };
			if (command.includes("hang")) return;
			if (command.includes("error")) return send({ id, error: { code: -32603, message: "fake internal error" } });
			if (command.includes("malformed")) return send({ id, result: { action: "maybe" } });
			if (command.includes("u2028")) {
				return send({ id, result: { ...allow, trace: [{ gate: "tool", applied: true, note: "line\u2028separator\u2029paragraph" }] } });
			}
			if (command.includes("garbage")) process.stdout.write("this line is not JSON\n");
			return send({ id, result: allow });
		}
		default:
			return send({ id, error: { code: -32601, message: `method not found: ${method}` } });
	}
}

let buffer = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
	buffer += chunk;
	let newline;
	while ((newline = buffer.indexOf("\n")) >= 0) {
		const line = buffer.slice(0, newline).trim();
		buffer = buffer.slice(newline + 1);
		if (line) handle(JSON.parse(line));
	}
});
process.stdin.on("end", () => process.exit(0));
