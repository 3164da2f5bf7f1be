// The complete public surface of @rukh/json: any export added here becomes public API.
export { canonicalJson, fingerprint, sha256Hex } from "./_canonical.js";
export type { UnknownFieldRule } from "./_checker.js";
export { JsonChecker } from "./_checker.js";
export type { JsonErrorCode } from "./_errors.js";
export { JSON_ERROR_CODES, JSON_PARSE_ERROR_CODES, JsonError } from "./_errors.js";
export type { InvisibleCharacter } from "./_invisible.js";
export { findInvisible, replaceInvisible } from "./_invisible.js";
export type { Validation, ValidationIssue } from "./_issues.js";
export { codePointLength, pointerAppend } from "./_issues.js";
export type { LineBreak } from "./_line-break.js";
export { findLineBreak } from "./_line-break.js";
export type {
  JsonLimits,
  JsonObject,
  JsonParseResult,
  JsonValue,
  ParseJsonOptions,
} from "./_parse.js";
export {
  DEFAULT_JSON_LIMITS,
  JSON_MAX_BYTES,
  JSON_MAX_DEPTH,
  JSON_MAX_NODES,
  numberSourceText,
  parseJson,
} from "./_parse.js";
export { editDistance, lineColumn, nearestWord, pointerOffset, typoLimit } from "./_text.js";
