import { validateWithClock } from "../src/_validate.js";

/**
 * validateCommandResult with its elapsed-time bound held still: for the
 * suites about what a result may be, whose verdicts must not turn on how
 * loaded the machine running them is (the bound itself is tested with
 * clocks of its own in limits.test.ts).
 */
export const validateUntimed = (
  declaration: Parameters<typeof validateWithClock>[0],
  received: unknown,
  options?: Parameters<typeof validateWithClock>[2],
): ReturnType<typeof validateWithClock> =>
  validateWithClock(declaration, received, options, () => 0);
