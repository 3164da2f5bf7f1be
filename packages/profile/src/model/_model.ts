// The types the profile's files share — the owner's configuration, an
// installed revision, its projections and a package's manifest — in a file
// that imports no validator, so naming a type never pulls in the code that
// checks it.

import type {
  CliCommandSpec,
  CommandHints,
  CommandSpec,
  ExtensionDescriptor,
  GroupSpec,
  TaskSupport,
} from "@rukh/descriptor";
import type { JsonObject } from "@rukh/json";
import type { McpTransportLimits, OwnerLimits } from "./_limits.js";

/** Stable codes of owner-configuration issues. */
export const CONFIG_ISSUE_CODES = [
  "invalid_json",
  "expected_object",
  "expected_array",
  "expected_string",
  "expected_integer",
  "missing_member",
  "unknown_member",
  "invalid_name",
  "invalid_identity",
  "invalid_public_key",
  "invalid_value",
  "duplicate",
  "unknown_preset",
  "limit_not_tighter",
] as const;

/** One of {@link CONFIG_ISSUE_CODES}. */
export type ConfigIssueCode = (typeof CONFIG_ISSUE_CODES)[number];

/** A publisher the owner trusts, with its Ed25519 public key (base64 of the 32 raw bytes). */
export interface TrustedPublisher {
  readonly id: string;
  readonly publicKey: string;
  /**
   * The extension ids it may install: `acme.*` (any id under `acme.`) or an
   * exact id. Default `<id>.*`. No two publishers' namespaces overlap.
   */
  readonly namespaces?: readonly string[];
  /**
   * Where its packages may be installed from: absolute paths of directories
   * (a package inside one, at any depth) or of package files. Unset: anywhere.
   */
  readonly sources?: readonly string[];
}

/** A task preset: which commands a task may see and use, and its bounds. */
export interface TaskPreset {
  /** Command identities, or `<extension id>/*` for every command of an extension. */
  readonly commands: readonly string[];
  readonly actions: readonly string[];
  readonly resources: readonly string[];
  readonly deadlineMs: number;
  readonly maxConcurrency: number;
  readonly enforcement: "host-trusted" | "strict";
  /** Per-invocation resource limits; each omitted one takes its default (see {@link PRESET_RESOURCE_DEFAULTS}). */
  readonly limits?: PresetResourceLimits;
  /**
   * The owner's hints for this preset's tools, in place of their publishers':
   * by command identity, or `<extension id>/*` (an identity's own entry wins).
   */
  readonly hints?: { readonly [identityOrPattern: string]: CommandHints };
  /**
   * The owner's word, for this preset, on running a tool's MCP calls as
   * tasks, in place of its publisher's: by command identity, or `<extension
   * id>/*` (an identity's own entry wins).
   */
  readonly tasks?: { readonly [identityOrPattern: string]: TaskSupport };
  /**
   * The owner's consent, in their words, to give this host-trusted preset
   * to agents (MCP): what its commands may do, unconfined, as the owner's
   * user. Without it, an agent is not served or configured with a
   * host-trusted preset. A strict preset needs none.
   */
  readonly agentConsent?: string;
}

/** Resource limits of every command process of a preset (kernel resource limits, per process). */
export interface PresetResourceLimits {
  readonly memoryBytes?: number;
  readonly processes?: number;
  readonly openFiles?: number;
  readonly fileSizeBytes?: number;
}

/**
 * The resource limits a preset gets for each member it omits: 1 GiB of
 * address space, 256 processes, 1,024 open files, 1 GiB per written file.
 *
 * @example
 * PRESET_RESOURCE_DEFAULTS.memoryBytes; // 1073741824
 */
export const PRESET_RESOURCE_DEFAULTS: Required<PresetResourceLimits> = Object.freeze({
  memoryBytes: 1_073_741_824,
  processes: 256,
  openFiles: 1_024,
  fileSizeBytes: 1_073_741_824,
});

