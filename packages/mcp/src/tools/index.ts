// What one binding's requests are answered with, on either transport: what
// its preset sees of the active revision, tools/list page by page, tools/call
// handed to the invocation core with its name resolved once, and who hears
// of list changes. Steps: ToolViews.current (the revision's projection under
// the endpoint's naming, and the tools the preset may see) → hostTools (list,
// call) → ListWatcher (list changes) → bindingHandlers (the three behind the
// protocol's dispatcher). Imports protocol/ and hosting/.

export type { BindingHandlers } from "./_handlers.js";
export { bindingHandlers } from "./_handlers.js";
export { ToolViews } from "./_views.js";
