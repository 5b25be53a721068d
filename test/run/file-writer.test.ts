import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileWriter } from "../../runtime/durable/file-writer.js";
import { temporaryFolder } from "../support/temp.js";

// A batch written on the spot that takes this long or more moves the writer to the thread pool: 0 moves it at
// the first file, Infinity never.
const modes = [
  ["on the spot", Infinity],
  ["through the thread pool after the first write", 0],
] as const;

describe.each(modes)("a run's readable files, written %s", (_mode, slowWriteMs) => {
  it("end with the latest content asked for, in folders made as needed, with no temporary file left", async () => {
    const folder = temporaryFolder();
    const writer = new FileWriter(slowWriteMs);
    let renders = 0;
    for (let index = 0; index < 20; index++)
      writer.write(join(folder, "bindings", `anon_${index}.md`), `value ${index}\n`);
    writer.write(join(folder, "state.md"), "first\n");
    writer.write(join(folder, "state.md"), () => `rendered ${++renders}\n`);
    await writer.flush();
    expect(readFileSync(join(folder, "state.md"), "utf8")).toBe("rendered 1\n");
    expect(renders).toBe(1);
    expect(readFileSync(join(folder, "bindings", "anon_7.md"), "utf8")).toBe("value 7\n");
    expect(readdirSync(join(folder, "bindings")).sort()).toEqual(
      Array.from({ length: 20 }, (_, index) => `anon_${index}.md`).sort(),
    );
    writer.write(join(folder, "state.md"), "second\n");
    await writer.flush();
    expect(readFileSync(join(folder, "state.md"), "utf8")).toBe("second\n");
    expect(readdirSync(folder).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("report the first failed write once, and flush rejects with it; the other files are written", async () => {
    const folder = temporaryFolder();
    // A file where the writer needs a folder: the file system refuses (EEXIST or ENOTDIR).
    writeFileSync(join(folder, "bindings"), "in the way");
    mkdirSync(join(folder, "other"));
    const writer = new FileWriter(slowWriteMs);
    const failures: unknown[] = [];
    writer.onFailure = (error) => failures.push(error);
    writer.write(join(folder, "bindings", "a.md"), "a\n");
    writer.write(join(folder, "bindings", "b.md"), "b\n");
    writer.write(join(folder, "other", "c.md"), "c\n");
    await expect(writer.flush()).rejects.toThrow(/EEXIST|ENOTDIR/);
    expect(failures).toHaveLength(1);
    expect(readFileSync(join(folder, "other", "c.md"), "utf8")).toBe("c\n");
  });
});
