/**
 * Largest package document (packument) read from a registry: 16 MiB. Its
 * abbreviated form, which is asked for, is far smaller for any extension.
 */
export const PACKUMENT_MAX_BYTES = 16_777_216;
