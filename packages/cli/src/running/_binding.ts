// Who the CLI's calls run for: the brand's own binding where it sets one,
// else the person at the terminal with the owner's own authority.

import { userInfo } from "node:os";
import { type HostBinding, OWNER_AUTHORITY } from "@rukh/core";
import type { CliOptions } from "../declarations/index.js";

function safeUser(): string {
  try {
    return userInfo().username || "user";
  } catch {
    return "user";
  }
}

/**
 * The binding of a call of the CLI of `brand` under `preset`: the OS user,
 * actor `<brand>-cli` and authority `local`, each unless `options.binding`
 * says otherwise.
 */
export function cliBinding(options: CliOptions, brand: string, preset: string): HostBinding {
  return {
    subject: options.binding?.subject ?? safeUser(),
    actor: options.binding?.actor ?? `${brand}-cli`,
    taskAuthorityRef: options.binding?.taskAuthorityRef ?? OWNER_AUTHORITY,
    preset,
  };
}
