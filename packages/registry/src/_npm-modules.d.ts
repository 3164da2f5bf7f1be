// The parts of npm's own libraries this package uses. They ship no types;
// these declarations are internal and never reach the public surface.

declare module "npm-package-arg" {
  interface Result {
    readonly type: string;
    readonly name: string | null;
    readonly escapedName: string | null;
    readonly scope: string | null;
    readonly fetchSpec: string | null;
    readonly raw: string;
  }
  function npa(spec: string, where?: string): Result;
  export = npa;
}

declare module "npm-pick-manifest" {
  function pick(
    packument: unknown,
    wanted: string,
    opts?: { readonly defaultTag?: string },
  ): { readonly version: string };
  export = pick;
}

declare module "npm-registry-fetch" {
  interface Body extends AsyncIterable<Buffer> {}
  interface Response {
    readonly status: number;
    readonly headers: { get(name: string): string | null };
    readonly body: Body;
  }
  function regFetch(url: string, opts: Record<string, unknown>): Promise<Response>;
  namespace regFetch {
    function pickRegistry(spec: unknown, opts: Record<string, unknown>): string;
    /** npm's credentials for a request to `uri` (none when `opts.forceAuth` holds none). */
    function getAuth(
      uri: string,
      opts: Record<string, unknown>,
    ): {
      readonly token: string | null;
      readonly auth: string | null;
      readonly cert: string | null;
      readonly key: string | null;
    };
  }
  export = regFetch;
}

declare module "@npmcli/config" {
  class Config {
    constructor(options: Record<string, unknown>);
    load(): Promise<void>;
    readonly flat: Record<string, unknown>;
  }
  export = Config;
}

declare module "@npmcli/config/lib/definitions/index.js" {
  const npmDefinitions: {
    readonly definitions: Record<string, unknown>;
    readonly shorthands: Record<string, unknown>;
    readonly flatten: (obj: unknown, flat?: Record<string, unknown>) => Record<string, unknown>;
  };
  export = npmDefinitions;
}

declare module "make-fetch-happen" {
  function makeFetch(
    url: string,
    opts: Record<string, unknown>,
  ): Promise<{
    readonly status: number;
    readonly headers: { get(name: string): string | null };
    readonly body: AsyncIterable<Buffer>;
  }>;
  export = makeFetch;
}

declare module "ssri" {
  interface Hash {
    readonly algorithm: string;
    readonly digest: string;
  }
  type Integrity = Readonly<Record<string, readonly Hash[] | undefined>>;
  function parse(sri: string, opts?: { readonly strict?: boolean }): Integrity | null;
  const ssri: { parse: typeof parse };
  export = ssri;
}

declare module "@npmcli/redact/server" {
  export function redact(value: string): string;
}

declare module "semver" {
  interface SemVer {
    readonly version: string;
    readonly build: readonly string[];
  }
  const semver: { parse(version: string): SemVer | null };
  export = semver;
}
