import { StateDirectory } from "../../src/index.js";
import { descriptor, makePackage, ownerConfig, tempDir } from "../_helpers.js";

const work = tempDir();

/** A fresh state directory with `acme.files` (`files count`, alias `wc`, and `commands` more) installed. */
export async function publishedFiles(commands: { id: string; path: string[] }[] = []) {
  const root = tempDir("rukh-routes-");
  const home = new StateDirectory(root);
  await home.setConfig(ownerConfig() as never);
  const pub = await home.install(
    await makePackage(
      work,
      descriptor("acme.files", "acme", [
        { id: "count", path: ["files", "count"], aliases: [["wc"]] },
        ...commands,
      ]),
    ),
  );
  return { root, home, pub };
}
