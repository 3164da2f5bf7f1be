// Imported by held.cjs while a held process waits. Resolving a package
// specifier and a relative one (never loading what they name) compiles the
// code of Node's ES module resolver that the command's own imports take once
// the process is handed over, so that work is not on the call's time. It
// names only this package's own files.
import.meta.resolve("@rukh/ipc");
import.meta.resolve("./held.cjs");
