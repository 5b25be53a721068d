/**
 * Reads a zip archive (a .vsix) from its central directory: the entries' names and, on request, their
 * content. Enough for the archives vsce writes (stored or deflated entries, no zip64).
 */
import { inflateRawSync } from "node:zlib";

export interface ZipEntry {
  readonly name: string;
  read(): Buffer;
}

export function zipEntries(archive: Buffer): ZipEntry[] {
  const end = archive.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end === -1) throw new Error("not a zip archive: no end of central directory record");
  const count = archive.readUInt16LE(end + 10);
  let cursor = archive.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let index = 0; index < count; index++) {
    if (archive.readUInt32LE(cursor) !== 0x02014b50) throw new Error(`bad central directory entry ${index}`);
    const method = archive.readUInt16LE(cursor + 10);
    const compressedSize = archive.readUInt32LE(cursor + 20);
    const nameLength = archive.readUInt16LE(cursor + 28);
    const extraLength = archive.readUInt16LE(cursor + 30);
    const commentLength = archive.readUInt16LE(cursor + 32);
    const localHeader = archive.readUInt32LE(cursor + 42);
    const name = archive.toString("utf8", cursor + 46, cursor + 46 + nameLength);
    entries.push({
      name,
      read: () => {
        const dataStart =
          localHeader + 30 + archive.readUInt16LE(localHeader + 26) + archive.readUInt16LE(localHeader + 28);
        const data = archive.subarray(dataStart, dataStart + compressedSize);
        return method === 8 ? inflateRawSync(data) : Buffer.from(data);
      },
    });
    cursor += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
