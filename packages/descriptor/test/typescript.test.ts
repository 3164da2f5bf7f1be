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
      for (const c of d.commands) {
        const entry = `readonly ${JSON.stringify(c.identity)}: {`;
        // A passthrough program gets its arguments, not a handler.
        if (c.execute.mapping === "managed") expect(types, name).toContain(entry);
        else expect(types, name).not.toContain(entry);
      }
      expect(types.split("{").length, name).toBe(types.split("}").length);
      expect(types, name).toContain("export type Handlers = {");
    }
  });

  it("writes types the compiler accepts for nested arrays and empty objects", () => {
    const types = descriptorTypes(
      descriptor(
        JSON.stringify({
          format: "rukh.extension/2",
          id: "acme.deep",
          version: "1.0.0",
          publisher: "acme",
          commands: [
            {
              id: "grid",
              path: ["grid"],
              summary: "A grid",
              execute: {
                mapping: "managed",
                program: "bin/g.mjs",
                runtime: "node",
                result: {
                  kind: "structured",
                  schema: {
                    type: "object",
                    properties: {
                      rows: {
                        type: "array",
                        maxItems: 4,
                        items: { type: "array", maxItems: 4, items: { type: "integer" } },
                      },
                      none: { type: "object", properties: {}, additionalProperties: false },
                    },
                    additionalProperties: false,
                  },
                },
              },
            },
          ],
        }),
      ),
    );
    expect(types).toContain("readonly rows?: readonly (readonly number[])[];");
    expect(types).toContain("readonly none?: { readonly [key: string]: never };");
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
    expect(types).toContain('import type { CommandHandler, TypedHandler } from "./vendor/ipc.js";');
    expect(types).toContain("readonly result: undefined;");
    expect(types).toContain("readonly n?: number;");
    expect(types).toContain("? CommandHandler<Inputs<K>>");
  });
});
