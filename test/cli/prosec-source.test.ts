/**
 * Where `prosec init`'s next steps install prosec from (src/init/prosec-source.ts): a project set up
 * by a prosec installed elsewhere stands alone, never linking into that install's folder.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { prosecSource } from "../../src/init/prosec-source.js";
import { temporaryFolder } from "../support/temp.js";

/** A prosec package folder at `root` (a package.json is all the function reads). */
function prosecAt(root: string): string {
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "prosec", version: "0.2.0" }));
  return root;
}

/** npm's record of a project's install, naming where its prosec came from. */
function installRecord(project: string, resolved: string): void {
  writeFileSync(
    join(project, "node_modules/.package-lock.json"),
    JSON.stringify({ lockfileVersion: 3, packages: { "node_modules/prosec": { version: "0.2.0", resolved } } }),
  );
}

describe("the prosec a new project installs", () => {
  it("installed globally (npm keeps no record of where from): packed from that install into the project", () => {
    const folder = temporaryFolder();
    const prosec = prosecAt(join(folder, "prefix/lib/node_modules/prosec"));
    // Not "prosec@0.2.0": prosec is not on the registry, where that name would fail or be someone else's.
    expect(prosecSource(join(folder, "app"), prosec)).toEqual({ pack: prosec, install: "./prosec-0.2.0.tgz" });
  });

  it("installed in another project from a tarball that is still there: that tarball, copied in by npm", () => {
    const folder = temporaryFolder();
    const prosec = prosecAt(join(folder, "tools/node_modules/prosec"));
    mkdirSync(join(folder, "packs"));
    writeFileSync(join(folder, "packs/prosec-0.2.0.tgz"), "");
    installRecord(join(folder, "tools"), "file:../packs/prosec-0.2.0.tgz");
    expect(prosecSource(join(folder, "app"), prosec)).toEqual({ install: join(folder, "packs/prosec-0.2.0.tgz") });
  });

  it("installed in another project from the registry: prosec at its version; from a tarball since removed: packed", () => {
    const folder = temporaryFolder();
    const prosec = prosecAt(join(folder, "tools/node_modules/prosec"));
    installRecord(join(folder, "tools"), "https://registry.npmjs.org/prosec/-/prosec-0.2.0.tgz");
    expect(prosecSource(join(folder, "app"), prosec)).toEqual({ install: "prosec@0.2.0" });
    installRecord(join(folder, "tools"), "file:../packs/prosec-0.2.0.tgz");
    expect(prosecSource(join(folder, "app"), prosec)).toEqual({ pack: prosec, install: "./prosec-0.2.0.tgz" });
  });

  it("in the project's own node_modules: nothing to install", () => {
    const folder = temporaryFolder();
    const prosec = prosecAt(join(folder, "app/node_modules/prosec"));
    expect(prosecSource(join(folder, "app"), prosec)).toBeUndefined();
  });

  it("a checkout or an unpacked tarball: its folder, near by relative path, far by absolute path", () => {
    const folder = temporaryFolder();
    const checkout = prosecAt(join(folder, "prosec"));
    expect(prosecSource(join(folder, "app"), checkout)).toEqual({ install: "../prosec" });
    expect(prosecSource(folder, checkout)).toEqual({ install: "./prosec" });
    expect(prosecSource(join(folder, "a/b/c/app"), checkout)).toEqual({ install: checkout });
  });
});
