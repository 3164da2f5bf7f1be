// What of a registry may be shown: no user info, no token, no password.
import { describe, expect, it } from "vitest";
import { configuredSecrets, quoted, redactedText, registryAddress } from "../src/_redact.js";

describe("registryAddress", () => {
  it.each([
    ["http://user:secret@127.0.0.1:4873/", "http://127.0.0.1:4873/"],
    ["https://t0k3n@registry.test/npm/", "https://registry.test/npm/"],
    ["https://registry.test/npm/?token=x#frag", "https://registry.test/npm/"],
    ["https://registry.test/", "https://registry.test/"],
  ])("%s is shown as %s", (configured, shown) => {
    expect(registryAddress(configured)).toBe(shown);
  });
});

describe("redactedText", () => {
  it.each([
    [
      "a password in an address",
      "GET http://jane:s3cret@r.test/x failed",
      "GET http://r.test/x failed",
    ],
    ["a token for a user name", "at (https://t0k3nvalue@r.test/)", "at (https://r.test/)"],
    ["an npm token", `npm_${"a".repeat(36)} leaked`, "[REDACTED_NPM_SECRET] leaked"],
    [
      "an authorization header",
      "authorization: Bearer abc.def-1",
      "authorization: [REDACTED_AUTH_HEADER]",
    ],
  ])("removes %s", (_what, text, shown) => {
    expect(redactedText(text)).toBe(shown);
  });

  it("removes each credential it is given, and leaves short ones to the address rules", () => {
    expect(redactedText("token-123456 and abc", ["token-123456", "abc"])).toBe("*** and abc");
  });
});

describe("configuredSecrets", () => {
  it("finds tokens, passwords (as written and decoded) and user info of registries", () => {
    const found = configuredSecrets({
      registry: "http://jane:s3cret-pw@r.test/",
      "@acme:registry": "https://acme-t0ken@acme.test/",
      "//r.test/:_authToken": "tok-123456",
      "//r.test/:_password": Buffer.from("pass-word-1").toString("base64"),
      "//r.test/:_auth": Buffer.from("joe:auth-pass").toString("base64"),
      userAgent: "npm/10",
    });
    for (const s of ["s3cret-pw", "acme-t0ken", "tok-123456", "pass-word-1", "auth-pass"])
      expect(found).toContain(s);
    expect(found).not.toContain("npm/10");
  });
});

it("quotes registry text on one line, redacted and cut", () => {
  expect(quoted("1.0.1\nrow")).toBe('"1.0.1\\nrow"');
  expect(quoted("see http://u:p4ss@h.test/")).toBe('"see http://h.test/"');
  expect(quoted("x".repeat(200))).toBe(`"${"x".repeat(120)}…"`);
  expect(quoted(7)).toBe('"7"');
});
