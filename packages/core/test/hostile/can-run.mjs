// Exits 0 if this user can load what the driver loads: the hostile suite runs
// it as uid 65534 first, and skips (saying why) where the checkout is private.
await import("@rukh/profile");
await import("../../dist/index.js");
