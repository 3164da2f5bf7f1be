import { describe, expect, it } from "vitest";
import { validateDescriptor } from "../src/index.js";
import { descriptor, issues } from "./_descriptor.js";

// A command's word on running as an MCP task: rukh.extension/3 only, one of
// three values, and only for a command MCP may call.
const found = (d: Record<string, unknown>) => issues(d).map((i) => [i.path, i.code, i.message]);

describe("a command's task", () => {
  it.each(["forbidden", "optional", "required"])("reads %s in rukh.extension/3", (task) => {
    const d = descriptor((x) => {
      x.format = "rukh.extension/3";
      x.commands[0].task = task;
    });
    const r = validateDescriptor(d as never);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.value.commands[0]!.task).toBe(task);
  });

  it("is absent (forbidden) unless declared", () => {
    const r = validateDescriptor(descriptor((x) => (x.format = "rukh.extension/3")) as never);
    expect(r.ok && r.value.commands[0]!.task).toBeUndefined();
  });

  it("is refused in an earlier format, naming the format it needs", () => {
    expect(found(descriptor((x) => (x.commands[0].task = "optional")))).toEqual([
      [
        "/commands/0/task",
        "requires_v3",
        "task is a rukh.extension/3 field; expected format rukh.extension/3",
      ],
    ]);
  });

  it("is one of forbidden, optional, required", () => {
    const d = descriptor((x) => {
      x.format = "rukh.extension/3";
      x.commands[0].task = "sometimes";
    });
    expect(found(d)).toEqual([
      [
        "/commands/0/task",
        "invalid_value",
        expect.stringContaining("forbidden, optional, required"),
      ],
    ]);
  });

  it("is optional or required only for a command MCP may call", () => {
    const d = descriptor((x) => {
      x.format = "rukh.extension/3";
      x.commands[0].task = "required";
      x.commands[0].machine.eligible = false;
    });
    expect(found(d)).toEqual([
      [
        "/commands/0/task",
        "task_requires_machine",
        "task required is for commands MCP calls; expected machine.eligible true, or task forbidden or absent",
      ],
    ]);
  });
});
