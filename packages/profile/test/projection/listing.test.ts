import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listTools, ProfileError, StateDirectory, visibleTools } from "../../src/index.js";
import { PAGE_MAX_BYTES } from "../../src/model/_limits.js";
import { checkEndpointPages } from "../../src/projection/_endpoint-pages.js";
import { clientFitNames, toolName, toolNameLength } from "../../src/projection/_tool-names.js";
import { connectAnswerBytes } from "../../src/projection.js";
import {
  makePackage,
  ownerConfig,
  tempDir,
  textExecute,
  thrown,
  toolMachine,
} from "../_helpers.js";

// What a preset is shown is what it could run: a tool whose requested
// actions or resources the preset does not grant is never listed, and an
// endpoint whose response limit cannot carry the tools it lists is never
// published.
const work = tempDir();

/** A command of acme.files with what it requests and how it may interact. */
function command(
  id: string,
  over: {
    actions?: string[];
    resources?: string[];
    interaction?: string;
    description?: string;
  } = {},
) {
  return {
    id,
    path: [id],
    summary: `Run ${id}`,
    ...(over.description !== undefined && { description: over.description }),
    inputs: [],
    execute: textExecute(),
    requests: { actions: over.actions ?? [], resources: over.resources ?? [] },
    machine: toolMachine(over.interaction ?? "none"),
  };
}

const preset = (over: object = {}) => ({
  commands: ["acme.files/*"],
  actions: [],
  resources: [],
  deadlineMs: 1000,
  maxConcurrency: 2,
  enforcement: "strict",
  ...over,
});

const config = (over: Record<string, unknown> = {}) =>
  ownerConfig({
    exposure: { extensions: ["acme.files"] },
    presets: {
      default: preset(),
      granted: preset({ actions: ["compute"], resources: ["net"] }),
      computing: preset({ actions: ["compute"] }),
      none: preset({ commands: [] }),
    },
    ...over,
  });

/** A configuration as `setConfig` takes it. */
const published = (over: Record<string, unknown> = {}) => config(over) as never;

async function installed(commands: object[], over: Record<string, unknown> = {}) {
  const root = tempDir("rukh-listing-");
  const home = new StateDirectory(root);
  await home.setConfig(published(over) as never);
  const source = await makePackage(work, {
    format: "rukh.extension/2",
    id: "acme.files",
    version: "1.0.0",
    publisher: "acme",
    commands,
  });
  const { revisionId } = await home.install(source);
  return { root, home, revisionId };
}

const visible = (p: Parameters<typeof visibleTools>[0], preset: string) =>
  visibleTools(p, preset)
    .map((t) => t.identity.slice("acme.files/".length))
    .sort();

describe("listing is admission asked early", () => {
  it("lists a tool only for a preset that grants every action and resource it requests, from the catalog and from the store alike", async () => {
    const { root, home, revisionId } = await installed([
      command("plain"),
      command("computes", { actions: ["compute"] }),
      command("fetches", { resources: ["net"] }),
      command("both", { actions: ["compute"], resources: ["net"] }),
      command("maybe", { interaction: "optional" }),
      command("person", { interaction: "required" }),
    ]);
    const expected = {
      default: ["maybe", "plain"],
      computing: ["computes", "maybe", "plain"],
      granted: ["both", "computes", "fetches", "maybe", "plain"],
      none: [],
    };
    const check = async (state: StateDirectory) => {
      const projection = await state.projection(revisionId);
      for (const [name, tools] of Object.entries(expected))
        expect(visible(projection, name), name).toEqual(tools);
    };
    // As published, then as another process reads the catalog, then from the store.
    await check(home);
    await check(new StateDirectory(root));
    rmSync(join(root, "revisions", `${revisionId}.catalog.json`));
    await check(new StateDirectory(root));
  });

  it("binds cursors to what the preset is shown: granting an action changes the listing's binding", async () => {
    const { home } = await installed(
      Array.from({ length: 40 }, (_, i) =>
        command(`c${i}`, i % 2 === 0 ? { actions: ["compute"] } : {}),
      ),
    );
    const projection = await home.projection();
    const cursorKey = await home.cursorKey();
    expect(visibleTools(projection, "default")).toHaveLength(20);
    expect(visibleTools(projection, "computing")).toHaveLength(40);
    const first = listTools(projection, { preset: "computing", cursorKey });
    expect(first.nextCursor).toBeDefined();
    const caught = thrown(() =>
      listTools(projection, { preset: "default", cursorKey, cursor: first.nextCursor! }),
    );
    expect((caught as ProfileError).code).toBe("stale_cursor");
  });
});

