import { generateKeyPairSync } from "node:crypto";
import { unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { publicKeyBase64, validatePackageDir } from "../../src/index.js";
import { makePackage, ownerConfig, tempDir, textExecute } from "../_helpers.js";

// validatePackageDir: install's checks of the package itself, all at once.
const work = tempDir();
const descriptor = {
  format: "rukh.extension/2",
  id: "acme.files",
  version: "1.0.0",
  publisher: "acme",
  commands: [
    {
      id: "a",
      path: ["a"],
      summary: "A",
      inputs: [],
      execute: textExecute(),
    },
  ],
};

describe("validatePackageDir", () => {
  it("verifies the signature with the key the profile trusts, and says so when it does not verify", async () => {
    const dir = await makePackage(work, descriptor);
    const trusted = await validatePackageDir(dir, ownerConfig() as never);
    expect(trusted).toMatchObject({
      ok: true,
      problems: [],
      signature: { state: "current", publisher: "acme", verified: true },
    });
    expect(trusted.descriptor?.id).toBe("acme.files");
    // Without a profile nothing can verify it; it is still current.
    expect((await validatePackageDir(dir)).signature).toEqual({
      state: "current",
      publisher: "acme",
    });
    const other = publicKeyBase64(generateKeyPairSync("ed25519").publicKey);
    const wrong = await validatePackageDir(
      dir,
      ownerConfig({ trustedPublishers: [{ id: "acme", publicKey: other }] }) as never,
    );
    expect(wrong.ok).toBe(false);
    expect(wrong.problems).toEqual([
      expect.objectContaining({ file: "rukh-signature.json", code: "bad_signature" }),
    ]);
  });

  it("collects a descriptor problem, a missing program and an unresolved import together", async () => {
    const dir = await makePackage(work, {
      ...descriptor,
      commands: [
        { ...descriptor.commands[0], colour: "red" },
        {
          ...descriptor.commands[0],
          id: "b",
          path: ["b"],
          execute: { ...descriptor.commands[0]!.execute, program: "bin/none.mjs" },
        },
      ],
    });
    let r = await validatePackageDir(dir);
    expect(r.problems.map((p) => [p.file, p.path, p.code])).toEqual([
      ["rukh-extension.json", "/commands/0/colour", "unknown_field"],
    ]);
    // With the descriptor fixed, the program and import checks run.
    const fixed = {
      ...descriptor,
      commands: [
        descriptor.commands[0],
        {
          ...descriptor.commands[0],
          id: "b",
          path: ["b"],
          execute: { ...descriptor.commands[0]!.execute, program: "bin/none.mjs" },
        },
      ],
    };
    writeFileSync(join(dir, "rukh-extension.json"), JSON.stringify(fixed));
    writeFileSync(join(dir, "bin", "run.mjs"), 'import "left-pad";\n');
    unlinkSync(join(dir, "rukh-signature.json"));
    r = await validatePackageDir(dir);
    expect(r.signature).toEqual({ state: "unsigned" });
    expect(r.problems.map((p) => p.code).sort()).toEqual(["missing_program", "unresolved_import"]);
  });
});
