// The descriptor grammar: which fields each object of a descriptor holds and
// how each is read. A command's declaration (path, aliases, help text,
// inputs) is read as a built-in's is (`_declaration.ts`), an input's own
// declaration by the input model; how fields agree with each other is
// judged by the rules once read.

import { checkResultSchema, type ResultSchema } from "@rukh/command-result";
import { type JsonValue, pointerAppend } from "@rukh/json";
import { allRead, readDeclaration } from "./_declaration.js";
import { hiddenTextIssues } from "./_hidden-text.js";
import {
  COMMAND_ID_PATTERN,
  EXTENSION_ID_PATTERN,
  PROGRAM,
  PUBLISHER_ID_PATTERN,
  REQUEST_NAME_PATTERN,
  SEMVER,
} from "./_ids.js";
import * as L from "./_limits.js";
import {
  COMMAND_HINTS,
  type CommandHints,
  type CommandSpec,
  DESCRIPTOR_FORMATS,
  type DescriptorFormat,
  type ExecuteSpec,
  type ExtensionDescriptor,
  type FeatureId,
  type GroupSpec,
  type MachineSpec,
  REGISTERED_FEATURES,
  type ResultDeclarationSpec,
  TASK_SUPPORT,
  type TaskSupport,
} from "./_model.js";
import { DESCRIPTION, type DescriptorReader, isObject, SUMMARY, typeName } from "./_reader.js";
import { commandRules, routeRules } from "./_rules.js";
import { shown } from "./_values.js";

const TOP_FIELDS = [
  "$schema",
  "format",
  "id",
  "version",
  "publisher",
  "summary",
  "groups",
  "commands",
];
/** Longest `$schema` reference accepted (it only points an editor at the JSON Schema). */
const SCHEMA_REF_MAX_LENGTH = 2_048;
const GROUP_FIELDS = ["path", "summary", "description"];
const COMMAND_FIELDS = [
  "task",
  "confinement",
  "id",
  "path",
  "aliases",
  "summary",
  "description",
  "inputs",
  "execute",
  "requests",
  "machine",
  "hints",
];
const EXECUTE_FIELDS = ["mapping", "program", "runtime", "lifetime", "result"];
const MACHINE_FIELDS = ["eligible", "interaction", "requiredFeatures"];
const REQUEST_FIELDS = ["actions", "resources"];

/** Reads a whole descriptor; an unknown or newer `format` stops reading at once. */
export function readDescriptor(r: DescriptorReader, v: JsonValue): ExtensionDescriptor | undefined {
  if (!isObject(v)) {
    r.add("", "invalid_type", `got ${typeName(v)}; expected a descriptor object`);
    return undefined;
  }
  const format = v.format;
  if (format === undefined) {
    r.add(
      "/format",
      "missing_field",
      `field format is required; expected one of ${DESCRIPTOR_FORMATS.join(", ")}`,
    );
    return undefined;
  }
  if (typeof format !== "string" || !(DESCRIPTOR_FORMATS as readonly string[]).includes(format)) {
    r.add(
      "/format",
      "unsupported_format",
      `format ${shown(format)} is not supported; expected one of ${DESCRIPTOR_FORMATS.join(", ")}`,
    );
    return undefined;
  }
  r.format = format as DescriptorFormat;
  // No string anywhere in it (a member name included) may hide text from its reader.
  r.addAll(hiddenTextIssues(v));
  r.object("", v, TOP_FIELDS, ["id", "version", "publisher", "commands"]);
  // For editors only: a reference to the JSON Schema, never part of the descriptor's meaning.
  r.string("/$schema", v.$schema, { max: SCHEMA_REF_MAX_LENGTH, what: "a schema URL" });
  const id = r.string("/id", v.id, {
    re: EXTENSION_ID_PATTERN,
    what: "a lowercase dotted id such as acme.files",
  });
  const version = r.string("/version", v.version, {
    re: SEMVER,
    what: "a semantic version such as 1.2.0",
  });
  const publisher = r.string("/publisher", v.publisher, {
    re: PUBLISHER_ID_PATTERN,
    what: "a lowercase publisher id",
  });
  const summary = r.text("/summary", v.summary, SUMMARY);
  const groups = (r.array("/groups", v.groups, L.MAX_GROUPS) ?? []).map((g, i) =>
    readGroup(r, pointerAppend("/groups", i), g),
  );
  const rawCommands = r.array("/commands", v.commands, L.MAX_COMMANDS) ?? [];
  const commands = rawCommands.map((c, i) =>
    readCommand(r, pointerAppend("/commands", i), c, id ?? "?"),
  );
  if (
    id === undefined ||
    version === undefined ||
    publisher === undefined ||
    !allRead(groups) ||
    !allRead(commands)
  )
    return undefined;
  r.addAll(routeRules(commands, groups));
  return {
    format: r.format,
    id,
    version,
    publisher,
    ...(summary !== undefined && { summary }),
    groups,
    commands,
  };
}

