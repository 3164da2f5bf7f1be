import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packWorkspace, publicPackages } from "../../../scripts/pack-workspace.mjs";

// Packs every public package the way `pnpm publish` would, installs the
// tarballs into a clean project outside the workspace, and imports each entry
// point at run time and with its types: a workspace-only path, a missing file
// in "files" or a "workspace:" range left in a manifest fails here.
const root = fileURLToPath(new URL("../../../", import.meta.url));
const tsc = join(root, "node_modules/typescript/bin/tsc");
const packages = publicPackages().map((p) => ({ dir: p.dir, manifest: { name: p.name } }));

let work: string;
const tarballs = new Map<string, string>();

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "rukh-pack-"));
  for (const [name, file] of packWorkspace(work)) tarballs.set(name, file);
  const deps = Object.fromEntries([...tarballs].map(([name, file]) => [name, `file:${file}`]));
  writeFileSync(
    join(work, "package.json"),
    JSON.stringify(
      // A Node consumer brings its own @types/node, as it would for any Node library.
      {
        name: "consumer",
        private: true,
        type: "module",
        dependencies: { ...deps, "@types/node": "20.19.43" },
        overrides: deps,
      },
      null,
      2,
    ),
  );
  execFileSync(
    "npm",
    ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
    { cwd: work, stdio: "pipe" },
  );
}, 240_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("packed packages", () => {
  it("leave no workspace ranges and ship only what their files field names", () => {
    for (const p of packages) {
      const installed = JSON.parse(
        readFileSync(join(work, "node_modules", p.manifest.name, "package.json"), "utf8"),
      );
      expect(JSON.stringify(installed)).not.toContain("workspace:");
      const allowed = new Set([
        ...installed.files,
        "package.json",
        "README.md",
        "LICENSE",
        "CHANGELOG.md",
      ]);
      const shipped = readdirSync(join(work, "node_modules", p.manifest.name));
      expect(shipped.filter((f) => !allowed.has(f))).toEqual([]);
      expect(shipped).toContain("dist");
    }
  });

  it("import at run time outside the workspace", () => {
    const script = packages
      .map(
        (p, i) =>
          `import * as m${i} from "${p.manifest.name}"; if (Object.keys(m${i}).length === 0) throw new Error("${p.manifest.name} is empty");`,
      )
      .join("\n");
    writeFileSync(join(work, "run.mjs"), `${script}\nconsole.log("ok");\n`);
    expect(
      execFileSync(process.execPath, ["run.mjs"], { cwd: work, encoding: "utf8" }).trim(),
    ).toBe("ok");
  });

  it("type-check against their declarations", () => {
    const lines = packages.map(
      (p, i) =>
        `import * as m${i} from "${p.manifest.name}";\nexport const k${i}: string[] = Object.keys(m${i});`,
    );
    writeFileSync(join(work, "check.ts"), `${lines.join("\n")}\n`);
    writeFileSync(
      join(work, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ["node"],
        },
        files: ["check.ts"],
      }),
    );
    const r = spawnSync(process.execPath, [tsc, "-p", "tsconfig.json"], {
      cwd: work,
      encoding: "utf8",
    });
    expect(r.stdout + r.stderr).toBe("");
    expect(r.status).toBe(0);
  }, 120_000);
});

describe("a brand scaffolded from the tarballs", () => {
  it("carries them: copied elsewhere, it still installs with npm ci", () => {
    const brand = join(work, "brand");
    execFileSync(
      process.execPath,
      [
        join(root, "packages/create-rukh-cli/bin/create-rukh-cli.js"),
        "acme",
        brand,
        "--packages",
        work,
      ],
      { stdio: "pipe" },
    );
    const quiet = ["--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"];
    execFileSync("npm", ["install", ...quiet], { cwd: brand, stdio: "pipe" });
    const moved = join(mkdtempSync(join(tmpdir(), "rukh-moved-")), "acme");
    try {
      renameSync(brand, moved);
      rmSync(join(moved, "node_modules"), { recursive: true });
      for (const file of ["package.json", "package-lock.json"])
        expect(readFileSync(join(moved, file), "utf8")).not.toContain(work);
      execFileSync("npm", ["ci", ...quiet], { cwd: moved, stdio: "pipe" });
      const core = JSON.parse(
        readFileSync(join(moved, "node_modules/@rukh/core/package.json"), "utf8"),
      );
      expect(core.name).toBe("@rukh/core");
    } finally {
      rmSync(dirname(moved), { recursive: true, force: true });
    }
  }, 240_000);
});
