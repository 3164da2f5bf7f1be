// A valid descriptor with every kind of text in it, for the text rules' tests.
import { validateDescriptor } from "../src/index.js";

// biome-ignore lint/suspicious/noExplicitAny: the tests edit a descriptor member by member
export type Draft = Record<string, any>;

/** A valid descriptor, edited by `place`. */
export function descriptor(place: (d: Draft) => void): Record<string, unknown> {
  const d: Draft = {
    format: "rukh.extension/2",
    id: "acme.files",
    version: "1.0.0",
    publisher: "acme",
    summary: "File tools",
    groups: [{ path: ["files"], summary: "Work with files", description: "All of them." }],
    commands: [
      {
        id: "count",
        path: ["files", "count"],
        summary: "Count lines",
        description: "Counts the lines of each file.",
        inputs: [
          { id: "name", type: "string", summary: "A name", description: "Any.", default: "all" },
          { id: "mode", type: "enum", values: ["fast", "exact"], summary: "Mode" },
        ],
        execute: {
          mapping: "managed",
          program: "bin/count.mjs",
          runtime: "node",
          result: {
            kind: "structured",
            schema: {
              type: "object",
              title: "Counts",
              description: "What was counted.",
              properties: { total: { type: "integer", description: "Lines." } },
              required: ["total"],
              additionalProperties: false,
            },
          },
        },
        machine: { eligible: true, requiredFeatures: ["rukh.command-result/1"] },
      },
    ],
  };
  place(d);
  return d;
}

/** The issues `validateDescriptor` finds in `d`, none when it is valid. */
export const issues = (d: Record<string, unknown>) => {
  const r = validateDescriptor(d as never);
  return r.ok ? [] : r.issues;
};