function readGroup(r: DescriptorReader, path: string, v: JsonValue): GroupSpec | undefined {
  const g = r.object(path, v, GROUP_FIELDS, ["path", "summary"]);
  if (!g) return undefined;
  const at = (k: string) => pointerAppend(path, k);
  const words = r.words(at("path"), g.path);
  const summary = r.text(at("summary"), g.summary, SUMMARY);
  const description = r.text(at("description"), g.description, DESCRIPTION);
  if (words === undefined || summary === undefined) return undefined;
  return { path: words, summary, ...(description !== undefined && { description }) };
}

function readCommand(
  r: DescriptorReader,
  path: string,
  v: JsonValue,
  extensionId: string,
): CommandSpec | undefined {
  const c = r.object(path, v, COMMAND_FIELDS, ["id", "path", "summary", "execute"]);
  if (!c) return undefined;
  const at = (k: string) => pointerAppend(path, k);
  const id = r.string(at("id"), c.id, {
    re: COMMAND_ID_PATTERN,
    what: "a lowercase command id (letters, digits, _ or -)",
  });
  // Path, aliases, help text and inputs: what a built-in declares too.
  const declaration = readDeclaration(r, path, c);
  const execute = readExecute(r, at("execute"), c.execute);
  const requests = readRequests(r, at("requests"), c.requests);
  let machine: MachineSpec | undefined;
  if (c.machine !== undefined) {
    if (r.format === "rukh.extension/1") {
      r.add(
        at("machine"),
        "requires_v2",
        "machine is a rukh.extension/2 field; expected format rukh.extension/2",
      );
    } else {
      machine = readMachine(r, at("machine"), c.machine);
    }
  }
  const hints = c.hints === undefined ? undefined : readHints(r, at("hints"), c.hints);
  const task = c.task === undefined ? undefined : readTask(r, at("task"), c.task);
  const confinement =
    c.confinement === undefined ? undefined : readConfinement(r, at("confinement"), c.confinement);
  if (
    id === undefined ||
    declaration === undefined ||
    execute === undefined ||
    requests === undefined ||
    (c.machine !== undefined && machine === undefined) ||
    (c.hints !== undefined && hints === undefined) ||
    (c.task !== undefined && task === undefined) ||
    (c.confinement !== undefined && confinement === undefined)
  ) {
    return undefined;
  }
  const command: CommandSpec = {
    id,
    identity: `${extensionId}/${id}`,
    ...declaration,
    execute,
    requests,
    ...(machine !== undefined && { machine }),
    ...(hints !== undefined && { hints }),
    ...(task !== undefined && { task }),
    ...(confinement !== undefined && { confinement }),
  };
  r.addAll(commandRules(path, command));
  return command;
}

function readExecute(
  r: DescriptorReader,
  path: string,
  v: JsonValue | undefined,
): ExecuteSpec | undefined {
  const e = r.object(path, v, EXECUTE_FIELDS, ["mapping", "program", "runtime"]);
  if (!e) return undefined;
  const at = (k: string) => pointerAppend(path, k);
  const mapping = r.oneOf(at("mapping"), e.mapping, ["managed", "passthrough"]);
  const program = r.string(at("program"), e.program, {
    re: PROGRAM,
    what: "a relative /-separated path inside the package, without . or .. segments",
    max: 256,
  });
  const runtime = r.oneOf(at("runtime"), e.runtime, ["node", "native"]);
  const lifetime =
    e.lifetime === undefined ? "foreground" : r.oneOf(at("lifetime"), e.lifetime, ["foreground"]);
  let result: ResultDeclarationSpec | undefined;
  if (e.result !== undefined) {
    if (r.format === "rukh.extension/1") {
      r.add(
        at("result"),
        "requires_v2",
        "execute.result is a rukh.extension/2 field; expected format rukh.extension/2",
      );
      return undefined;
    }
    result = readResult(r, at("result"), e.result);
    if (result === undefined) return undefined;
  }
  if (
    mapping === undefined ||
    program === undefined ||
    runtime === undefined ||
    lifetime === undefined
  )
    return undefined;
  return {
    mapping: mapping as ExecuteSpec["mapping"],
    program,
    runtime: runtime as ExecuteSpec["runtime"],
    lifetime: "foreground",
    ...(result !== undefined && { result }),
  };
}

