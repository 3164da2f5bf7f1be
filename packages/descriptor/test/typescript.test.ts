import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { descriptorTypes, parseDescriptor } from "../src/index.js";

const dir = fileURLToPath(new URL("../../../fixtures/descriptors/valid/", import.meta.url));
const descriptor = (text: string) => {
  const parsed = parseDescriptor(text);
  if (!parsed.ok) throw new Error(parsed.issues.map((i) => i.message).join("; "));
  return parsed.value;
};

describe("descriptorTypes", () => {
  it("gives every command of every valid fixture an entry, a handler and balanced braces", () => {
    for (const name of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
      const d = descriptor(readFileSync(`${dir}${name}`, "utf8"));
      const types = descriptorTypes(d);
      for (const c of d.commands)
        expect(types, name).toContain(`readonly ${JSON.stringify(c.identity)}: {`);
      expect(types.split("{").length, name).toBe(types.split("}").length);
      expect(types, name).toContain("export type Handlers = {");
    }
  });

  it("types format 1 commands as untyped-result handlers and names the runtime module given", () => {
    const types = descriptorTypes(
      descriptor(
        JSON.stringify({
          format: "rukh.extension/1",
          id: "acme.old",
          version: "1.0.0",
          publisher: "acme",
          commands: [
            {
              id: "go",
              path: ["go"],
              summary: "Go",
              inputs: [{ id: "n", type: "integer", summary: "N" }],
              execute: {
                mapping: "managed",
                program: "bin/go.mjs",
                runtime: "node",
                lifetime: "foreground",
              },
            },
          ],
        }),
      ),
      { runtimeModule: "./vendor/ipc.js" },
    );
    expect(types).toContain('import type { CommandHandler } from "./vendor/ipc.js";');
    expect(types).toContain("readonly result: unknown;");
    expect(types).toContain("readonly n?: number;");
    expect(types).toContain("CommandHandler<Inputs<K>>");
  });
});
