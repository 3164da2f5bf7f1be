// The managed command the benchmark spawns: one trivial handler and one echo.
import { runCommandProcess, textResult } from "../dist/runtime/index.js";

await runCommandProcess({
  handlers: {
    "bench.ipc/noop": () => textResult("ok"),
    "bench.ipc/echo": (ctx) => textResult(ctx.inputs.text),
  },
});
