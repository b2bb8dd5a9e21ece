#!/usr/bin/env node
// `npm test`: builds toolgate from this checkout (unless TOOLGATE_BIN names
// one), then runs the end-to-end suite with Node's test runner. Extra
// arguments go to `node --test` (e.g. --test-name-pattern=rpc).
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const env = { ...process.env };
let tmp;
if (!env.TOOLGATE_BIN) {
	tmp = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-bin-"));
	env.TOOLGATE_BIN = path.join(tmp, "toolgate");
	console.error(`building toolgate into ${env.TOOLGATE_BIN}`);
	execFileSync("go", ["build", "-o", env.TOOLGATE_BIN, "."], { cwd: path.resolve(here, "..", ".."), stdio: "inherit" });
}
const result = spawnSync(process.execPath, ["--test", ...process.argv.slice(2), "test/"], { cwd: here, env, stdio: "inherit" });
if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
process.exit(result.status ?? 1);
