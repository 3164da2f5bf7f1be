import { RUKH_BIN, runCli } from "@rukh/testkit/cli";

/**
 * The launch reference `mcp config` or `mcp install` gave `client`'s
 * configuration for an endpoint or a preset, in the state directory `root`.
 */
export function launchOf(
  root: string,
  client: string,
  of: { endpoint?: string; preset?: string },
): string {
  const all = JSON.parse(runCli({ args: ["--json", "mcp", "launches"], stateDir: root }).stdout)
    .result.launches as {
    id: string;
    client: string;
    endpoint?: string;
    preset?: string;
    revokedAt?: string;
  }[];
  const found = all.find(
    (l) =>
      l.client === client &&
      l.revokedAt === undefined &&
      (of.endpoint !== undefined ? l.endpoint === of.endpoint : l.preset === of.preset),
  );
  if (found === undefined) throw new Error(`no launch of ${client} for ${JSON.stringify(of)}`);
  return found.id;
}

/**
 * The server entry a client's configuration holds for the state directory
 * `root` under its default-preset launch: the built CLI serving preset
 * `default`, with the launch reference `client` was given.
 */
export function serverEntry(root: string, client: string) {
  return {
    command: RUKH_BIN,
    args: [
      "mcp",
      "serve",
      "--preset",
      "default",
      "--launch",
      launchOf(root, client, { preset: "default" }),
    ],
    env: { RUKH_HOME: root },
  };
}