/** The owner configuration: trust, exposure, presets, limits and naming. */
export interface OwnerConfig {
  readonly brand: string;
  readonly endpointNamespace: string;
  readonly trustedPublishers: readonly TrustedPublisher[];
  readonly exposure?: {
    readonly commands?: readonly string[];
    readonly extensions?: readonly string[];
  };
  readonly presets: { readonly [name: string]: TaskPreset };
  readonly defaultPreset: string;
  readonly limits?: Partial<OwnerLimits>;
  /**
   * MCP: the tool-name form of the profile's own projection (default
   * `full`), and the named endpoints `mcp serve --endpoint` binds.
   */
  readonly mcp?: {
    readonly toolNames?: "full" | "compact";
    readonly endpoints?: { readonly [name: string]: McpEndpointConfig };
  };
  /**
   * The strict sandbox: where bubblewrap is (an absolute path; default the
   * first existing of /usr/bin/bwrap, /bin/bwrap), and, for a host running
   * as root, the uids strict calls run as: each call takes one no other
   * process has while it runs (default {@link STRICT_UIDS_DEFAULT}).
   */
  readonly sandbox?: { readonly program?: string; readonly uids?: StrictUids };
  /**
   * How much invocation history the journal keeps (default 30 days and 256
   * MiB, the oldest going first), whether start records keep the inputs
   * themselves (default no: only their digest), and `dir`: an absolute
   * directory that holds the journal, the diagnostics log, the caches that
   * can move and, when the state directory neither holds nor can take one,
   * the cursor key (default: the state directory itself). A host can serve
   * a read-only state directory only with one. `results`: how the
   * validated results of calls are kept to be read again (see
   * {@link ResultsRetention}).
   */
  readonly journal?: {
    readonly maxAgeDays?: number;
    readonly maxBytes?: number;
    readonly recordInputs?: boolean;
    readonly dir?: string;
    readonly results?: ResultsRetention;
  };
}

/**
 * How long, and how much of, the validated results of calls is kept beside
 * the journal, so that the CLI's owner (`runs show --result`) or the MCP
 * binding that made a call can read its result again: at most
 * `maxResultBytes` a result (default the result limit itself, 131072; 0
 * keeps none), `maxBytes` in all (default 64 MiB, the oldest going first)
 * and `maxAgeDays` (default 7) by the journal's time.
 */
export interface ResultsRetention {
  readonly maxResultBytes?: number;
  readonly maxBytes?: number;
  readonly maxAgeDays?: number;
}

/**
 * A range of uids strict calls of a root host run as: `count` uids from
 * `first`.
 *
 * @example
 * const uids: StrictUids = { first: 1_879_048_192, count: 65_536 };
 */
export interface StrictUids {
  readonly first: number;
  readonly count: number;
}

/**
 * The uids strict calls of a root host take by default: 65,536 from
 * 0x70000000, above the ranges systems give to accounts, services and
 * containers.
 */
export const STRICT_UIDS_DEFAULT: StrictUids = Object.freeze({
  first: 1_879_048_192,
  count: 65_536,
});

/** How a projection names its tools: the namespace in the fingerprint, and the form. */
export interface ToolNaming {
  readonly namespace: string;
  readonly style: "full" | "compact";
}

/** One endpoint as the owner configuration holds it (`mcp.endpoints.<name>`). */
export interface McpEndpointConfig {
  /** The task preset every request of this endpoint is bound to. */
  readonly preset: string;
  /** The endpoint namespace its tool names are fingerprinted with; default the profile's. */
  readonly namespace?: string;
  /** `full` or `compact` tool names; default the profile's `mcp.toolNames`. */
  readonly toolNames?: "full" | "compact";
  /** The longest a call may run, in ms; at most the preset's `deadlineMs`. */
  readonly deadlineMs?: number;
  /** Transport limits, each at most its default. */
  readonly limits?: Partial<McpTransportLimits>;
  /**
   * Extensions linked for development (`ext link`) whose tools this endpoint
   * may list and call, when its preset allows them; no other endpoint sees a
   * development link.
   */
  readonly devExtensions?: readonly string[];
  /** How it is served over HTTP; without it, it never is. */
  readonly http?: McpHttpConfig;
  /**
   * What a client is told of the server when it connects (MCP `instructions`:
   * the initialize and server/discover results), at most
   * `MCP_INSTRUCTIONS_MAX_LENGTH` characters.
   */
  readonly instructions?: string;
}

/** An endpoint with every default filled in. */
export interface McpEndpoint {
  readonly name: string;
  readonly preset: string;
  readonly naming: ToolNaming;
  /** Absent: the preset's deadline alone bounds a call. */
  readonly deadlineMs?: number;
  readonly limits: Partial<McpTransportLimits>;
  /** The development links named for it (none unless the owner names some). */
  readonly devExtensions: readonly string[];
  /** Its HTTP side, when the owner gave it one. */
  readonly http?: McpHttpConfig;
  /** What clients are told when they connect, when the owner wrote it. */
  readonly instructions?: string;
}

