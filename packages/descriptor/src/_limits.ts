/** Largest descriptor file, in bytes. */
export const DESCRIPTOR_MAX_BYTES = 262_144;
/** Most commands in one extension. */
export const MAX_COMMANDS = 256;
/** Most groups in one extension. */
export const MAX_GROUPS = 64;
/** Most inputs of one command. */
export const MAX_INPUTS = 64;
/** Longest id (extension, publisher, command, input, flag), in characters. */
export const MAX_ID_LENGTH = 64;
/** Most words in a CLI path. */
export const MAX_PATH_WORDS = 8;
/** Most aliases of one command. */
export const MAX_ALIASES = 8;
/** Longest summary, in code points. */
export const MAX_SUMMARY_LENGTH = 200;
/** Longest description, in code points. */
export const MAX_DESCRIPTION_LENGTH = 4_000;
/** Most values of one enum. */
export const MAX_ENUM_VALUES = 256;
/** Largest `maxItems` a list input may declare. */
export const MAX_LIST_ITEMS = 1_024;
/** Longest string input value, in code points, whatever `maxLength` says. */
export const MAX_STRING_INPUT_LENGTH = 65_536;
/** Longest decimal input value, in characters. */
export const MAX_DECIMAL_LENGTH = 128;
/** Most requested actions or resources of one command. */
export const MAX_REQUESTS = 64;

/** All descriptor limits in one frozen object. */
export const DESCRIPTOR_LIMITS = Object.freeze({
  maxBytes: DESCRIPTOR_MAX_BYTES,
  maxCommands: MAX_COMMANDS,
  maxGroups: MAX_GROUPS,
  maxInputs: MAX_INPUTS,
  maxIdLength: MAX_ID_LENGTH,
  maxPathWords: MAX_PATH_WORDS,
  maxAliases: MAX_ALIASES,
  maxSummaryLength: MAX_SUMMARY_LENGTH,
  maxDescriptionLength: MAX_DESCRIPTION_LENGTH,
  maxEnumValues: MAX_ENUM_VALUES,
  maxListItems: MAX_LIST_ITEMS,
  maxStringInputLength: MAX_STRING_INPUT_LENGTH,
  maxDecimalLength: MAX_DECIMAL_LENGTH,
  maxRequests: MAX_REQUESTS,
});
