import { generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { publicKeyBase64, StateDirectory } from "@rukh/profile";
import { FIXTURE_PUB, removeDir, tempDir, writeHiFixturePackage } from "@rukh/testkit";
import { RUKH_BIN, runCli, startCli } from "@rukh/testkit/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The trust lifecycle from the built CLI, tried as a trusted-but-hostile
// publisher and as an owner making mistakes would.
const work = tempDir("rukh-cli-trust-");
const root = join(work, "home");
const rukh = (...args: string[]) => runCli({ args, stateDir: root });
afterAll(() => removeDir(work));

const acmeKey = join(work, "acme.pub");
const evil = generateKeyPairSync("ed25519").privateKey;
const evilKey = join(work, "evil.pub");
const rotated = generateKeyPairSync("ed25519").privateKey;
const rotatedKey = join(work, "acme-2027.pub");

function pkg(
  id: string,
  version: string,
  options: {
    path?: string[];
    signer?: { key: typeof evil; publisher: string };
    text?: string;
  } = {},
): Promise<string> {
  return writeHiFixturePackage({
    parent: work,
    id,
    version,
    ...(options.path !== undefined && { path: options.path }),
    ...(options.text !== undefined && { text: options.text }),
    ...(options.signer && { signer: options.signer, publisher: options.signer.publisher }),
  });
}

beforeAll(() => {
  writeFileSync(acmeKey, `${FIXTURE_PUB}\n`);
  writeFileSync(evilKey, `${publicKeyBase64(evil)}\n`);
  writeFileSync(rotatedKey, `${publicKeyBase64(rotated)}\n`);
  expect(rukh("trust", "add", acmeKey, "--publisher", "acme").status).toBe(0);
  expect(rukh("trust", "add", evilKey, "--publisher", "evil").status).toBe(0);
});

describe("versions", () => {
  it("upgrades, refuses a downgrade and a reused version, and says exactly what it did", async () => {
    const v100 = await pkg("acme.tools", "1.0.0");
    const v110 = await pkg("acme.tools", "1.1.0");
    const swapped = await pkg("acme.tools", "1.1.0", { text: "not what was signed off" });
    const first = rukh("ext", "install", v100);
    expect(first.stderr).toBe("");
    expect(first.stdout).toMatch(
      /^installed acme\.tools 1\.0\.0; published profile revision [0-9a-f]{12}\n$/,
    );
    expect(rukh("ext", "install", v110).stdout).toMatch(
      /^upgraded acme\.tools 1\.0\.0 → 1\.1\.0; /,
    );
    const down = rukh("ext", "install", v100);
    expect(down.status).toBe(4);
    expect(down.stderr).toBe(
      "rukh: downgrade: acme.tools 1.0.0 is lower than the installed 1.1.0; pass --allow-downgrade to install it anyway\nSee:\n  $ rukh ext list\n",
    );
    const reused = rukh("ext", "install", swapped);
    expect(reused.status).toBe(4);
    expect(reused.stderr).toMatch(
      /^rukh: version_reused: acme\.tools 1\.1\.0 is installed with other content/,
    );
    expect(rukh("acme-tools").stdout).toBe("acme.tools 1.1.0");
    const again = rukh("--json", "ext", "install", v110);
    expect(JSON.parse(again.stdout).result).toMatchObject({ published: false });
    expect(rukh("ext", "install", v100, "--allow-downgrade").stdout).toMatch(
      /^downgraded acme\.tools 1\.1\.0 → 1\.0\.0; /,
    );
  });
});

describe("a rebuild at the same precedence", () => {
  it("is refused as a same-precedence rebuild, says what to run, and with it is a replacement, not an upgrade", async () => {
    const v101 = await pkg("acme.rebuilt", "1.0.1");
    const older = await pkg("acme.rebuilt", "1.0.1+rebuild", { text: "older content" });
    expect(rukh("ext", "install", v101).status).toBe(0);
    const refused = rukh("ext", "install", older);
    expect(refused.status).toBe(4);
    expect(refused.stderr).toMatch(
      /^rukh: version_reused: acme\.rebuilt 1\.0\.1\+rebuild has the same precedence as the installed 1\.0\.1 \(build metadata does not order versions\) but other content \([0-9a-f]{12}, now [0-9a-f]{12}\): it is a same-precedence rebuild, not an upgrade; pass --allow-downgrade to replace the installed 1\.0\.1 with it\nSee:\n {2}\$ rukh ext list\n$/,
    );
    expect(rukh("acme-rebuilt").stdout).toBe("acme.rebuilt 1.0.1");
    const swapped = rukh("--json", "ext", "install", older, "--allow-downgrade");
    expect(swapped.status, swapped.stderr).toBe(0);
    expect(JSON.parse(swapped.stdout).result.changes).toEqual([
      { id: "acme.rebuilt", change: "replaced", from: "1.0.1", to: "1.0.1+rebuild" },
    ]);
    expect(rukh("acme-rebuilt").stdout).toBe("older content");
    expect(rukh("ext", "install", v101, "--allow-downgrade").stdout).toMatch(
      /^replaced acme\.rebuilt 1\.0\.1\+rebuild → 1\.0\.1 \(the same precedence\); /,
    );
    expect(rukh("ext", "remove", "acme.rebuilt").status).toBe(0);
  });
});

describe("publisher keys", () => {
  it("never replaces a key on add; rotate does, and names what it affects; ids are never guessed", async () => {
    const stolen = rukh("trust", "add", evilKey, "--publisher", "acme");
    expect(stolen.status).toBe(4);
    expect(stolen.stderr).toBe(
      `rukh: publisher acme is already trusted with another key; to replace it, run: rukh trust rotate acme ${evilKey}\nSee:\n  $ rukh trust list\n`,
    );
    const guessed = rukh("trust", "add", evilKey);
    expect(guessed.status).toBe(2);
    expect(guessed.stderr).toContain("--publisher is required");
    // A package signed by the other key cannot replace acme's extension.
    const forged = await pkg("acme.tools", "9.0.0", { signer: { key: evil, publisher: "acme" } });
    expect(rukh("ext", "install", forged).stderr).toMatch(/bad_signature/);

    const r = rukh("trust", "rotate", "acme", rotatedKey);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /^rotated publisher acme's key \(installed with the old key, and staying installed: acme\.tools@1\.0\.0; their next versions must be signed with the new key\); published/,
    );
    expect(rukh("acme-tools").stdout).toBe("acme.tools 1.0.0");
    const next = await pkg("acme.tools", "2.0.0", { signer: { key: rotated, publisher: "acme" } });
    expect(rukh("ext", "install", next).stdout).toMatch(/^upgraded acme\.tools 1\.0\.0 → 2\.0\.0/);
    expect(rukh("trust", "rotate", "acme", rotatedKey).stderr).toContain(
      "already trusted with this key",
    );
  });

  it("keeps each publisher inside its namespaces and CLI groups, and off the brand's own commands", async () => {
    const taken = rukh(
      "ext",
      "install",
      await pkg("acme.payments", "1.0.0", { signer: { key: evil, publisher: "evil" } }),
    );
    expect(taken.status).toBe(4);
    expect(taken.stderr).toBe(
      'rukh: namespace_denied: publisher "evil" may install extension ids in evil.*; "acme.payments" is outside them\nSee:\n  $ rukh trust list\n',
    );
    const under = rukh(
      "ext",
      "install",
      await pkg("evil.pay", "1.0.0", {
        path: ["tools", "pay"],
        signer: { key: evil, publisher: "evil" },
      }),
    );
    expect(under.status).toBe(4);
    expect(under.stderr).toMatch(/reserved_path: evil\.pay declares "tools pay"/);
    const admin = rukh(
      "ext",
      "install",
      await pkg("evil.doctor", "1.0.0", {
        path: ["doctor"],
        signer: { key: evil, publisher: "evil" },
      }),
    );
    expect(admin.stderr).toMatch(/reserved_path: evil\.doctor declares "doctor"/);
    const own = await pkg("evil.pay", "1.0.0", { signer: { key: evil, publisher: "evil" } });
    expect(rukh("ext", "install", own).status).toBe(0);
    expect(rukh("evil-pay").stdout).toBe("evil.pay 1.0.0");
  });

  it("trust remove disables the publisher's extensions in the same publication", async () => {
    const state = new StateDirectory(root);
    const before = (await state.history()).length;
    const r = rukh("trust", "remove", "evil");
    expect(r.stdout).toMatch(
      /^stopped trusting publisher evil; disabled evil\.pay@1\.0\.0 \(remove with: rukh ext remove <id>\); published/,
    );
    expect((await state.history()).length).toBe(before + 1);
    expect(rukh("evil-pay").status).toBe(2);
    expect(rukh("ext", "enable", "evil.pay").stderr).toMatch(/untrusted_publisher/);
    expect(rukh("trust", "list").stdout).toBe(`acme  ${publicKeyBase64(rotated)}  acme.*\n`);
  });
});