function readResult(
  r: DescriptorReader,
  path: string,
  v: JsonValue,
): ResultDeclarationSpec | undefined {
  if (!isObject(v)) {
    r.add(
      path,
      "invalid_type",
      `got ${typeName(v)}; expected {"kind":"text"} or {"kind":"structured","schema":…}`,
    );
    return undefined;
  }
  const kind = r.oneOf(pointerAppend(path, "kind"), v.kind, ["text", "structured"]);
  if (kind === undefined) return undefined;
  if (kind === "text") {
    r.object(path, v, ["kind"], ["kind"]);
    return Object.keys(v).length === 1 ? { kind: "text" } : undefined;
  }
  if (!r.object(path, v, ["kind", "schema"], ["kind", "schema"]) || v.schema === undefined)
    return undefined;
  const checked = checkResultSchema(v.schema);
  if (!checked.ok) {
    for (const i of checked.issues) {
      // A title's line break is the descriptor's one-line rule, with its code.
      if (i.code === "line_break") r.add(`${path}/schema${i.path}`, "line_break", i.message);
      else r.add(`${path}/schema${i.path}`, "invalid_result_schema", `${i.code}: ${i.message}`);
    }
    return undefined;
  }
  return Object.keys(v).length === 2
    ? { kind: "structured", schema: checked.value as ResultSchema }
    : undefined;
}

function readMachine(r: DescriptorReader, path: string, v: JsonValue): MachineSpec | undefined {
  const m = r.object(path, v, MACHINE_FIELDS, ["eligible"]);
  if (!m) return undefined;
  const at = (k: string) => pointerAppend(path, k);
  const eligible = r.boolean(at("eligible"), m.eligible);
  const interaction =
    m.interaction === undefined
      ? "none"
      : r.oneOf(at("interaction"), m.interaction, ["none", "optional", "required"]);
  const rf = r.array(at("requiredFeatures"), m.requiredFeatures, REGISTERED_FEATURES.length) ?? [];
  const features: FeatureId[] = [];
  rf.forEach((f, i) => {
    const p = pointerAppend(at("requiredFeatures"), i);
    if (typeof f !== "string" || !(REGISTERED_FEATURES as readonly string[]).includes(f)) {
      r.add(
        p,
        "unknown_feature",
        `feature ${shown(f)} is not registered; expected one of ${REGISTERED_FEATURES.join(", ")}`,
      );
    } else if (features.includes(f as FeatureId)) {
      r.add(p, "duplicate_id", `feature ${f} is listed twice; expected each once`);
    } else {
      features.push(f as FeatureId);
    }
  });
  if (eligible === undefined || interaction === undefined || features.length !== rf.length)
    return undefined;
  return {
    eligible,
    interaction: interaction as MachineSpec["interaction"],
    requiredFeatures: features,
  };
}

/** A command's `hints`: rukh.extension/3's optional booleans, each read as it is written. */
function readHints(r: DescriptorReader, path: string, v: JsonValue): CommandHints | undefined {
  if (r.format !== "rukh.extension/3") {
    r.add(
      path,
      "requires_v3",
      "hints is a rukh.extension/3 field; expected format rukh.extension/3",
    );
    return undefined;
  }
  const h = r.object(path, v, [...COMMAND_HINTS], []);
  if (!h) return undefined;
  const out: Record<string, boolean> = {};
  let read = true;
  for (const key of COMMAND_HINTS) {
    if (h[key] === undefined) continue;
    const value = r.boolean(pointerAppend(path, key), h[key]);
    if (value === undefined) read = false;
    else out[key] = value;
  }
  return read ? (out as CommandHints) : undefined;
}

/** A command's `task`: rukh.extension/3's word on running as a task. */
function readTask(r: DescriptorReader, path: string, v: JsonValue): TaskSupport | undefined {
  if (r.format !== "rukh.extension/3") {
    r.add(
      path,
      "requires_v3",
      "task is a rukh.extension/3 field; expected format rukh.extension/3",
    );
    return undefined;
  }
  return r.oneOf(path, v, TASK_SUPPORT) as TaskSupport | undefined;
}

/**
 * A command's `confinement`: rukh.extension/3's word that it runs only
 * confined (`"strict"`), never under a host-trusted preset.
 */
function readConfinement(r: DescriptorReader, path: string, v: JsonValue): "strict" | undefined {
  if (r.format !== "rukh.extension/3") {
    r.add(
      path,
      "requires_v3",
      "confinement is a rukh.extension/3 field; expected format rukh.extension/3",
    );
    return undefined;
  }
  return r.oneOf(path, v, ["strict"]) as "strict" | undefined;
}

function readRequests(
  r: DescriptorReader,
  path: string,
  v: JsonValue | undefined,
): CommandSpec["requests"] | undefined {
  if (v === undefined) return { actions: [], resources: [] };
  const o = r.object(path, v, REQUEST_FIELDS, []);
  if (!o) return undefined;
  const list = (key: string) => {
    const at = pointerAppend(path, key);
    const arr = r.array(at, o[key], L.MAX_REQUESTS) ?? [];
    const out = arr.map((x, i) =>
      r.string(pointerAppend(at, i), x, {
        re: REQUEST_NAME_PATTERN,
        what: "a lowercase action or resource name",
      }),
    );
    if (new Set(out).size !== out.length)
      r.add(at, "duplicate_id", "an entry is listed twice; expected each once");
    return out.every((x) => x !== undefined) ? (out as string[]) : undefined;
  };
  const actions = list("actions");
  const resources = list("resources");
  return actions && resources ? { actions, resources } : undefined;
}
