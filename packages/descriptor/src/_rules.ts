// The cross-field rules of a descriptor: pure functions over what the grammar
// has already read, each returning the issues it finds. They judge how
// fields agree with each other (mapping and result, flags among inputs, routes
// among commands), never the shape of one field. The rules of a declaration
// (inputs, positionals, routes) judge an extension command and a brand's
// built-in alike.

import { pointerAppend, type ValidationIssue } from "@rukh/json";
import type { DescriptorIssueCode } from "./_codes.js";
import type { CommandDeclaration, CommandSpec, GroupSpec } from "./_model.js";

type Issue = ValidationIssue<DescriptorIssueCode>;

/** Long flags every Rukh CLI owns; no input may take them. */
export const RESERVED_FLAGS = ["help", "version", "json", "home", "no-color"] as const;
/** Short flags every Rukh CLI owns. */
export const RESERVED_SHORT_FLAGS = ["h", "V"] as const;

const issue = (path: string, code: DescriptorIssueCode, message: string): Issue => ({
  path,
  code,
  message,
});

/**
 * How a command's execution agrees with its inputs and machine use: a
 * passthrough program takes no declared inputs and gives no result; a
 * machine-eligible command is managed and declares its result.
 */
export function executionRules(path: string, c: CommandSpec): Issue[] {
  const issues: Issue[] = [];
  if (c.execute.mapping === "passthrough") {
    if (c.inputs.length > 0)
      issues.push(
        issue(
          pointerAppend(path, "inputs"),
          "invalid_value",
          "a passthrough program receives raw arguments; expected no declared inputs",
        ),
      );
    if (c.execute.result !== undefined)
      issues.push(
        issue(
          `${path}/execute/result`,
          "invalid_value",
          "a passthrough program has no machine result; expected no execute.result",
        ),
      );
  }
  if (c.machine?.eligible) {
    if (c.execute.mapping !== "managed")
      issues.push(
        issue(
          `${path}/machine/eligible`,
          "machine_requires_managed",
          "passthrough programs are CLI-only; expected mapping managed for a machine-eligible command",
        ),
      );
    if (c.execute.result === undefined)
      issues.push(
        issue(
          `${path}/machine/eligible`,
          "machine_requires_result",
          "a machine-eligible command must declare execute.result; expected text or structured",
        ),
      );
  }
  return issues;
}

/** A command's inputs: unique ids, unique flags and short flags, none of them reserved. */
export function inputNameRules(path: string, c: CommandDeclaration): Issue[] {
  const issues: Issue[] = [];
  const ids = new Set<string>();
  const flags = new Map<string, number>();
  const shorts = new Map<string, number>();
  c.inputs.forEach((input, i) => {
    const ip = pointerAppend(pointerAppend(path, "inputs"), i);
    if (ids.has(input.id))
      issues.push(
        issue(
          pointerAppend(ip, "id"),
          "duplicate_id",
          `input id ${input.id} is declared twice; expected unique ids`,
        ),
      );
    ids.add(input.id);
    const { flag, short } = input.cli;
    if (flag !== undefined) {
      if ((RESERVED_FLAGS as readonly string[]).includes(flag)) {
        issues.push(
          issue(
            pointerAppend(ip, "flag"),
            "reserved_flag",
            `--${flag} belongs to the CLI itself; expected another flag name`,
          ),
        );
      } else if (flags.has(flag)) {
        issues.push(
          issue(
            pointerAppend(ip, "flag"),
            "flag_conflict",
            `--${flag} is already used by input ${flags.get(flag)}; expected unique flags`,
          ),
        );
      } else flags.set(flag, i);
    }
    if (short !== undefined) {
      if ((RESERVED_SHORT_FLAGS as readonly string[]).includes(short)) {
        issues.push(
          issue(
            pointerAppend(ip, "short"),
            "reserved_flag",
            `-${short} belongs to the CLI itself; expected another letter`,
          ),
        );
      } else if (shorts.has(short)) {
        issues.push(
          issue(
            pointerAppend(ip, "short"),
            "flag_conflict",
            `-${short} is already used by input ${shorts.get(short)}; expected unique short flags`,
          ),
        );
      } else shorts.set(short, i);
    }
  });
  return issues;
}

/** A command's positionals: indexes 0, 1, 2… each once, and a list positional last. */
export function positionalRules(path: string, c: CommandDeclaration): Issue[] {
  const issues: Issue[] = [];
  const inputs = pointerAppend(path, "inputs");
  const sorted = c.inputs
    .map((input) => input.cli.positional)
    .filter((p) => p !== undefined)
    .sort((a, b) => a - b);
  sorted.forEach((p, i) => {
    if (p !== i) {
      const what =
        sorted.indexOf(p) !== i || p < i ? "is used twice" : `leaves a gap (expected ${i})`;
      issues.push(
        issue(
          inputs,
          "positional_conflict",
          `positional index ${p} ${what}; expected indexes 0, 1, 2… each once`,
        ),
      );
    }
  });
  const last = sorted.length - 1;
  c.inputs.forEach((input, i) => {
    if (
      input.type === "list" &&
      input.cli.positional !== undefined &&
      input.cli.positional !== last
    )
      issues.push(
        issue(
          pointerAppend(pointerAppend(inputs, i), "positional"),
          "positional_conflict",
          "a list positional takes the remaining arguments; expected it to be the last positional",
        ),
      );
  });
  return issues;
}