describe("truthful administration", () => {
  it("refuses to expose what is not installed, and says when nothing changed", () => {
    const ghost = rukh("expose", "add", "acme.nonexistent");
    expect(ghost.status).toBe(4);
    expect(ghost.stderr).toMatch(
      /^rukh: acme\.nonexistent is not installed; installed: acme\.tools, evil\.pay\nSee:\n {2}\$ rukh ext list\n$/,
    );
    expect(rukh("expose", "add", "acme.tools").stdout).toMatch(/^exposed acme\.tools; published/);
    expect(rukh("expose", "add", "acme.tools").stdout).toMatch(
      /^nothing changed; profile revision/,
    );
    const config = JSON.parse(rukh("--json", "profile", "show").stdout).result.config;
    const file = join(work, "same.json");
    writeFileSync(file, JSON.stringify(config));
    expect(rukh("profile", "set-config", file).stdout).toMatch(/^nothing changed; /);
  });

  it("exposes, allows and hides several at once, in one publication or none", async () => {
    const state = new StateDirectory(root);
    const before = (await state.history()).length;
    // One unknown target refuses them all: nothing is published.
    const mixed = rukh("expose", "add", "evil.pay", "acme.tools/nope");
    expect(mixed.status).toBe(4);
    expect(mixed.stderr).toContain("acme.tools has no enabled command acme.tools/nope");
    expect((await state.history()).length).toBe(before);
    expect(rukh("expose", "add", "evil.pay", "acme.tools/hi").stdout).toMatch(
      /^exposed evil\.pay, acme\.tools\/hi; published/,
    );
    expect(rukh("preset", "allow", "agent", "evil.pay/*", "acme.tools/hi").status).toBe(0);
    expect((await state.history()).length).toBe(before + 2);
    const config = () => JSON.parse(rukh("--json", "profile", "show").stdout).result.config;
    expect(config().exposure.extensions).toContain("evil.pay");
    expect(config().exposure.commands).toContain("acme.tools/hi");
    expect(config().presets.agent.commands).toEqual(
      expect.arrayContaining(["evil.pay/*", "acme.tools/hi"]),
    );
    expect(rukh("preset", "deny", "agent", "evil.pay/*", "acme.tools/hi").status).toBe(0);
    expect(rukh("expose", "remove", "evil.pay", "acme.tools/hi").status).toBe(0);
    expect(config().exposure.commands).not.toContain("acme.tools/hi");
    expect(config().exposure.extensions).not.toContain("evil.pay");
    expect(config().presets.agent.commands).not.toContain("evil.pay/*");
  });

  it("treats preset names as data: constructor and __proto__ are no presets", () => {
    for (const name of ["constructor", "__proto__", "toString"]) {
      expect(rukh("preset", "show", name).status).toBe(2);
      expect(rukh("preset", "allow", name, "acme.tools/*").status).toBe(2);
      const serve = rukh("mcp", "serve", "--preset", name);
      expect(serve.status).toBe(2);
      expect(serve.stderr).toContain(`no preset "${name}"`);
    }
  });

  it("loses no concurrent edit: each one lands or fails with conflict", async () => {
    const run = async (i: number) => {
      const pattern = `acme.tools/c${i}`;
      const r = await startCli({ args: ["preset", "allow", "agent", pattern], stateDir: root });
      return { code: r.status, pattern, err: r.stderr };
    };
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => run(i)));
    const config = JSON.parse(rukh("--json", "profile", "show").stdout).result.config;
    for (const r of results) {
      if (r.code === 0) expect(config.presets.agent.commands).toContain(r.pattern);
      else {
        expect(r.code).toBe(4);
        expect(r.err).toMatch(/conflict: the active revision changed/);
      }
    }
    expect(results.filter((r) => r.code === 0).length).toBeGreaterThan(0);
  }, 60_000);
});

