import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { authorWork, mcpRequests, toolCall } from "../_author.js";

// A Python extension from the built CLI: `ext init --lang python` writes a
// package whose own tests pass, that validates, links, installs and runs,
// through the single-file runtime it vendors.
const PYTHON = "/usr/bin/python3";
const missing = existsSync(PYTHON) ? undefined : `${PYTHON} is not installed`;
if (missing !== undefined) console.warn(`skipping the Python skeleton: ${missing}`);
const strictMissing = existsSync("/usr/bin/bwrap") ? undefined : "bubblewrap is not installed";
if (strictMissing !== undefined)
  console.warn(`skipping the Python skeleton in the strict sandbox: ${strictMissing}`);

const { work, env, rukh } = authorWork("rukh-cli-python-", "/usr/bin:/bin", true);
const pkg = join(work, "py");

describe.skipIf(missing !== undefined)(
  missing === undefined ? "ext init --lang python" : `skipped: ${missing}`,
  () => {
    it("writes a package whose tests pass and that validates, with the runtime beside its program", () => {
      const made = rukh("ext", "init", pkg, "--id", "jane.py", "--lang", "python");
      expect(made.status, made.stderr).toBe(0);
      expect(made.stdout).toContain("bin/rukh_ipc.py");
      expect(readFileSync(join(pkg, "bin", "rukh_ipc.py"), "utf8")).toContain("rukh.ipc/1");
      expect(existsSync(join(pkg, "node_modules"))).toBe(false);
      const tested = spawnSync(PYTHON, ["-m", "unittest", "discover", "-s", "test"], {
        cwd: pkg,
        encoding: "utf8",
      });
      expect(tested.status, tested.stderr).toBe(0);
      expect(tested.stderr).toContain("Ran 1 test");
      // Its tests wrote no bytecode into the package, whose every file is published.
      expect(readdirSync(join(pkg, "bin")).sort()).toEqual([
        "handlers.py",
        "hello.py",
        "rukh_ipc.py",
      ]);
      const checked = rukh("ext", "validate", pkg);
      expect(checked.status, checked.stdout).toBe(0);
      expect(checked.stdout).toContain("valid — jane.py@0.1.0, 1 command; unsigned");
    });

    it("says when a program's interpreter is missing here, before any call fails", () => {
      const file = join(pkg, "bin", "hello.py");
      const text = readFileSync(file, "utf8");
      writeFileSync(file, text.replace("#!/usr/bin/env python3", "#!/usr/bin/env python9"));
      const r = rukh("ext", "validate", pkg);
      expect(r.stdout).toContain(
        "note: bin/hello.py starts with #!/usr/bin/env python9, which this machine does not have on /usr/bin:/bin: its first call would fail",
      );
      writeFileSync(file, text);
      expect(rukh("ext", "validate", pkg).stdout).not.toContain("note:");
    });

    it("runs linked and installed, and an edit on the next call", () => {
      expect(rukh("ext", "link", pkg).status).toBe(0);
      const ran = rukh("py", "hello", "Ada");
      expect(ran.status, ran.stderr).toBe(0);
      expect(ran.stdout).toBe("Hello, Ada!\n");
      const file = join(pkg, "bin", "handlers.py");
      writeFileSync(file, readFileSync(file, "utf8").replace("Hello, ", "Hi, "));
      expect(rukh("py", "hello", "Ada").stdout).toBe("Hi, Ada!\n");
      expect(rukh("ext", "unlink", "jane.py").status).toBe(0);

      const key = JSON.parse(rukh("--json", "keygen", "jane", "--out", work).stdout).result;
      expect(rukh("ext", "sign", pkg, "--key", key.privateKey).status).toBe(0);
      expect(rukh("trust", "add", key.publicKey, "--publisher", "jane").status).toBe(0);
      expect(rukh("ext", "install", pkg).status).toBe(0);
      const json = JSON.parse(rukh("--json", "py", "hello", "Ada").stdout).outcome;
      expect(json).toMatchObject({
        outcome: "succeeded",
        commandResult: { kind: "text", text: "Hi, Ada!\n" },
      });
    });

    it("answers an MCP client through the same core", async () => {
      expect(rukh("expose", "add", "jane.py").status).toBe(0);
      const reply = await call("default");
      expect(reply.result.structuredContent).toMatchObject({
        outcome: "succeeded",
        commandResult: { kind: "text", text: "Hi, Bo!\n" },
      });
    });

    it.skipIf(strictMissing !== undefined)(
      strictMissing === undefined
        ? "runs confined by the strict sandbox"
        : `skipped (strict sandbox): ${strictMissing}`,
      async () => {
        expect(rukh("preset", "allow", "agent", "jane.py/*").status).toBe(0);
        const reply = await call("agent");
        expect(reply.result.structuredContent).toMatchObject({
          outcome: "succeeded",
          commandResult: { kind: "text", text: "Hi, Bo!\n" },
        });
        // An ordinary strict command starts a program with its streams on
        // /dev/null, whether the host runs as root or not.
        const file = join(pkg, "bin", "handlers.py");
        writeFileSync(
          file,
          readFileSync(file, "utf8")
            .replace("from rukh_ipc", "import subprocess\nfrom rukh_ipc")
            .replace(
              'return text_result("Hi, %s!\\n" % ctx.inputs["name"])',
              'r = subprocess.run(["/bin/sh", "-c", "echo from-sh"], capture_output=True, stdin=subprocess.DEVNULL)\n    return text_result("Hi, %s! %s" % (ctx.inputs["name"], r.stdout.decode()))',
            ),
        );
        const manifest = join(pkg, "rukh-extension.json");
        writeFileSync(manifest, readFileSync(manifest, "utf8").replace('"0.1.0"', '"0.2.0"'));
        expect(rukh("ext", "sign", pkg, "--key", join(work, "jane.key")).status).toBe(0);
        expect(rukh("ext", "install", pkg).status).toBe(0);
        const spawned = await call("agent");
        expect(spawned.result.structuredContent).toMatchObject({
          outcome: "succeeded",
          commandResult: { kind: "text", text: "Hi, Bo! from-sh\n" },
        });
      },
    );
  },
);

/** Calls jane.py/hello once through a real `mcp serve` of `preset`. */
async function call(preset: string) {
  const tool = JSON.parse(rukh("--json", "tools", "list", "--preset", preset).stdout).result
    .tools[0];
  const [reply] = await mcpRequests(
    env,
    ["--preset", preset],
    [toolCall(tool.name, { name: "Bo" })],
  );
  return reply!;
}