/** Every rule over one declaration read at `path`: its inputs' names and its positionals. */
export function declarationRules(path: string, c: CommandDeclaration): Issue[] {
  return [...inputNameRules(path, c), ...positionalRules(path, c)];
}

/** Every rule over one extension command read at `path`, in the order its issues are reported. */
export function commandRules(path: string, c: CommandSpec): Issue[] {
  return [
    ...executionRules(path, c),
    ...declarationRules(path, c),
    ...hintRules(path, c),
    ...taskRules(path, c),
  ];
}

/** A task is an MCP call's way to outlive its request: only a command MCP may call can be one. */
export function taskRules(path: string, c: CommandSpec): Issue[] {
  if (c.task === undefined || c.task === "forbidden" || c.machine?.eligible === true) return [];
  return [
    issue(
      `${path}/task`,
      "task_requires_machine",
      `task ${c.task} is for commands MCP calls; expected machine.eligible true, or task forbidden or absent`,
    ),
  ];
}

/** A command's hints agree with each other: what changes nothing destroys nothing. */
export function hintRules(path: string, c: CommandSpec): Issue[] {
  if (c.hints?.readOnly !== true || c.hints.destructive !== true) return [];
  return [
    issue(
      `${path}/hints/destructive`,
      "conflicting_hints",
      "a read-only command changes nothing, so it destroys nothing; expected destructive false or absent with readOnly true",
    ),
  ];
}

/**
 * The routes of the commands listed at `at` (each at `at/<index>`): each
 * route (path or alias) once, and no route that is both a command and a
 * group of another. `owner` names a command in a message; `each` runs first
 * for each command, for what else is checked command by command. Returns
 * the issues and the claimed routes (route → owner).
 */
function routeClaims<C extends CommandDeclaration>(
  commands: readonly C[],
  at: string,
  owner: (c: C, i: number) => string,
  each: (c: C, i: number, issues: Issue[]) => void = () => {},
): { issues: Issue[]; routes: Map<string, string> } {
  const issues: Issue[] = [];
  const routes = new Map<string, string>();
  commands.forEach((c, i) => {
    const p = pointerAppend(at, i);
    each(c, i, issues);
    const claim = (words: readonly string[], where: string) => {
      const key = words.join(" ");
      const taken = routes.get(key);
      if (taken !== undefined)
        issues.push(
          issue(
            where,
            "route_conflict",
            `route "${key}" is already taken by ${taken}; expected each route once`,
          ),
        );
      else routes.set(key, owner(c, i));
    };
    claim(c.path, pointerAppend(p, "path"));
    for (const [j, a] of c.aliases.entries())
      claim(a, pointerAppend(pointerAppend(p, "aliases"), j));
  });
  // A route that is also the prefix of another route would be both a command and a group.
  const keys = [...routes.keys()];
  for (const key of keys) {
    const child = keys.find((k) => k.startsWith(`${key} `));
    if (child !== undefined)
      issues.push(
        issue(
          at,
          "route_conflict",
          `route "${key}" (${routes.get(key)}) is also a group of "${child}"; expected a route to be a command or a group, not both`,
        ),
      );
  }
  return { issues, routes };
}

/**
 * The routes of a list of declarations (each at `/<index>`): each route
 * once, and none both a command and a group of another.
 */
export function declarationRouteRules(declarations: readonly CommandDeclaration[]): Issue[] {
  return routeClaims(declarations, "", (_, i) => `declaration ${pointerAppend("", i)}`).issues;
}

/**
 * The routes of all commands and groups: unique command ids, each route
 * (path or alias) once, no route that is both a command and a group, and
 * each group a prefix of some command, declared once.
 */
export function routeRules(
  commands: readonly CommandSpec[],
  groups: readonly GroupSpec[],
): Issue[] {
  const ids = new Map<string, number>();
  const { issues, routes } = routeClaims(
    commands,
    "/commands",
    (c) => `command ${c.id}`,
    (c, i, found) => {
      if (ids.has(c.id))
        found.push(
          issue(
            pointerAppend(pointerAppend("/commands", i), "id"),
            "duplicate_id",
            `command id ${c.id} is declared twice; expected unique ids`,
          ),
        );
      ids.set(c.id, i);
    },
  );
  const keys = [...routes.keys()];
  groups.forEach((g, i) => {
    const key = g.path.join(" ");
    const p = pointerAppend(pointerAppend("/groups", i), "path");
    if (routes.has(key))
      issues.push(
        issue(
          p,
          "route_conflict",
          `group "${key}" is also ${routes.get(key)}; expected a group to hold commands, not be one`,
        ),
      );
    else if (!keys.some((k) => k.startsWith(`${key} `)))
      issues.push(
        issue(
          p,
          "invalid_value",
          `group "${key}" holds no command; expected a prefix of a command path`,
        ),
      );
    if (groups.findIndex((h) => h.path.join(" ") === key) !== i)
      issues.push(issue(p, "duplicate_id", `group "${key}" is declared twice`));
  });
  return issues;
}
