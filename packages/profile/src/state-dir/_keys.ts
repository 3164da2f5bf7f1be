// The state directory's own secrets: created once, mode 0600, by whichever
// process needs them first.
import { randomBytes } from "node:crypto";
import { link, mkdir, readFile, unlink } from "node:fs/promises";
import { join } from "node:path";
import { ioError, ProfileError } from "../model/index.js";
import { temporaryName } from "./_debris.js";
import { fsyncDir, writeDurable } from "./_durable.js";

function errno(e: unknown): string | undefined {
  return (e as { code?: string }).code;
}

/** The 32-byte HMAC key for tool-list cursors in `root/keys/`, created on first use. */
export async function cursorKey(root: string): Promise<Buffer> {
  const dir = join(root, "keys");
  const path = join(dir, "cursor.key");
  try {
    const key = await readFile(path);
    if (key.length !== 32) throw new ProfileError("invalid_key", `${path} does not hold 32 bytes`);
    return key;
  } catch (e) {
    if (e instanceof ProfileError) throw e;
    if (errno(e) !== "ENOENT") throw ioError("cannot read the cursor key", e);
  }
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await mkdir(join(root, "tmp"), { recursive: true });
    const tmp = join(
      root,
      "tmp",
      `${temporaryName("cursor.key")}${randomBytes(6).toString("hex")}`,
    );
    await writeDurable(tmp, randomBytes(32), 0o600);
    // link() fails if another process created the key first; then use theirs.
    await link(tmp, path).catch((e) => {
      if (errno(e) !== "EEXIST") throw e;
    });
    await unlink(tmp);
    await fsyncDir(dir);
    return await readFile(path);
  } catch (e) {
    throw ioError("cannot create the cursor key", e);
  }
}
