// A real authorization server for tests: oidc-provider on a loopback port,
// issuing signed JWT access tokens (RFC 9068), or opaque ones it answers for
// at its introspection endpoint (RFC 7662), through the client-credentials
// grant, for the resources a test names. Its clients stand for the tokens a
// resource server must refuse: `late` gets tokens that expired an hour ago,
// `early` tokens valid only from an hour on, `brief` tokens that expire two
// seconds after they are issued. A resource server introspects as
// `mcp-gateway`; a client may revoke its own tokens.

import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from "jose";
import Provider, { errors } from "oidc-provider";
import { freePort } from "./_net.js";

/** The clients every test issuer registers; each one's secret is `<id>-secret`. */
export const ISSUER_CLIENTS = ["alice-agent", "bob-agent", "late", "early", "brief"] as const;

/** The client a resource server introspects as. */
export const INTROSPECTING_CLIENT = {
  clientId: "mcp-gateway",
  clientSecret: "mcp-gateway-secret",
} as const;

/** A running test issuer. */
export interface TestIssuer {
  /** Its issuer identifier, `http://127.0.0.1:<port>`. */
  readonly issuer: string;
  /** A fresh access token of `client` for `resource` with `scope` (space-separated). */
  token(client: (typeof ISSUER_CLIENTS)[number], resource: string, scope: string): Promise<string>;
  /** Revokes `token`, one of `client`'s own (RFC 7009): introspection calls it inactive from then on. */
  revoke(client: (typeof ISSUER_CLIENTS)[number], token: string): Promise<void>;
  /**
   * An access token its token endpoint would never issue, signed with the key
   * it signs with now: RFC 9068 (`typ` at+jwt unless given) for `resource`,
   * from alice-agent with the scope `mcp`, valid for five minutes, with
   * `claims` over those (an `undefined` claim is left out).
   */
  sign(resource: string, claims: Record<string, unknown>, typ?: string): Promise<string>;
  /** Restarts on the same port signing with a new key; the old one stays published. */
  rotate(): Promise<void>;
  /**
   * How many introspection requests (RFC 7662) it has been sent since it
   * started, and how many of those authenticated as `mcp-gateway`.
   */
  readonly introspections: { readonly asked: number; readonly asGateway: number };
  /** The id of the key it signs with now. */
  readonly signingKey: string;
  close(): Promise<void>;
}

async function signingJwk(kid: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" };
}

/** What an issuer's provider is made of: its address, keys, resources and what it counts. */
interface ProviderOf {
  readonly port: number;
  readonly keys: readonly JWK[];
  readonly resources: readonly string[];
  readonly scopes: string;
  readonly format: "jwt" | "opaque";
  readonly introspections: { asked: number; asGateway: number };
}

/** The oidc-provider of a test issuer: client credentials, resource indicators, introspection. */
function issuerProvider(o: ProviderOf) {
  const { port, keys, format, introspections } = o;
  const options = { resources: o.resources, scopes: o.scopes };
  const gatewayBasic = `Basic ${Buffer.from(`${INTROSPECTING_CLIENT.clientId}:${INTROSPECTING_CLIENT.clientSecret}`).toString("base64")}`;
  const provider = new Provider(`http://127.0.0.1:${port}`, {
    clients: [...ISSUER_CLIENTS, INTROSPECTING_CLIENT.clientId].map((id) => ({
      client_id: id,
      client_secret: `${id}-secret`,
      grant_types: ["client_credentials"],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: "client_secret_basic",
    })),
    jwks: { keys: keys as never },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => options.resources[0]!,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, resource) => {
          if (!options.resources.includes(resource))
            throw new errors.InvalidTarget("not a resource of this issuer");
          return {
            scope: options.scopes,
            audience: resource,
            accessTokenFormat: format,
            accessTokenTTL: 300,
            ...(format === "jwt" && { jwt: { sign: { alg: "RS256" as const } } }),
          };
        },
      },
    },
    formats: {
      customizers: {
        async jwt(_ctx, token, jwt) {
          const id = (token as { clientId?: string }).clientId;
          const iat = jwt.payload.iat as number;
          if (id === "late") jwt.payload.exp = iat - 3_600;
          if (id === "early") jwt.payload.nbf = iat + 3_600;
          if (id === "brief") jwt.payload.exp = iat + 2;
        },
      },
    },
    // An opaque token's lifetime is the issuer's own (a JWT's is set in its claims above).
    ttl: {
      ClientCredentials: (_ctx, _token, client) =>
        format === "opaque" && client.clientId === "brief" ? 2 : 300,
    },
  });
  // Every question a resource server sends is counted, before the provider answers it.
  provider.use(async (ctx, next) => {
    if (ctx.method === "POST" && ctx.path === "/token/introspection") {
      introspections.asked++;
      if (ctx.get("authorization") === gatewayBasic) introspections.asGateway++;
    }
    await next();
  });
  return provider;
}