const RESPONSE_POINTER = "/mcp/endpoints/team/limits/responseMaxBytes";

/** The issue a refused publication names, or `undefined` when it was published. */
async function refusal(run: () => Promise<unknown>) {
  try {
    await run();
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(ProfileError);
    return e as ProfileError;
  }
}

const team = (limits: object, preset = "default", mcp: object = {}) => ({
  mcp: { ...mcp, endpoints: { team: { preset, limits } } },
});

describe("an endpoint's response limit at publication", () => {
  const tools = [
    command("small"),
    command("large", { description: "d".repeat(3_000) }),
    command("hidden", { actions: ["compute"], description: "h".repeat(3_900) }),
  ];

  it("refuses a limit that cannot carry the largest tool the endpoint lists, naming its pointer and the smallest value that works", async () => {
    const { home } = await installed(tools);
    const refused = await refusal(() =>
      home.setConfig(published(team({ responseMaxBytes: 5000 }))),
    );
    expect(refused?.code).toBe("invalid_config");
    const issue = refused!.issues[0]!;
    expect(issue.path).toBe(RESPONSE_POINTER);
    expect(issue.message).toMatch(
      /^5000 cannot carry a tools\/list answer holding the tool acme\.files\/large \(\d+ bytes\); set at least \d+$/,
    );
    expect(refused!.message).toContain(RESPONSE_POINTER);
    const smallest = Number(/set at least (\d+)$/.exec(issue.message)![1]);
    expect(smallest).toBeGreaterThan(5000);
    expect(smallest).toBeLessThan(PAGE_MAX_BYTES);

    // One byte less is refused with the same answer; the value it names is published.
    const short = await refusal(() =>
      home.setConfig(published(team({ responseMaxBytes: smallest - 1 }))),
    );
    expect(short?.issues[0]?.message).toContain(`set at least ${smallest}`);
    expect(
      await refusal(() => home.setConfig(published(team({ responseMaxBytes: smallest })))),
    ).toBe(undefined);

    // And every tool the endpoint lists is listed, one page at a time, within it.
    const projection = await home.projection();
    const cursorKey = await home.cursorKey();
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = listTools(projection, {
        preset: "default",
        cursorKey,
        responseMaxBytes: smallest,
        ...(cursor !== undefined && { cursor }),
      });
      expect(page.tools.length).toBeGreaterThan(0);
      seen.push(...page.tools.map((t) => t.identity));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(seen.sort()).toEqual(["acme.files/large", "acme.files/small"]);
  });

  it("refuses a limit that cannot carry the endpoint's instructions in its initialize answer, however few tools it lists", async () => {
    const { home } = await installed([command("small")]);
    const instructions = "界".repeat(2_048);
    const withInstructions = (responseMaxBytes: number) => ({
      mcp: {
        endpoints: { team: { preset: "default", limits: { responseMaxBytes }, instructions } },
      },
    });
    const refused = await refusal(() => home.setConfig(published(withInstructions(5000))));
    expect(refused?.code).toBe("invalid_config");
    expect(refused!.issues[0]!.path).toBe(RESPONSE_POINTER);
    expect(refused!.issues[0]!.message).toBe(
      `5000 cannot carry the initialize answer with the endpoint's instructions (6146 bytes as JSON); set at least ${connectAnswerBytes(instructions)}`,
    );
    const least = connectAnswerBytes(instructions);
    expect(
      await refusal(() => home.setConfig(published(withInstructions(least - 1)))),
    ).toBeDefined();
    expect(await refusal(() => home.setConfig(published(withInstructions(least))))).toBe(undefined);
  });

  it("measures the tools under the endpoint's own names and presets, and checks again whenever what it lists changes", async () => {
    const { home } = await installed(tools);
    const under = async (over: Record<string, unknown>) =>
      Number(
        /set at least (\d+)$/.exec(
          (await refusal(() => home.setConfig(published(over))))!.issues[0]!.message,
        )![1],
      );
    const full = await under(team({ responseMaxBytes: 5000 }));
    // Compact names are shorter, so the same tools need less.
    const compact = await under(
      team({ responseMaxBytes: 5000 }, "default", { toolNames: "compact" }),
    );
    expect(compact).toBeLessThan(full);
    // A preset that also sees the larger hidden tool needs more.
    expect(await under(team({ responseMaxBytes: 5000 }, "computing"))).toBeGreaterThan(full);

    // Over HTTP a token's scope may choose another preset: its tools count too.
    const http = (presets: object[]) => ({
      mcp: {
        endpoints: {
          team: {
            preset: "default",
            limits: { responseMaxBytes: full },
            http: {
              resource: "https://mcp.acme.test/mcp",
              auth: { issuer: "https://login.acme.test", presets },
            },
          },
        },
      },
    });
    expect(await refusal(() => home.setConfig(published(http([]))))).toBeUndefined();
    expect(
      (
        await refusal(() =>
          home.setConfig(published(http([{ scope: "mcp.compute", preset: "computing" }]))),
        )
      )?.issues[0]?.message,
    ).toContain("acme.files/hidden");

    // An endpoint that lists nothing can answer within 5000 bytes; granting
    // its preset a pattern that lists the large tool is then refused at the endpoint.
    expect(
      await refusal(() => home.setConfig(published(team({ responseMaxBytes: 5000 }, "none")))),
    ).toBeUndefined();
    const widened = config(team({ responseMaxBytes: 5000 }, "none"));
    (widened.presets as Record<string, { commands: string[] }>).none!.commands = [
      "acme.files/large",
    ];
    const refused = await refusal(() => home.setConfig(widened as never));
    expect(refused?.issues[0]?.path).toBe(RESPONSE_POINTER);
    expect(refused?.issues[0]?.message).toContain("acme.files/large");
  });

  it("refuses a page it cannot build instead of answering with an empty one", async () => {
    const { home } = await installed(tools);
    const projection = await home.projection();
    const cursorKey = await home.cursorKey();
    const caught = thrown(() =>
      listTools(projection, { preset: "default", cursorKey, responseMaxBytes: 5000 }),
    );
    expect((caught as ProfileError).code).toBe("tool_too_large");
    expect((caught as ProfileError).message).toMatch(
      /^a tools\/list answer of at most 5000 bytes cannot carry the tool acme\.files\/large \(\d+ bytes\); it needs at least \d+$/,
    );
  });
});

