// A command that never speaks the channel and ignores SIGTERM: only the
// invocation's process-tree kill can end it.
process.on("SIGTERM", () => {});
setInterval(() => {}, 1000);
