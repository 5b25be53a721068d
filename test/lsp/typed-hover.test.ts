/** prosec lsp on `returns:`: hover shows a typed binding's type, and an agent's. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HoverRequest, type MarkupContent } from "vscode-languageserver-protocol";
import { fileUri, positionOf, startLsp, type LspSession } from "../support/lsp-client.js";
import { temporaryFolder } from "../support/temp.js";

const main = `agent triager:
  returns: { verdict: "ship" | "hold" }

let risks = session "List the risks"
  returns: [{ title: string, detail?: string }]

output triage = session: triager
  prompt: "Ship {risks}?"
`;

describe("prosec lsp: hover on typed results", () => {
  let lsp: LspSession;
  let folder: string;
  const hover = async (needle: string, delta = 0, occurrence = 1) =>
    (
      (
        await lsp.connection.sendRequest(HoverRequest.type, {
          textDocument: { uri: fileUri(join(folder, "main.prose")) },
          position: positionOf(main, needle, delta, occurrence),
        })
      )?.contents as MarkupContent | undefined
    )?.value;

  beforeAll(async () => {
    folder = temporaryFolder("prosec-lsp-typed-");
    writeFileSync(join(folder, "main.prose"), main);
    lsp = startLsp(folder);
    await lsp.initialize(folder);
    await lsp.open(join(folder, "main.prose"), main);
    expect((await lsp.diagnostics(fileUri(join(folder, "main.prose")))).diagnostics).toEqual([]);
  });

  afterAll(() => lsp.process.kill());

  it("shows the type of a binding that a returns: types, where it is bound and where it is read", async () => {
    const expected =
      '```prose\nlet risks = session "List the risks"\n```\n\nvariable `risks`, set at line 4\n\ntype: `{ title: string, detail?: string }[]` (its `returns:`)';
    expect(await hover("risks =")).toBe(expected);
    expect(await hover("{risks}", 1)).toBe(expected);
  });

  it("shows an agent's returns:", async () => {
    expect(await hover("triager:")).toContain('- returns: `{ verdict: "ship" | "hold" }`');
  });
});
