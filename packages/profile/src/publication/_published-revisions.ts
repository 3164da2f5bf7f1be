// Reading the published revisions: the `active` pointer, a revision by id
// (verified against its id, then cached: a revision never changes) and the
// history back through the parents. Another reader of the same state
// directory in this process reuses a verified revision while its file keeps
// the stamp it was read with.
import { join } from "node:path";
import { fingerprint, type JsonValue, parseJson, sha256Hex } from "@rukh/json";
import { ioError, ProfileError, type ProfileRevision } from "../model/index.js";
import {
  REVISION_ID,
  REVISION_MAX_BYTES,
  readFileAtMost,
  readStamped,
  stampOf,
} from "../routes/index.js";
import { validateRevision, withoutRegistryUserInfo } from "./_revision-check.js";

const ACTIVE_MAX_BYTES = 128;

/**
 * The revisions this process verified, by file path, with the stamp their
 * file had when read, the most recent {@link SHARED_REVISIONS}: a built-in's
 * journal and its publication (each with a `StateDirectory` of its own) then
 * verify the active revision once. A file whose stamp differs (rewritten,
 * replaced, removed) is read and verified again, so a check such as doctor's
 * still sees an edit.
 */
const shared = new Map<string, { readonly revision: ProfileRevision; readonly stamp: string }>();
const SHARED_REVISIONS = 16;

/** The revisions of one state directory, each read and verified once. */
export class PublishedRevisions {
  readonly #root: string;
  readonly #read = new Map<string, ProfileRevision>();

  constructor(root: string) {
    this.#root = root;
  }

  /** The id named by `active`, or `null` before the first publication. */
  active(): string | null {
    let bytes: ReturnType<typeof readFileAtMost>;
    try {
      bytes = readFileAtMost(join(this.#root, "active"), ACTIVE_MAX_BYTES);
    } catch (e) {
      throw ioError("cannot read active", e);
    }
    if (bytes === undefined) return null;
    const text = bytes === "large" ? "" : bytes.toString("latin1").trimEnd();
    if (!REVISION_ID.test(text))
      throw new ProfileError("invalid_state", "the active file does not name a revision id");
    return text;
  }

  /** A revision file, verified: its content must hash to its id. */
  read(id: string): ProfileRevision {
    const cached = this.#read.get(id);
    if (cached !== undefined) return cached;
    if (!REVISION_ID.test(id))
      throw new ProfileError("unknown_revision", `"${id}" is not a revision id`);
    const path = join(this.#root, "revisions", `${id}.json`);
    const known = shared.get(path);
    if (known !== undefined && known.stamp === stampOf(path)) {
      this.#read.set(id, known.revision);
      return known.revision;
    }
    let read: ReturnType<typeof readFileAtMost>;
    let stamp: string | undefined;
    try {
      ({ value: read, stamp } = readStamped(path, () => readFileAtMost(path, REVISION_MAX_BYTES)));
    } catch (e) {
      throw ioError(`cannot read revision ${id}`, e);
    }
    if (read === undefined)
      throw new ProfileError("unknown_revision", `revision ${id} does not exist`);
    if (read === "large")
      throw new ProfileError(
        "invalid_revision",
        `revision ${id} is larger than ${REVISION_MAX_BYTES} bytes`,
      );
    const v = validateRevision(withoutRegistryUserInfo(revisionValue(id, read)));
    if (!v.ok)
      throw new ProfileError(
        "invalid_revision",
        `revision ${id} is invalid: ${v.issues[0]?.path} ${v.issues[0]?.message}`,
        { issues: v.issues },
      );
    this.#read.set(id, v.value);
    shared.delete(path);
    if (stamp !== undefined) shared.set(path, { revision: v.value, stamp });
    if (shared.size > SHARED_REVISIONS) shared.delete(shared.keys().next().value!);
    return v.value;
  }

  /** Remembers a revision this process just published. */
  published(id: string, revision: ProfileRevision): void {
    this.#read.set(id, revision);
  }

  /** Forgets a revision garbage collection removed. */
  forget(id: string): void {
    this.#read.delete(id);
    shared.delete(join(this.#root, "revisions", `${id}.json`));
  }

  /** Revisions from the active one back through its parents, newest first. */
  history(limit: number): { id: string; revision: ProfileRevision }[] {
    const out: { id: string; revision: ProfileRevision }[] = [];
    let id = this.active();
    while (id !== null && out.length < limit) {
      let revision: ProfileRevision;
      try {
        revision = this.read(id);
      } catch (e) {
        // A parent that garbage collection removed ends the history there.
        if (out.length > 0 && e instanceof ProfileError && e.code === "unknown_revision") break;
        throw e;
      }
      out.push({ id, revision });
      id = revision.parent;
    }
    return out;
  }
}

/** The JSON value of a revision file whose bytes must hash to `id`. */
function revisionValue(id: string, bytes: Buffer): JsonValue {
  // The bytes are the canonical text the id is the hash of: a plain parse reads exactly it.
  if (sha256Hex(bytes) === id) return JSON.parse(bytes.toString("utf8"));
  const parsed = parseJson(bytes, {
    limits: { maxBytes: REVISION_MAX_BYTES, maxNodes: 2_000_000 },
  });
  if (!parsed.ok)
    throw new ProfileError("invalid_revision", `revision ${id} is not strict JSON`, {
      cause: parsed.error,
    });
  if (fingerprint(parsed.value) !== id)
    throw new ProfileError("invalid_revision", `revision ${id} does not hash to its id`);
  return parsed.value;
}