/** The endpoint `mcp serve` binds when none is named. */
export const DEFAULT_ENDPOINT = "default";

/** The preset of the default endpoint when the owner configures none: the confined one. */
export const DEFAULT_ENDPOINT_PRESET = "agent";

/** A scope of a token that chooses the preset its requests run under. */
export interface McpScopePreset {
  readonly scope: string;
  readonly preset: string;
}

/** `mcp.endpoints.<name>.http` as the owner configuration holds it. */
export interface McpHttpConfig {
  /** The endpoint's canonical URL: clients connect to it, tokens name it as their audience. */
  readonly resource: string;
  /** `host:port` to listen on; default `127.0.0.1` and the resource's port (else 8080). */
  readonly listen?: string;
  /** `Host` values answered besides the resource's own and the listening address. */
  readonly allowedHosts?: readonly string[];
  /** Browser origins allowed besides the resource's own. */
  readonly allowedOrigins?: readonly string[];
  readonly auth: {
    /** The authorization server's issuer identifier. */
    readonly issuer: string;
    /** Its key set; default the `jwks_uri` its metadata names. */
    readonly jwksUri?: string;
    /** Scopes every token must carry. */
    readonly requiredScopes?: readonly string[];
    /** Scopes that choose another preset than the endpoint's, first match first. */
    readonly presets?: readonly McpScopePreset[];
    /** Accepted clock difference in seconds (default 30, at most 300). */
    readonly clockToleranceSeconds?: number;
    /** Opaque tokens too, asked about at the issuer (RFC 7662). */
    readonly introspection?: McpIntrospectionConfig;
  };
}

/**
 * How an endpoint introspects opaque tokens. The client secret is never in
 * the configuration (revisions are shipped and kept): the server reads it
 * from the environment variable named here when it starts.
 */
export interface McpIntrospectionConfig {
  /** Default the `introspection_endpoint` the issuer's metadata names. */
  readonly endpoint?: string;
  /** The endpoint's own client id at the issuer. */
  readonly clientId: string;
  /** The environment variable holding its client secret. */
  readonly clientSecretEnv: string;
  /** How long an active answer is trusted, in seconds (default 30, at most 300). */
  readonly cacheSeconds?: number;
}

/** One installed extension as a revision records it. */
export interface InstalledExtension {
  readonly id: string;
  readonly version: string;
  readonly publisher: string;
  /** Digest of the package manifest; the package lives at `store/<digest>`. */
  readonly digest: string;
  readonly enabled: boolean;
  /**
   * The absolute source directory of a development link (`ext link`): an
   * unsigned copy of it, stored like any package, for the local user only.
   * Absent for an installed package.
   */
  readonly dev?: string;
  /**
   * Where an installed package was fetched from, when it came from an npm
   * registry (`ext install @jane/hello`); absent for a folder or file. It
   * says where the bytes came from, not why they are trusted: the signature
   * does that, as for every package.
   */
  readonly origin?: ExtensionOrigin;
}

/**
 * The npm registry an installed package came from: what was asked for and
 * what was fetched.
 *
 * @example
 * const origin: ExtensionOrigin = { registry: "https://registry.example/", name: "@jane/hello", version: "1.2.0", integrity: "sha512-…", spec: "^1.2" };
 */
export interface ExtensionOrigin {
  /** The registry npm's configuration named for the package, ending in `/`. */
  readonly registry: string;
  /** The npm package name. */
  readonly name: string;
  /** The npm version fetched. */
  readonly version: string;
  /** The SRI integrity of the fetched tarball, as the registry published it. */
  readonly integrity: string;
  /** What it was installed as, which `ext upgrade` follows: a dist-tag (`latest`), a range or a version. */
  readonly spec: string;
}

