import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { inNamespace } from "../../src/config/_trust.js";
import { RESERVED_CLI_WORDS } from "../../src/config.js";
import {
  compareVersions,
  namespacesOf,
  type OwnerConfig,
  ProfileError,
  publicKeyBase64,
  StateDirectory,
} from "../../src/index.js";
import { DESCRIPTOR_PATH } from "../../src/package.js";
import {
  descriptor,
  FIXTURE_KEY,
  FIXTURE_PUB,
  makePackage,
  ownerConfig,
  tempDir,
} from "../_helpers.js";

// Any sequence of trust and install operations by several publishers, some
// hostile, never leaves a revision in which a command's signer does not own
// its namespace, a reserved path is taken, a CLI group has two owners, or a
// version went down, or other content came in at the same precedence (a
// rebuild: other build metadata), without --allow-downgrade.
const work = tempDir();

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Signer {
  readonly publisher: string;
  readonly key: KeyObject | string;
  readonly pub: string;
}

const keyPair = (publisher: string): Signer => {
  const { privateKey } = generateKeyPairSync("ed25519");
  return { publisher, key: privateKey, pub: publicKeyBase64(privateKey) };
};

describe("trust invariants under random operation sequences", () => {
  it("hold after every published revision", async () => {
    const acme: Signer = { publisher: "acme", key: FIXTURE_KEY, pub: FIXTURE_PUB };
    const acme2 = keyPair("acme");
    const evil = keyPair("evil");
    const evil2 = keyPair("evil");
    const signers = [acme, acme2, evil, evil2];
    const ids = ["acme.x", "acme.y", "evil.z", "evil.x"];
    const versions = ["1.0.0", "1.1.0", "1.1.0+rebuild", "2.0.0-rc.1", "2.0.0", "2.0.0+b.2"];
    const paths: (readonly string[])[] = [
      ["grp", "a"],
      ["grp", "b"],
      ["solo"],
      ["trust", "x"],
      ["ext", "y"],
      ["other", "c"],
    ];
    const r = random(20261201);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    const packages: { dir: string; id: string; version: string; signer: Signer }[] = [];
    for (let i = 0; i < 48; i++) {
      const signer = pick(signers);
      const id = pick(ids);
      const version = pick(versions);
      const path = pick(paths);
      const d = {
        ...descriptor(id, signer.publisher, [{ id: `c${i % 3}`, path: [...path] }]),
        version,
      };
      packages.push({ dir: await makePackage(work, d, signer.key), id, version, signer });
    }
    const home = new StateDirectory(tempDir("rukh-property-"));
    const base = ownerConfig({ exposure: { extensions: [] } }) as unknown as OwnerConfig;
    await home.setConfig({ ...base, trustedPublishers: [{ id: "acme", publicKey: acme.pub }] });
    const outcomes = new Map<string, number>();
    let lastVersions = new Map<string, { version: string; digest: string }>();

    for (let step = 0; step < 160; step++) {
      const active = (await home.activeRevisionId())!;
      const rev = await home.readRevision(active);
      const config = rev.config;
      const roll = r();
      let allowDowngrade = false;
      let op: Promise<unknown>;
      let name: string;
      if (roll < 0.55) {
        const p = pick(packages);
        allowDowngrade = r() < 0.15;
        name = "install";
        op = home.apply([{ op: "install", source: p.dir, allowDowngrade }]);
      } else if (roll < 0.65 && rev.extensions.length > 0) {
        name = "remove";
        op = home.remove(pick(rev.extensions).id);
      } else if (roll < 0.75) {
        // trust add / rotate: set a publisher's key (a rotation when it was trusted).
        const s = pick(signers);
        name = "trust";
        op = home.setConfig({
          ...config,
          trustedPublishers: [
            ...config.trustedPublishers.filter((t) => t.id !== s.publisher),
            { id: s.publisher, publicKey: s.pub },
          ],
        });
      } else if (roll < 0.82 && config.trustedPublishers.length > 0) {
        const t = pick(config.trustedPublishers);
        name = "untrust";
        op = home.apply([
          {
            op: "setConfig",
            config: {
              ...config,
              trustedPublishers: config.trustedPublishers.filter((x) => x !== t),
            },
          },
          ...rev.extensions
            .filter((e) => e.publisher === t.id && e.enabled)
            .map((e) => ({ op: "disable" as const, id: e.id })),
        ]);
      } else if (roll < 0.9) {
        // A hostile grant: a namespace overlapping another publisher's.
        name = "grant";
        op = home.setConfig({
          ...config,
          trustedPublishers: config.trustedPublishers.map((t) =>
            t.id === "evil"
              ? { ...t, namespaces: ["evil.*", pick(["acme.x", "acme.*", "evil.q"])] }
              : t,
          ),
        });
      } else if (rev.extensions.length > 0) {
        const e = pick(rev.extensions);
        name = e.enabled ? "disable" : "enable";
        op = e.enabled ? home.disable(e.id) : home.enable(e.id);
      } else continue;
      let code = "ok";
      try {
        await op;
      } catch (e) {
        if (!(e instanceof ProfileError)) throw e;
        code = e.code;
      }
      outcomes.set(`${name}:${code}`, (outcomes.get(`${name}:${code}`) ?? 0) + 1);

      // The invariants, on whatever is active now.
      const now = await home.readRevision((await home.activeRevisionId())!);
      const trusted = new Map(now.config.trustedPublishers.map((t) => [t.id, t]));
      const owners = new Map<string, string>();
      for (const e of now.extensions) {
        const prior = lastVersions.get(e.id);
        if (prior !== undefined && compareVersions(e.version, prior.version) < 0)
          expect(allowDowngrade && name === "install", `${e.id} went down at step ${step}`).toBe(
            true,
          );
        if (
          prior !== undefined &&
          compareVersions(e.version, prior.version) === 0 &&
          e.digest !== prior.digest
        ) {
          expect(e.version, `${e.id} ${e.version} reused at step ${step}`).not.toBe(prior.version);
          expect(
            allowDowngrade && name === "install",
            `${e.id} ${prior.version} → ${e.version} rebuilt at step ${step}`,
          ).toBe(true);
        }
        if (!e.enabled) continue;
        const t = trusted.get(e.publisher);
        expect(t, `${e.id} enabled without trusted publisher at step ${step}`).toBeDefined();
        expect(
          namespacesOf(t!).some((ns) => inNamespace(e.id, ns)),
          `${e.id} at step ${step}`,
        ).toBe(true);
        const d = JSON.parse(
          readFileSync(join(home.root, "store", e.digest, DESCRIPTOR_PATH), "utf8"),
        );
        for (const c of d.commands as { path: string[] }[]) {
          expect(RESERVED_CLI_WORDS.includes(c.path[0]!), `${c.path} at step ${step}`).toBe(false);
          for (let n = 1; n < c.path.length; n++) {
            const group = c.path.slice(0, n).join(" ");
            const owner = owners.get(group);
            if (owner !== undefined)
              expect(owner, `group ${group} at step ${step}`).toBe(e.publisher);
            owners.set(group, e.publisher);
          }
        }
      }
      lastVersions = new Map(
        now.extensions.map((e) => [e.id, { version: e.version, digest: e.digest }]),
      );
    }
    // The sequence really tried what the rules refuse, and really published.
    const seen = [...outcomes.keys()];
    for (const code of [
      "install:ok",
      "install:namespace_denied",
      "install:reserved_path",
      "install:downgrade",
      "install:version_reused",
    ])
      expect(seen, JSON.stringify(Object.fromEntries(outcomes))).toContain(code);
  }, 120_000);
});
