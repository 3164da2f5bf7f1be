// `mcp serve --http`: an endpoint the owner gave an `http` side, served over
// Streamable HTTP. Every request is authenticated by its own bearer token
// against the endpoint's authorization server and runs under the binding
// that token proves; nothing about the local user is lent to it. Stdout,
// which carries nothing else over HTTP, is its access log.

import type { BuiltinContext } from "@rukh/cli";
import { linkAgain } from "@rukh/cli";
import type { StateDirectory } from "@rukh/profile";
import { note, OK, UsageError } from "../kit/index.js";
import { consentedUnconfinedWarning, refuseUnconfinable } from "./_endpoint.js";
import { launchEndpoint } from "./_launch.js";
import { announcePlaces } from "./_replica.js";

/**
 * Serves the endpoint `request` names over HTTP, at `request.listen`
 * (`host:port`, or `configured` for its `http.listen`), until the owner stops
 * it, writing its access log on stdout at `request.logLevel`; returns the
 * exit code. An endpoint that cannot start is thrown (a `UsageError` for one
 * the owner named or configured wrong).
 */
export async function serveMcpHttp(
  ctx: BuiltinContext,
  state: StateDirectory,
  brand: { readonly name: string; readonly version: string },
  request: {
    readonly endpoint?: string;
    readonly listen: string;
    readonly logLevel: "info" | "warn" | "silent";
  },
): Promise<number> {
  const [{ serveHttp }, { httpListen, parseListen }, { createResourceServer }] = await Promise.all([
    import("@rukh/mcp"),
    import("@rukh/profile/config"),
    import("@rukh/oauth"),
  ]);
  await linkAgain(ctx.stderr, state);
  const say = (line: string) => note(ctx, `${brand.name} mcp: ${line}\n`);
  await announcePlaces(ctx, brand.name, state);
  // What cannot start is thrown, for the command's guard to report.
  const endpoint = await launchEndpoint(ctx, state, brand.name, {
    ...(request.endpoint !== undefined && { endpoint: request.endpoint }),
  });
  const http = endpoint.http;
  if (http === undefined)
    throw new UsageError(
      `endpoint ${endpoint.name} is not served over HTTP: give it /mcp/endpoints/${endpoint.name}/http (its resource URL and authorization server) in the owner configuration`,
      { see: ["profile", "show"] },
    );
  const listen = request.listen === "configured" ? httpListen(http) : parseListen(request.listen);
  if (listen === undefined)
    throw new UsageError(
      `--http ${JSON.stringify(request.listen)}: expected host:port (e.g. 127.0.0.1:8080) or configured`,
    );
  const introspection = http.auth.introspection;
  // The secret is read from where the owner keeps it, never from the shipped configuration.
  const secret = introspection === undefined ? undefined : ctx.env[introspection.clientSecretEnv];
  if (introspection !== undefined && (secret === undefined || secret === ""))
    throw new UsageError(
      `endpoint ${endpoint.name} introspects opaque tokens as client ${introspection.clientId}, but its secret variable ${introspection.clientSecretEnv} (/mcp/endpoints/${endpoint.name}/http/auth/introspection/clientSecretEnv) is not set`,
    );
  const reachable = [endpoint.preset, ...(http.auth.presets ?? []).map((p) => p.preset)];
  await refuseUnconfinable(state, brand.name, reachable);
  // A host-trusted preset reaches agents only with the owner's consent (refused here without it).
  const active = await state.activeRevisionId();
  const presets = active === null ? {} : (await state.readRevision(active)).config.presets;
  const warnings = [...new Set(reachable)]
    .map((name) => consentedUnconfinedWarning(name, presets, brand.name))
    .filter((w): w is string => w !== undefined);
  const authenticator = createResourceServer({
    resource: http.resource,
    issuer: http.auth.issuer,
    defaultPreset: endpoint.preset,
    ...(http.auth.jwksUri !== undefined && { jwksUri: http.auth.jwksUri }),
    ...(http.auth.requiredScopes !== undefined && { requiredScopes: http.auth.requiredScopes }),
    ...(http.auth.presets !== undefined && { presets: http.auth.presets }),
    ...(http.auth.clockToleranceSeconds !== undefined && {
      clockToleranceSeconds: http.auth.clockToleranceSeconds,
    }),
    ...(introspection !== undefined && {
      introspection: {
        clientId: introspection.clientId,
        clientSecret: secret!,
        ...(introspection.endpoint !== undefined && { endpoint: introspection.endpoint }),
        ...(introspection.cacheSeconds !== undefined && {
          cacheSeconds: introspection.cacheSeconds,
        }),
      },
    }),
  });
  const started = await serveHttp({
    state,
    resource: http.resource,
    listen,
    authenticator,
    ...(http.allowedHosts !== undefined && { allowedHosts: http.allowedHosts }),
    ...(http.allowedOrigins !== undefined && { allowedOrigins: http.allowedOrigins }),
    endpoint,
    serverInfo: brand,
    // Over HTTP stdout carries nothing else: it is the access log's, one JSON line per request.
    accessLog: { level: request.logLevel, destination: ctx.stdout },
    logger: {
      log(level, message, data) {
        say(`${level}: ${message}${data === undefined ? "" : ` ${JSON.stringify(data)}`}`);
      },
    },
  });
  // A command that is not confined runs as this server's user: it could read this process's memory.
  for (const warning of warnings)
    say(
      `${warning}; over HTTP they could also read this server's memory, where bearer tokens pass${introspection === undefined ? "" : `, and its environment, where ${introspection.clientSecretEnv} is`}`,
    );
  say(
    `endpoint ${endpoint.name} over HTTP at ${started.address} for ${http.resource} (preset ${endpoint.preset}; tokens of ${http.auth.issuer}${introspection === undefined ? "" : `, opaque ones introspected as ${introspection.clientId}`})`,
  );
  // Until the owner stops it: SIGINT or SIGTERM.
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  await started.close();
  say("closed");
  return OK;
}