/**
 * Starts an issuer for `resources`, granting at most `scopes`.
 *
 * @example
 * const op = await startIssuer({ resources: [resource], scopes: "mcp mcp.ops" });
 * const token = await op.token("alice-agent", resource, "mcp");
 */
export async function startIssuer(options: {
  readonly resources: readonly string[];
  readonly scopes: string;
  /** Another issuer's keys: tokens that verify with its key set but name this issuer. */
  readonly keysOf?: TestIssuer;
  /** The loopback port to listen on; default a free one. */
  readonly port?: number;
  /** What access tokens are: signed JWTs (the default), or opaque strings to introspect. */
  readonly format?: "jwt" | "opaque";
}): Promise<TestIssuer> {
  const format = options.format ?? "jwt";
  let keys: JWK[] = options.keysOf
    ? (options.keysOf as unknown as { keys: JWK[] }).keys
    : [await signingJwk("key-1")];
  let port = options.port ?? 0;
  let server: import("node:http").Server | undefined;
  const introspections = { asked: 0, asGateway: 0 };

  // The issuer names its own address: a free port is found first.
  const listen = async () => {
    if (port === 0) port = await freePort();
    const provider = issuerProvider({
      port,
      keys,
      resources: options.resources,
      scopes: options.scopes,
      format,
      introspections,
    });
    server = provider.listen(port, "127.0.0.1");
    await new Promise<void>((r) => server!.once("listening", () => r()));
  };
  await listen();

  const issuer = `http://127.0.0.1:${port}`;
  const self = {
    issuer,
    get keys() {
      return keys;
    },
    get introspections() {
      return { ...introspections };
    },
    get signingKey() {
      return keys[0]!.kid!;
    },
    async token(client: string, resource: string, scope: string) {
      const res = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${client}:${client}-secret`).toString("base64")}`,
          connection: "close",
        },
        body: new URLSearchParams({ grant_type: "client_credentials", scope, resource }),
      });
      const body = (await res.json()) as { access_token?: string };
      if (!res.ok || body.access_token === undefined)
        throw new Error(`the issuer refused a token: ${res.status} ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async revoke(client: string, token: string) {
      const res = await fetch(`${issuer}/token/revocation`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${client}:${client}-secret`).toString("base64")}`,
          connection: "close",
        },
        body: new URLSearchParams({ token, token_type_hint: "access_token" }),
      });
      if (!res.ok)
        throw new Error(`the issuer refused to revoke: ${res.status} ${await res.text()}`);
    },
    async sign(resource: string, claims: Record<string, unknown>, typ = "at+jwt") {
      const jwk = keys[0]!;
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        scope: "mcp",
        client_id: "alice-agent",
        sub: "alice-agent",
        jti: `forged-${now}-${Math.random().toString(36).slice(2)}`,
        iss: issuer,
        aud: resource,
        iat: now,
        exp: now + 300,
        ...claims,
      })
        .setProtectedHeader({ alg: "RS256", typ, kid: jwk.kid! })
        .sign(await importJWK(jwk, "RS256"));
    },
    async rotate() {
      keys = [await signingJwk(`key-${keys.length + 1}`), ...keys];
      await closeServer(server!);
      await listen();
    },
    async close() {
      await closeServer(server!);
    },
  };
  return self;
}

async function closeServer(s: import("node:http").Server): Promise<void> {
  await new Promise<void>((r) => {
    s.close(() => r());
    s.closeAllConnections();
  });
}
