import { gunzipSync, gzipSync } from "node:zlib";
import { type PackageFiles, ProfileError } from "../model/index.js";

/** Bounds for reading a package. */
export interface PackageReadLimits {
  readonly maxCompressedBytes: number;
  readonly maxBytes: number;
  readonly maxFileBytes: number;
  readonly maxFiles: number;
  readonly maxPathBytes: number;
}

const SEGMENT_BAD = /[\\\0]/;

/** Throws unless `path` is a safe relative package path; returns it without a leading "./". */
export function checkPackagePath(raw: string, limits: PackageReadLimits): string {
  let path = raw.startsWith("./") ? raw.slice(2) : raw;
  if (path.endsWith("/")) path = path.slice(0, -1);
  if (Buffer.byteLength(path) > limits.maxPathBytes)
    throw new ProfileError(
      "path_traversal",
      `package path "${raw.slice(0, 80)}…" is longer than ${limits.maxPathBytes} bytes`,
    );
  if (path.startsWith("/") || SEGMENT_BAD.test(path))
    throw new ProfileError(
      "path_traversal",
      `package path "${raw}" is absolute or contains "\\" or NUL; expected a relative path`,
    );
  for (const seg of path.split("/"))
    if (seg === "" || seg === "." || seg === "..")
      throw new ProfileError(
        "path_traversal",
        `package path "${raw}" has an empty, "." or ".." segment; expected a plain relative path`,
      );
  return path;
}

function field(block: Buffer, offset: number, length: number): string {
  const end = block.indexOf(0, offset);
  return block.toString(
    "utf8",
    offset,
    end === -1 || end > offset + length ? offset + length : end,
  );
}

function octal(block: Buffer, offset: number, length: number, what: string): number {
  const text = field(block, offset, length).trim();
  if (!/^[0-7]{1,12}$/.test(text))
    throw new ProfileError(
      "malformed_archive",
      `tar header ${what} "${text}" is not an octal number`,
    );
  return Number.parseInt(text, 8);
}

/**
 * Reads a gzip-compressed ustar archive strictly: regular files and
 * directories only; links, devices, FIFOs and pax/GNU extension headers are
 * rejected, as are unsafe or duplicate paths and any limit breach.
 */
