import { parseJson } from "../dist/index.js";

// A realistic 1 MiB JSON-RPC request: a tools/call carrying ~1,300 file
// records (text with escapes and some non-ASCII), inside the node limit.
function realisticMessage() {
  const files = [];
  let i = 0;
  const line = 'const x = "value"; // naïve café — ok\n\tif (a < b) { return a + "\\\\"; }\n';
  while (true) {
    const content = `${line.repeat(11)}#${i}`;
    files.push({ path: `src/module_${i}/index.ts`, content });
    const msg = {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "files__x", arguments: { files } },
    };
    if (Buffer.byteLength(JSON.stringify(msg)) > 1_040_000)
      return Buffer.from(JSON.stringify(msg), "utf8");
    i++;
  }
}

function manyMembers(n) {
  const obj = {};
  for (let i = 0; i < n; i++) obj[`k${i}`] = i;
  return Buffer.from(
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: obj }),
    "utf8",
  );
}

export default async function (suite) {
  const msg = realisticMessage();
  const check = parseJson(msg);
  if (!check.ok) throw check.error;
  await suite.compare(`json: 1 MiB JSON-RPC message (${msg.length} B) from bytes`, {
    baseline: ["Buffer→string + JSON.parse", () => JSON.parse(msg.toString("utf8"))],
    cases: [["parseJson (strict, bytes)", () => parseJson(msg)]],
    samples: 40,
  });

  const small = manyMembers(100_000);
  const big = manyMembers(1_000_000).subarray(0); // over 1 MiB: rejected by size first
  const tenK = manyMembers(10_000);
  await suite.compare("json: over-limit message, early rejection", {
    baseline: [
      `JSON.parse, 100,000 members (${small.length} B)`,
      () => JSON.parse(small.toString("utf8")),
    ],
    cases: [
      ["parseJson rejects 10,000 members", () => parseJson(tenK)],
      [
        "parseJson rejects 100,000 members",
        () => parseJson(small, { limits: { maxBytes: 4 << 20 } }),
      ],
      [`parseJson rejects ${big.length} B (size)`, () => parseJson(big)],
    ],
    samples: 30,
    batch: 5,
  });
}
