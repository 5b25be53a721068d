/**
 * The files of a skill's folder, read as `read_skill` reads them: opened first (O_NOFOLLOW,
 * O_NONBLOCK), then judged by what the descriptor is (a regular file) and where it is (inside the
 * skill's real folder), so a file that is a link to `/proc/self/environ` or `~/.aws/credentials` (a
 * hostile repository's) is never read, and nothing swapped in after a check is followed.
 *
 * Reads are bounded: a skill may carry a large file (a data set, a model, a hostile repository's
 * sparse 3 GB file), and reading it whole made every session that used the skill fail with "Cannot
 * create a string longer than 0x1fffffe8 characters" after reading it for half a minute. A text is
 * read up to a number of bytes; a digest hashes at most DIGEST_BYTES of the folder's contents and
 * stands in for the rest of a file by its size and modification time.
 */
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readdirSync, readlinkSync, readSync, realpathSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { StringDecoder } from "node:string_decoder";

/** What a digest reads of a skill folder at most: a skill is a few files of text. */
export const MAX_FILES = 500;
/** The bytes of a skill folder's contents a digest hashes; past them, each file's size and time. */
const DIGEST_BYTES = 16 * 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;

/** A file's text, up to the bytes asked for; `size` is the whole file's. */
export interface SkillText {
  readonly text: string;
  readonly size: number;
  /** Whether the text is the file's beginning only. */
  readonly cut: boolean;
}

/** The regular files under `folder` (links not followed), in a fixed order, at most MAX_FILES. */
export function listFiles(folder: string): string[] {
  const found: string[] = [];
  const visit = (current: string): void => {
    for (const entry of readdirSync(current, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (found.length >= MAX_FILES) return;
      const path = join(current, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.isFile()) found.push(path);
    }
  };
  visit(folder);
  return found;
}

export function isOutside(folder: string, path: string): boolean {
  return path !== folder && !path.startsWith(`${folder}${sep}`);
}

/**
 * The text of `path` (relative) in the real folder `folder`, at most `maxBytes` of it, or why it may
 * not be read. A link inside that leads inside is read.
 */
export function readInside(folder: string, path: string, maxBytes: number, asked = path): SkillText | Error {
  return withFileInside(folder, path, asked, (descriptor, size) => {
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    let read = 0;
    for (let got = -1; read < length && got !== 0; read += got)
      got = readSync(descriptor, buffer, read, length - read, read);
    // A character cut at the end is left out, not replaced by U+FFFD.
    const text = new StringDecoder("utf8").write(buffer.subarray(0, read));
    return { text, size, cut: read < size };
  });
}

/** sha-256 of the folder's files (their paths and contents, DIGEST_BYTES of contents at most), hashed in a fixed order. */
export function digestOf(folder: string): string {
  const hash = createHash("sha256");
  let budget = DIGEST_BYTES;
  for (const file of listFiles(folder)) {
    hash.update(relative(folder, file).split(sep).join("/"));
    hash.update("\0");
    const hashed = withFileInside(folder, relative(folder, file), relative(folder, file), (descriptor, size) => {
      // Decoded as text, as a whole read decodes it: a file's digest is the one prosec 0.2 made of it.
      const decoder = new StringDecoder("utf8");
      const chunk = Buffer.alloc(Math.min(CHUNK_BYTES, Math.max(budget, 1)));
      let position = 0;
      while (position < size && budget > 0) {
        const got = readSync(descriptor, chunk, 0, Math.min(chunk.length, budget), position);
        if (got === 0) break;
        hash.update(decoder.write(chunk.subarray(0, got)));
        position += got;
        budget -= got;
      }
      hash.update(decoder.end());
      // The rest stands for itself by its size and time: an edit there still changes the digest.
      if (position < size) hash.update(`\0[${size} bytes, modified ${fstatSync(descriptor).mtimeMs}]`);
    });
    if (hashed instanceof Error) hash.update(`(unreadable: ${hashed.message})`);
    hash.update("\0");
  }
  return hash.digest("hex").slice(0, 16);
}

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = constants;

/**
 * `body` given the descriptor of `path` (relative) in the real folder `folder` and its size: opened
 * first, not following a last link nor waiting on a FIFO, then judged by its descriptor, a regular
 * file whose real path (`/proc/self/fd/N`) is inside the folder. Or why it may not be read.
 */
function withFileInside<T>(
  folder: string,
  path: string,
  asked: string,
  body: (descriptor: number, size: number) => T,
): T | Error {
  let real: string;
  try {
    real = realpathSync.native(join(folder, path));
  } catch {
    return new Error(`${asked}: no such file in the skill's folder.`);
  }
  const leadsOut = new Error(`${asked} leads outside the skill's folder; read_skill reads only inside it.`);
  if (isOutside(folder, real)) return leadsOut;
  let descriptor: number;
  try {
    descriptor = openSync(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ELOOP" ? leadsOut : new Error(`${asked} cannot be read (${code ?? "unknown error"}).`);
  }
  try {
    const stat = fstatSync(descriptor);
    if (!stat.isFile()) return new Error(`${asked} is not a regular file.`);
    const named = namedByDescriptor(descriptor);
    if (named !== undefined && isOutside(folder, named)) return leadsOut;
    return body(descriptor, stat.size);
  } catch (error) {
    // A read that fails midway (EIO, a file cut short under it) is the file's problem, said as such.
    return new Error(`${asked} cannot be read (${(error as NodeJS.ErrnoException).code ?? "unknown error"}).`);
  } finally {
    closeSync(descriptor);
  }
}

/** The path the kernel says a descriptor names (Linux); undefined where /proc/self/fd is missing. */
function namedByDescriptor(descriptor: number): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${descriptor}`);
  } catch {
    return undefined;
  }
}