describe("the endpoint check's measures", () => {
  it("counts a development link's tools only at an endpoint that names it", () => {
    const tools = [
      ["acme.files/small", 500, "Small", [], []],
      ["acme.dev/big", 5_000, "Big", [], []],
    ] as const;
    const check = (devExtensions: string[]) => () =>
      checkEndpointPages({
        config: config({
          mcp: {
            endpoints: {
              team: { preset: "default", limits: { responseMaxBytes: 4_000 }, devExtensions },
            },
          },
          presets: { default: preset({ commands: ["acme.files/*", "acme.dev/*"] }) },
        }) as never,
        tools: () => tools,
        devExtensions: ["acme.dev"],
      });
    expect(check([])).not.toThrow();
    expect(check(["acme.dev"])).toThrow(/acme\.dev\/big/);
  });

  it("measures a name without hashing: a full one exactly, a client-fit one at its longest", () => {
    const identities = ["a.b/c", "acme.files/count_lines", `acme.x/${"y".repeat(60)}`];
    // The longest tag a revision can have.
    const fit = clientFitNames(
      { revisionId: "r".repeat(64), sequence: 159_999 },
      ["ns"],
      identities,
    ).get("ns")!;
    for (const identity of identities) {
      expect(toolNameLength(identity, "full")).toBe(
        toolName("ns", "r".repeat(64), identity).length,
      );
      expect(fit.get(identity)!.length).toBeLessThanOrEqual(toolNameLength(identity, "compact"));
    }
  });
});
