// The complete public surface of @rukh/descriptor: any export added here becomes public API.

export type { DescriptorIssueCode, InputIssueCode } from "./_codes.js";
export { DESCRIPTOR_ISSUE_CODES, INPUT_ISSUE_CODES } from "./_codes.js";
export { validateCommandDeclarations } from "./_declaration.js";
export { parseDescriptor, validateDescriptor } from "./_descriptor.js";
export {
  COMMAND_ID_PATTERN,
  EXTENSION_ID_PATTERN,
  PUBLISHER_ID_PATTERN,
  REQUEST_NAME_PATTERN,
} from "./_ids.js";
export { defaultFlag } from "./_input-specs.js";
export type { SuppliedInputs, ValidatedInputs } from "./_inputs.js";
export { decodeCliInputs, decodeJsonInputs, validateInputs } from "./_inputs.js";
export { DESCRIPTOR_LIMITS, DESCRIPTOR_MAX_BYTES } from "./_limits.js";
export type {
  CliSpelling,
  CommandDeclaration,
  CommandHints,
  CommandSpec,
  DescriptorFormat,
  ExecuteSpec,
  ExtensionDescriptor,
  FeatureId,
  GroupSpec,
  InputSpec,
  InputType,
  InputValue,
  MachineSpec,
  RequestsSpec,
  ResultDeclarationSpec,
  ScalarSpec,
  ScalarType,
  ScalarValue,
  TaskSupport,
} from "./_model.js";
export {
  COMMAND_HINTS,
  DESCRIPTOR_FORMATS,
  REGISTERED_FEATURES,
  SCALAR_TYPES,
  TASK_SUPPORT,
} from "./_model.js";
export type { CliCommandSpec, CliParameter } from "./_projection.js";
export { cliSpec, mcpInputSchema } from "./_projection.js";
export { RESERVED_FLAGS, RESERVED_SHORT_FLAGS } from "./_rules.js";
export type { DescriptorTypesOptions } from "./_typescript.js";
export { descriptorTypes } from "./_typescript.js";
export { compareDecimal, DECIMAL_PATTERN } from "./_values.js";