export function readTgz(bytes: Buffer, limits: PackageReadLimits): PackageFiles {
  if (bytes.length > limits.maxCompressedBytes)
    throw new ProfileError(
      "package_too_large",
      `compressed package is ${bytes.length} bytes; at most ${limits.maxCompressedBytes} are accepted`,
    );
  let tar: Buffer;
  try {
    // The tar stream holds headers and padding beyond file bytes; allow for them.
    tar = gunzipSync(bytes, { maxOutputLength: limits.maxBytes + (limits.maxFiles + 2) * 1024 });
  } catch (cause) {
    const tooLarge = (cause as { code?: string }).code === "ERR_BUFFER_TOO_LARGE";
    throw new ProfileError(
      tooLarge ? "package_too_large" : "malformed_archive",
      tooLarge ? "unpacked package exceeds the size limit" : "package is not valid gzip data",
      { cause },
    );
  }
  const files: PackageFiles = new Map();
  const seen = new Set<string>();
  let total = 0;
  let entries = 0;
  let pos = 0;
  for (;;) {
    if (pos + 512 > tar.length)
      throw new ProfileError(
        "malformed_archive",
        "tar archive ends without its end-of-archive blocks",
      );
    const block = tar.subarray(pos, pos + 512);
    if (block.every((b) => b === 0)) {
      const next = tar.subarray(pos + 512, pos + 1024);
      if (next.length !== 512 || !next.every((b) => b === 0))
        throw new ProfileError(
          "malformed_archive",
          "tar archive has a single zero block; expected two",
        );
      // Anything after the end marker other than zero padding is rejected.
      if (!tar.subarray(pos + 1024).every((b) => b === 0))
        throw new ProfileError("malformed_archive", "data after the tar end-of-archive marker");
      return files;
    }
    const magic = block.toString("latin1", 257, 263);
    if (magic !== "ustar\0" && magic !== "ustar ")
      throw new ProfileError("malformed_archive", `tar entry at byte ${pos} is not ustar`);
    const stored = octal(block, 148, 8, "checksum");
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : block[i]!;
    if (sum !== stored)
      throw new ProfileError("malformed_archive", `tar header checksum mismatch at byte ${pos}`);
    const name = field(block, 0, 100);
    const prefix = field(block, 345, 155);
    const rawPath = prefix ? `${prefix}/${name}` : name;
    const type = String.fromCharCode(block[156]!);
    const size = octal(block, 124, 12, "size");
    pos += 512;
    if (++entries > limits.maxFiles)
      throw new ProfileError(
        "package_too_large",
        `package has more than ${limits.maxFiles} entries`,
      );
    if (type === "1" || type === "2")
      throw new ProfileError(
        "link_not_allowed",
        `package entry "${rawPath}" is a ${type === "1" ? "hard" : "symbolic"} link; only regular files and directories are accepted`,
      );
    if (type !== "0" && type !== "\0" && type !== "5")
      throw new ProfileError(
        "unsupported_entry",
        `package entry "${rawPath}" has tar type "${type}"; only regular files and directories are accepted`,
      );
    if (rawPath === "./" || rawPath === ".") {
      if (type !== "5")
        throw new ProfileError(
          "path_traversal",
          `package entry "${rawPath}" is not a plain relative path`,
        );
      continue;
    }
    const path = checkPackagePath(rawPath, limits);
    if (seen.has(path))
      throw new ProfileError("duplicate_path", `package path "${path}" appears twice`);
    seen.add(path);
    if (type === "5") continue;
    if (size > limits.maxFileBytes)
      throw new ProfileError(
        "file_too_large",
        `package file "${path}" is ${size} bytes; at most ${limits.maxFileBytes} are accepted`,
      );
    total += size;
    if (total > limits.maxBytes)
      throw new ProfileError(
        "package_too_large",
        `package content exceeds ${limits.maxBytes} bytes`,
      );
    if (pos + size > tar.length)
      throw new ProfileError("malformed_archive", `package file "${path}" is truncated`);
    files.set(path, Buffer.from(tar.subarray(pos, pos + size)));
    pos += Math.ceil(size / 512) * 512;
  }
}

function header(path: string, size: number): Buffer {
  const block = Buffer.alloc(512);
  let name = path;
  let prefix = "";
  if (Buffer.byteLength(path) > 100) {
    const cut = path.lastIndexOf("/", 155);
    if (cut <= 0 || Buffer.byteLength(path.slice(cut + 1)) > 100)
      throw new ProfileError("path_traversal", `path "${path}" is too long for ustar`);
    prefix = path.slice(0, cut);
    name = path.slice(cut + 1);
  }
  block.write(name, 0, 100, "utf8");
  block.write("0000644\0", 100, "latin1");
  block.write("0000000\0", 108, "latin1");
  block.write("0000000\0", 116, "latin1");
  block.write(`${size.toString(8).padStart(11, "0")}\0`, 124, "latin1");
  block.write("00000000000\0", 136, "latin1");
  block.write("        ", 148, "latin1");
  block.write("0", 156, "latin1");
  block.write("ustar\0", 257, "latin1");
  block.write("00", 263, "latin1");
  block.write(prefix, 345, 155, "utf8");
  let sum = 0;
  for (const b of block) sum += b;
  block.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
  return block;
}

/** Writes files (sorted by path) as a deterministic gzip-compressed ustar archive. */
export function writeTgz(files: PackageFiles): Buffer {
  const parts: Buffer[] = [];
  for (const path of [...files.keys()].sort()) {
    const data = files.get(path)!;
    parts.push(header(path, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(parts));
}
