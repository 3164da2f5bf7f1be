import { describe, expect, it } from "vitest";
import { completeFor, eraOf } from "../../src/protocol/_era.js";
import { RpcError } from "../../src/protocol/_rpc.js";

const meta = (version: unknown, capabilities: unknown = {}) => ({
  _meta: {
    "io.modelcontextprotocol/protocolVersion": version,
    "io.modelcontextprotocol/clientCapabilities": capabilities,
  },
});

function code(fn: () => unknown): number | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    if (!(e instanceof RpcError)) throw e;
    return e.code;
  }
}

describe("era negotiation", () => {
  it("serves a request with the 2026-07-28 _meta in the modern era, initialized or not", () => {
    expect(eraOf("tools/list", meta("2026-07-28") as never, false)).toBe("modern");
    expect(eraOf("tools/list", meta("2026-07-28") as never, true)).toBe("modern");
  });

  it.each([
    ["an unserved version", meta("2099-01-01"), -32022],
    // The official conformance suite asks with "v999.0.0": any string is a version.
    ["a version that is not a date", meta("v999.0.0"), -32022],
    ["a version that is not a string", meta(20260728), -32602],
    ["capabilities that are not an object", meta("2026-07-28", []), -32602],
    ["no _meta before initialize", {}, -32602],
  ])("answers %s with %i", (_name, params, expected) => {
    expect(code(() => eraOf("tools/list", params as never, false))).toBe(expected);
  });

  it("carries the requested version as sent in -32022", () => {
    try {
      eraOf("tools/list", meta("2099-01-01") as never, false);
    } catch (e) {
      expect((e as RpcError).data).toEqual({ supported: ["2026-07-28"], requested: "2099-01-01" });
    }
  });

  it("serves initialize, ping and anything after initialize in the 2025 era", () => {
    expect(eraOf("initialize", undefined, false)).toBe("legacy");
    expect(eraOf("ping", undefined, false)).toBe("legacy");
    expect(eraOf("tools/list", {}, true)).toBe("legacy");
  });

  it("completes a modern result with its type and the server's name, and leaves a 2025 result alone", () => {
    const info = { name: "rukh", version: "1.0.0" };
    expect(completeFor("legacy", { tools: [] }, info)).toEqual({ tools: [] });
    expect(completeFor("modern", { tools: [], _meta: { x: 1 } }, info)).toEqual({
      tools: [],
      resultType: "complete",
      _meta: { x: 1, "io.modelcontextprotocol/serverInfo": info },
    });
  });
});
