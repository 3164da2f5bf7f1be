import type { JsonValue } from "@rukh/json";
import { describe, expect, it } from "vitest";
import {
  type CompletionMessage,
  checkMessage,
  decodeMessage,
  encodeMessage,
} from "../src/_messages.js";
import { codeOf } from "./_helpers.js";

const nonce = "ab".repeat(32);
const invoke = {
  type: "invoke",
  invocationId: "inv-1",
  command: "acme.git/status",
  inputs: { path: ".", depth: 2 },
  explicitInputIds: ["path"],
  remainingMs: 1000,
  features: ["command-result/1"],
};
const completion = { type: "completion", outcome: "succeeded" };

describe("messages from the host", () => {
  it.each<[string, unknown]>([
    ["invoke", invoke],
    ["invoke without explicit ids", { ...invoke, explicitInputIds: [] }],
    ["cancel", { type: "cancel", cause: "deadline" }],
  ])("accepts %s", (_, value) => {
    expect(checkMessage(value, "host")).toBe(value);
  });

  it.each<[string, unknown, string]>([
    ["a non-object", [], "invalid_message"],
    ["an unknown type", { type: "reset" }, "invalid_message"],
    ["a child message", completion, "invalid_message"],
    ["an unknown member", { ...invoke, extra: 1 }, "invalid_message"],
    ["a missing member", { ...invoke, features: undefined }, "invalid_message"],
    ["an explicit id not in inputs", { ...invoke, explicitInputIds: ["nope"] }, "invalid_message"],
    [
      "a duplicate explicit id",
      { ...invoke, explicitInputIds: ["path", "path"] },
      "invalid_message",
    ],
    [
      "a non-snake input id",
      { ...invoke, inputs: { Path: 1 }, explicitInputIds: [] },
      "invalid_message",
    ],
    ["a command without extension", { ...invoke, command: "status" }, "invalid_message"],
    ["a zero deadline", { ...invoke, remainingMs: 0 }, "invalid_message"],
    ["a fractional deadline", { ...invoke, remainingMs: 1.5 }, "invalid_message"],
    ["an over-long deadline", { ...invoke, remainingMs: 86_400_001 }, "invalid_message"],
    ["a duplicate feature", { ...invoke, features: ["a", "a"] }, "invalid_message"],
    ["an unknown cause", { type: "cancel", cause: "timeout" }, "invalid_message"],
  ])("rejects %s", (_, value, code) => {
    expect(codeOf(() => checkMessage(JSON.parse(JSON.stringify(value)), "host"))).toBe(code);
  });
});

describe("messages from the child", () => {
  it.each<[string, unknown]>([
    ["hello", { type: "hello", protocol: "rukh.ipc/1", hostNonce: nonce }],
    ["a bare completion", completion],
    [
      "a full completion",
      {
        ...completion,
        outcome: "command_failed",
        commandResult: null,
        effects: ["https://tracker.example/x"],
        message: "no",
      },
    ],
    ["log", { type: "log", level: "warn", message: "" }],
    ["progress", { type: "progress", progress: 0.5, total: 1, message: "half" }],
  ])("accepts %s", (_, value) => {
    expect(checkMessage(value, "child")).toBe(value);
  });

  it.each<[string, unknown]>([
    ["an unknown outcome", { ...completion, outcome: "cancelled" }],
    ["an empty effect", { ...completion, effects: [""] }],
    ["an effect with a newline", { ...completion, effects: ["a\nb"] }],
    // The effects contract's forms only: an https URL as it prints back, or a URN.
    ["a file: effect", { ...completion, effects: ["file:///etc/passwd"] }],
    ["a javascript: effect", { ...completion, effects: ["javascript:alert(1)"] }],
    ["an http: effect", { ...completion, effects: ["http://tracker.example/1"] }],
    ["an effect with user info", { ...completion, effects: ["https://u@tracker.example/1"] }],
    ["an effect with a fragment", { ...completion, effects: ["https://tracker.example/1#x"] }],
    ["an effect a URL parser rewrites", { ...completion, effects: ["https://Tracker.example/1"] }],
    ["a relative effect", { ...completion, effects: ["/issues/1"] }],
    ["a URN without its NSS", { ...completion, effects: ["urn:acme:"] }],
    ["an over-long message", { ...completion, message: "é".repeat(2049) }],
    ["an unknown log level", { type: "log", level: "trace", message: "x" }],
    ["an over-long log line", { type: "log", level: "info", message: "x".repeat(4097) }],
    ["negative progress", { type: "progress", progress: -1 }],
    ["a zero total", { type: "progress", progress: 0, total: 0 }],
    ["an invoke", invoke],
    [
      "an uppercase nonce",
      { type: "hello", protocol: "rukh.ipc/1", hostNonce: nonce.toUpperCase() },
    ],
    [
      "a hello with a child nonce",
      { type: "hello", protocol: "rukh.ipc/1", hostNonce: nonce, childNonce: nonce },
    ],
  ])("rejects %s", (_, value) => {
    expect(codeOf(() => checkMessage(value, "child"))).toBe("invalid_message");
  });

  it("names another protocol version distinctly", () => {
    expect(
      codeOf(() =>
        checkMessage({ type: "hello", protocol: "rukh.ipc/2", hostNonce: nonce }, "child"),
      ),
    ).toBe("unsupported_protocol");
  });
});

describe("decoding and encoding", () => {
  it.each<[string, string, string]>([
    ["a duplicate key", '{"type":"cancel","cause":"client","cause":"owner"}', "invalid_json"],
    ["a trailing comma", '{"type":"cancel","cause":"client",}', "invalid_json"],
    [
      "an unsafe integer",
      `{"type":"cancel","cause":"client","n":9007199254740993}`,
      "invalid_json",
    ],
    ["invalid UTF-8", '{"type":"cancel","cause":"\xff"}', "invalid_json"],
  ])("rejects %s", (_, text, code) => {
    expect(codeOf(() => decodeMessage(Buffer.from(text, "latin1"), "host"))).toBe(code);
  });

  it("writes the RFC 8785 form and refuses what a receiver would reject", () => {
    expect(encodeMessage({ type: "cancel", cause: "client" }, "host").toString()).toBe(
      '{"cause":"client","type":"cancel"}',
    );
    expect(
      codeOf(() => encodeMessage({ type: "log", level: "info", message: "\ud800" }, "child")),
    ).toBe("invalid_message");
    let nested: JsonValue = [];
    for (let i = 0; i < 50; i++) nested = [nested];
    const deep: CompletionMessage = {
      type: "completion",
      outcome: "succeeded",
      commandResult: nested,
    };
    expect(codeOf(() => encodeMessage(deep, "child"))).toBe("invalid_json");
  });
});
