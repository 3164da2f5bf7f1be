// Which published integrities check something: npm's SRI parser (ssri, in
// its strict mode) reads the text, and only a hash npm accepts as strong —
// SHA-256, SHA-384 or SHA-512 with a digest of its length — is kept. An
// empty digest, MD5, SHA-1 or garbage checks nothing and is refused.
import ssri from "ssri";

/** The strong algorithms and the bytes of their digests. */
const DIGEST_BYTES: Readonly<Record<string, number>> = { sha256: 32, sha384: 48, sha512: 64 };

/** Longest integrity text read. */
const INTEGRITY_MAX_LENGTH = 4096;

/**
 * The strong hashes of an SRI `integrity` (`sha512-…`, several separated
 * by spaces), as one SRI text, or `undefined` when it holds none: each must
 * be sha256, sha384 or sha512 with a canonical base64 digest of 32, 48 or
 * 64 bytes.
 *
 * @example
 * strongIntegrity("sha1-q2bzvkvnY8XIlhLCTUMVnb5JQpA= sha512-7iaw…Qw=="); // "sha512-7iaw…Qw=="
 * strongIntegrity("sha512-"); // undefined
 */
export function strongIntegrity(integrity: unknown): string | undefined {
  if (typeof integrity !== "string" || integrity.length > INTEGRITY_MAX_LENGTH) return undefined;
  const parsed = ssri.parse(integrity, { strict: true });
  if (parsed === null) return undefined;
  const kept: string[] = [];
  for (const [algorithm, bytes] of Object.entries(DIGEST_BYTES))
    for (const { digest } of parsed[algorithm] ?? []) {
      const decoded = Buffer.from(digest, "base64");
      if (decoded.length === bytes && decoded.toString("base64") === digest)
        kept.push(`${algorithm}-${digest}`);
    }
  return kept.length === 0 ? undefined : kept.join(" ");
}
