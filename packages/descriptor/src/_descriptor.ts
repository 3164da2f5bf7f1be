// The two ways into a descriptor: from its file bytes, or from a value
// already parsed. Both read with the grammar and report every issue found.

import { type JsonValue, lineColumn, parseJson, type Validation } from "@rukh/json";
import type { DescriptorIssueCode } from "./_codes.js";
import { readDescriptor } from "./_grammar.js";
import * as L from "./_limits.js";
import type { ExtensionDescriptor } from "./_model.js";
import { DescriptorReader } from "./_reader.js";

/**
 * Reads and validates an extension descriptor from its file bytes (strict
 * JSON, exact numbers, size-limited). Reports every problem found, each with a
 * JSON pointer, a stable code and what was expected. An unknown or newer
 * `format` stops reading at once: nothing of it is half-read.
 *
 * @example
 * const r = parseDescriptor(readFileSync("rukh-extension.json"));
 * if (!r.ok) for (const i of r.issues) console.error(`${i.path}: ${i.message}`);
 */
export function parseDescriptor(
  input: Uint8Array | string,
): Validation<ExtensionDescriptor, DescriptorIssueCode> {
  const parsed = parseJson(input, {
    limits: { maxBytes: L.DESCRIPTOR_MAX_BYTES, maxDepth: 48, maxNodes: 200_000 },
    numbers: "exact",
  });
  if (!parsed.ok) {
    const code = parsed.error.code === "too_large" ? "too_long" : "invalid_json";
    const { offset, message } = parsed.error;
    // Where an editor shows it: line and column, then the byte offset.
    const where =
      offset === undefined
        ? message
        : `line ${lineColumn(input, offset)} (byte ${offset}): ${message.replace(/ \(at byte \d+\)$/, "")}`;
    return { ok: false, issues: [{ path: "", code, message: where }] };
  }
  return validateDescriptor(parsed.value);
}

/**
 * Validates an already parsed descriptor value (parse it with `numbers:
 * "exact"` so integer bounds and defaults are judged on their literals).
 *
 * @example
 * validateDescriptor({ format: "rukh.extension/2", id: "acme.hello", version: "1.0.0", publisher: "acme", commands: [] });
 */
export function validateDescriptor(
  value: JsonValue,
): Validation<ExtensionDescriptor, DescriptorIssueCode> {
  const r = new DescriptorReader();
  return r.result(readDescriptor(r, value));
}