/** An immutable, published profile revision. Its id is `fingerprint()` of this object. */
export interface ProfileRevision {
  readonly format: "rukh.profile/1";
  readonly sequence: number;
  readonly parent: string | null;
  readonly createdAt: string;
  readonly config: OwnerConfig;
  /** Sorted by id. */
  readonly extensions: readonly InstalledExtension[];
  /** Counts changes of the CLI route table (paths and aliases → identities). */
  readonly commandGeneration: number;
  /** SHA-256 of the header line of its `revisions/<id>.routes.json` (whose header holds a digest of every line), which binds the CLI's route cache to it (absent in earlier versions' revisions). */
  readonly routesDigest?: string;
  /** SHA-256 of its `revisions/<id>.catalog.json`, the validated descriptors of its enabled extensions (absent in earlier versions' revisions). */
  readonly catalogDigest?: string;
}

/** What routing needs of an extension: who it is, its groups and each command's paths. */
export interface Routing {
  readonly id: string;
  readonly publisher: string;
  readonly groups: readonly GroupSpec[];
  readonly commands: readonly Pick<CommandSpec, "identity" | "path" | "aliases">[];
}

/** One MCP tool of a projection: static metadata only. */
export interface McpTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
  /** The command's closed outcome envelope, its result inside (see `listedOutputSchema`). */
  readonly outputSchema?: JsonObject | undefined;
  /** The canonical command identity `<extension id>/<command id>` the name resolves to. */
  readonly identity: string;
  /** What the command's publisher says of its effects (not listed as such: see `toolAnnotations`). */
  readonly hints?: CommandHints | undefined;
  /** Whether its publisher lets a call run as a task (absent: forbidden; see `effectiveTaskSupport`). */
  readonly task?: TaskSupport | undefined;
}

/** One command as the CLI routes it. */
export interface CliRoute {
  readonly extension: string;
  readonly identity: string;
  readonly path: readonly string[];
  readonly aliases: readonly (readonly string[])[];
  readonly cli: CliCommandSpec;
}

/** A CLI group (help text for a path prefix); the first extension by id supplies the text. */
export interface CliGroup {
  readonly path: readonly string[];
  readonly summary: string;
  readonly description?: string;
  readonly extensions: readonly string[];
}

/** The CLI route table of a projection. */
export interface CliRouteTable {
  readonly commands: readonly CliRoute[];
  readonly groups: readonly CliGroup[];
}

/** The derived, read-only view of one profile revision: CLI routes and MCP tools. */
export interface ToolProjection {
  readonly revisionId: string;
  readonly commandGeneration: number;
  readonly endpointNamespace: string;
  /** How its tools are named: the profile's naming, or an endpoint's. */
  readonly naming: ToolNaming;
  /** Every projected MCP tool, in name order. */
  readonly tools: readonly McpTool[];
  readonly routes: CliRouteTable;
  readonly config: OwnerConfig;
  /**
   * The ids of the extensions linked for development (`ext link`), sorted:
   * their tools are visible only to an endpoint whose owner names them.
   */
  readonly devExtensions: readonly string[];
}

/** One enabled extension with its verified descriptor. */
export interface LoadedExtension {
  readonly descriptor: ExtensionDescriptor;
}

/**
 * One MCP tool as a catalog indexes it: identity, encoded size without its
 * name, title, and the actions and resources the command requests (what a
 * preset must grant for the tool to be listed).
 */
export type IndexedTool = readonly [
  identity: string,
  bytes: number,
  title: string,
  actions: readonly string[],
  resources: readonly string[],
  /** The command runs only confined (absent in an index written before it could). */
  strict?: boolean,
];

/** Path of the descriptor inside a package. */
export const DESCRIPTOR_PATH = "rukh-extension.json";

/** Path of the detached signature inside a package. */
export const SIGNATURE_PATH = "rukh-signature.json";

/** One file of a package manifest. */
export interface ManifestFile {
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
}

/** The manifest of a package: every regular file except the signature, sorted by path. */
export interface PackageManifest {
  readonly format: "rukh.manifest/1";
  readonly files: readonly ManifestFile[];
}

/** The detached signature `rukh-signature.json`. */
export interface PackageSignature {
  readonly format: "rukh.signature/1";
  readonly publisher: string;
  readonly manifestDigest: string;
  readonly signature: string;
}

/** Package contents in memory: `/`-separated relative path → bytes. */
export type PackageFiles = Map<string, Buffer>;

/** A package that passed every check: its digest, descriptor and files. */
export interface VerifiedPackage {
  readonly digest: string;
  readonly descriptor: ExtensionDescriptor;
  readonly files: PackageFiles;
}