it("reserves the first word of every administrative command for the brand", async () => {
  const { adminBuiltins } = await import("../../src/admin/index.js");
  const { RESERVED_CLI_WORDS } = await import("@rukh/profile/config");
  const words = adminBuiltins({ brand: "rukh", executable: RUKH_BIN, version: "0.0.0" }).map(
    (b) => b.path[0]!,
  );
  expect(words.filter((w) => !RESERVED_CLI_WORDS.includes(w))).toEqual([]);
});

it("declares every administrative command's inputs, and every declaration validates", async () => {
  const { adminBuiltins } = await import("../../src/admin/index.js");
  const { builtinCliSpec } = await import("@rukh/cli");
  const { validateCommandDeclarations } = await import("@rukh/descriptor");
  const builtins = adminBuiltins({ brand: "rukh", executable: RUKH_BIN, version: "0.0.0" });
  for (const b of builtins) {
    expect(b.inputs, b.path.join(" ")).toBeDefined();
    expect((await builtinCliSpec(b))?.path, b.path.join(" ")).toEqual(b.path);
  }
  // All of them as one list, as an extension's commands are checked: each route once too.
  const all = validateCommandDeclarations(
    builtins.map((b) => ({
      path: [...b.path],
      summary: b.summary,
      ...(b.description !== undefined && { description: b.description }),
      inputs: [...(b.inputs ?? [])],
    })),
  );
  expect(all.ok ? [] : all.issues).toEqual([]);
});

describe("profile gc", () => {
  it("reports what it would remove, then removes it; the active profile still runs", () => {
    const dry = rukh("profile", "gc", "--keep", "2", "--max-age-days", "1", "--dry-run");
    expect(dry.status).toBe(0);
    // Everything here is younger than a day: only age keeps it.
    expect(dry.stdout).toMatch(
      /^would remove 0 revisions and 0 stored packages \(0 KiB\); kept \d+ revisions\n$/,
    );
    const bad = rukh("profile", "gc", "--keep", "0");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--keep: got 0; expected at least 1");
    const json = JSON.parse(rukh("--json", "profile", "gc", "--dry-run").stdout).result;
    expect(json).toMatchObject({ dryRun: true, revisions: [], packages: [] });
    expect(rukh("acme-tools").status).toBe(0);
  });
});
