// Where a host of a state directory writes: its journal, diagnostics log,
// caches and cursor key. A state directory may be read-only (a shipped,
// immutable copy, as replicas use); what a host writes then goes to the
// owner's journal directory, and a host without one refuses to start,
// naming the fix. Nothing here writes.

import { constants } from "node:fs";
import { access } from "node:fs/promises";
import { join } from "node:path";
import { isJournalDir } from "../config/index.js";
import { ProfileError } from "../model/index.js";
import { journalDirVariable } from "../routes/index.js";

/**
 * Where one process of a state directory reads and writes what is not the
 * profile: see {@link StateDirectory.places}.
 *
 * @example
 * const { journalRoot } = await state.places();
 * const runs = await listRuns(journalRoot);
 */
export interface StatePlaces {
  /** The state directory. */
  readonly root: string;
  /**
   * Why this process cannot write the state directory, in words (`on a
   * read-only file system`, `this user may not write it`); `undefined` when
   * it can, or when it does not exist yet (the first publication makes it).
   */
  readonly readOnly: string | undefined;
  /**
   * The journal directory, when one is set, and what set it: the owner
   * configuration's `/journal/dir`, or the brand's variable (which wins).
   */
  readonly journalDir: { readonly path: string; readonly setBy: string } | undefined;
  /**
   * The directory whose `journal/`, `logs/` and movable `cache/` entries are
   * in use: the journal directory when one is set, else the state directory.
   */
  readonly journalRoot: string;
  /**
   * The directory whose `keys/cursor.key` signs list cursors: the state
   * directory when it holds the key (shipped with it) or can take one, else
   * the journal directory; `undefined` when neither.
   */
  readonly keyRoot: string | undefined;
  /**
   * Why a host cannot start here (a read-only state directory and no
   * journal directory), naming the configuration member and the variable
   * that fix it; `undefined` when it can.
   */
  readonly refusal: string | undefined;
}

/** What {@link statePlaces} decides from. */
export interface PlacesInput {
  readonly root: string;
  /** The active revision's `/journal/dir`, if any. */
  readonly configured: string | undefined;
  /** The brand, whose variable a refusal names; none: a generic name. */
  readonly brand: string | undefined;
  /** The brand variable's value for this process, if set. */
  readonly override: string | undefined;
}

const errno = (e: unknown) => (e as NodeJS.ErrnoException).code;

/**
 * Why this process cannot write `root`, in words, or `undefined` when it can
 * (or `root` does not exist yet).
 *
 * @example
 * const why = await whyReadOnly(state.root); // "on a read-only file system"
 */
export async function whyReadOnly(root: string): Promise<string | undefined> {
  try {
    await access(root, constants.W_OK);
    return undefined;
  } catch (e) {
    const code = errno(e);
    if (code === "EROFS") return "on a read-only file system";
    if (code === "EACCES" || code === "EPERM") return "this user may not write it";
    return undefined;
  }
}

/** Where the process writes, as {@link StatePlaces} describes it. */
export async function statePlaces(input: PlacesInput): Promise<StatePlaces> {
  const { root } = input;
  const variable = input.brand === undefined ? undefined : journalDirVariable(input.brand);
  let journalDir: StatePlaces["journalDir"];
  if (input.override !== undefined && input.override !== "") {
    if (!isJournalDir(input.override))
      throw new ProfileError(
        "invalid_config",
        `${variable ?? "journalDir"} is ${JSON.stringify(input.override)}; expected an absolute directory, without . or .. segments, of at most 4096 bytes`,
      );
    journalDir = { path: input.override, setBy: variable ?? "the journalDir option" };
  } else if (input.configured !== undefined)
    journalDir = { path: input.configured, setBy: "/journal/dir" };
  const readOnly = await whyReadOnly(root);
  const shipped = await access(join(root, "keys", "cursor.key")).then(
    () => true,
    () => false,
  );
  return {
    root,
    readOnly,
    journalDir,
    journalRoot: journalDir?.path ?? root,
    keyRoot: shipped || readOnly === undefined ? root : journalDir?.path,
    refusal:
      readOnly === undefined || journalDir !== undefined
        ? undefined
        : `the state directory ${root} is read-only (${readOnly}), and a host writes a journal, a diagnostics log and caches: give it a directory it can write, for every host in the owner configuration's /journal/dir (publish it where the state directory is writable, then ship that copy again), or for this host alone in ${variable ?? "its brand's <BRAND>_JOURNAL_DIR"}`,
  };
}

/**
 * One line on where a read-only state directory's host writes (for its
 * start and `doctor`): `<root> is read-only; the journal, … are in <dir>
 * (<what set it>), the cursor key <file> (shipped with it | …)`.
 *
 * @example
 * if (places.readOnly !== undefined) log(`the state directory ${placesLine(places)}`);
 */
export function placesLine(places: StatePlaces): string {
  const where =
    places.journalDir === undefined
      ? "no journal directory is set"
      : `the journal, diagnostics log and caches are in ${places.journalDir.path} (${places.journalDir.setBy})`;
  const key =
    places.keyRoot === undefined
      ? "no cursor key"
      : `the cursor key ${join(places.keyRoot, "keys", "cursor.key")} (${
          places.keyRoot === places.root
            ? "shipped with it"
            : "not shipped with it: cursors differ between replicas"
        })`;
  return `${places.root} is read-only; ${where}, ${key}`;
}

/**
 * Throws `read_only` when this process cannot write the state directory at
 * `root`: every change publishes into it, and a raw file-system error would
 * not say what to do.
 *
 * @example
 * await assertWritable(state.root);
 */
export async function assertWritable(root: string): Promise<void> {
  const why = await whyReadOnly(root);
  if (why !== undefined)
    throw new ProfileError(
      "read_only",
      `the state directory ${root} cannot be written (${why}): a change publishes a new profile revision into it. Make the change where the state directory is writable (the copy this one was shipped from), then ship that copy again`,
    );
}
