/**
 * Opening a file a tool reads or writes, so that what is opened is what was judged. The guard judges
 * the path and hands back its real location (every existing link resolved, a dangling link's target
 * included); that location is opened with O_NOFOLLOW (a link swapped in since is refused, not
 * followed) and O_NONBLOCK (a FIFO cannot block the open), the descriptor is `fstat`ed (regular files
 * only: no FIFO, socket or device), and the path the descriptor really names (`/proc/self/fd/N`) is
 * judged again, so a folder swapped for a link between the check and the open is caught too.
 *
 * A file is created, and missing folders made, only inside a folder opened `O_NOFOLLOW` whose
 * descriptor names the folder judged (through `/proc/self/fd/N/name`, Linux's `openat`): a folder
 * swapped for a link to outside meanwhile gets nothing, not even an empty file. A file this open
 * created and then refused is removed only when the path still names the same inode. A file with
 * another hard link (`nlink > 1`) is not written or edited: the other name may be outside. (Reads
 * keep the path rule: pnpm hard-links node_modules.)
 */
import { constants } from "node:fs";
import { lstat, mkdir, open, readlink, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname } from "node:path";
import type { ToolPermissions } from "../types.js";
import { PermissionDenied } from "./tool.js";

const { O_RDONLY, O_RDWR, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants;
const SAFE = O_NOFOLLOW | O_NONBLOCK;

export type OpenPurpose = "read" | "write" | "edit";

/**
 * The file at `path` (as the model wrote it), opened for `purpose`: `read` reads, `write` creates or
 * replaces (the caller truncates once it has the descriptor), `edit` reads and writes an existing file.
 */
export async function openChecked(
  path: string,
  purpose: OpenPurpose,
  permissions: ToolPermissions,
  tool: string,
): Promise<FileHandle> {
  const real =
    purpose === "read" ? await permissions.confirmRead(path, tool) : await permissions.confirmWrite(path, tool);
  if (purpose === "edit") await permissions.confirmRead(path, tool);
  if (purpose === "write") await makeFolders(dirname(real), path);
  const judge = (named: string): string =>
    purpose === "read" ? permissions.readablePath(named) : permissions.writablePath(named);
  const { handle, created } = await openReal(real, purpose, path);
  try {
    const found = await handle.stat();
    if (!found.isFile()) throw new Error(`${path} is not a regular file.`);
    if (purpose !== "read" && found.nlink > 1)
      throw new PermissionDenied(
        `${path} has ${found.nlink} hard links; a file another name also leads to (perhaps outside the working directory) is not written.`,
      );
    const named = await namedByDescriptor(handle);
    if (named !== undefined && named !== real) judge(named);
    return handle;
  } catch (error) {
    const opened = await handle.stat().catch(() => undefined);
    await handle.close();
    const there = created ? await lstat(real).catch(() => undefined) : undefined;
    if (opened !== undefined && there !== undefined && there.dev === opened.dev && there.ino === opened.ino)
      await unlink(real).catch(() => undefined);
    throw error;
  }
}

async function openReal(
  real: string,
  purpose: OpenPurpose,
  asked: string,
): Promise<{ handle: FileHandle; created: boolean }> {
  try {
    if (purpose === "read") return { handle: await open(real, O_RDONLY | SAFE), created: false };
    if (purpose === "edit") return { handle: await open(real, O_RDWR | SAFE), created: false };
    return await inFolder(dirname(real), asked, async (folder) => {
      const path = `${folder}/${basename(real)}`;
      try {
        return { handle: await open(path, O_WRONLY | O_CREAT | O_EXCL | SAFE, 0o666), created: true };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        return { handle: await open(path, O_WRONLY | SAFE), created: false };
      }
    });
  } catch (error) {
    if (error instanceof PermissionDenied) throw error;
    throw openFailure(error as NodeJS.ErrnoException, asked);
  }
}

/**
 * Runs `use` with a path that leads into `folder` itself: the folder is opened `O_NOFOLLOW` and its
 * descriptor must name `folder` (no link in any component), so what `use` creates there cannot land
 * elsewhere, whatever is swapped meanwhile. Without /proc (not Linux), the folder's own path.
 */
async function inFolder<T>(folder: string, asked: string, use: (path: string) => Promise<T>): Promise<T> {
  const handle = await open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW).catch((error: NodeJS.ErrnoException) => {
    throw error.code === "ELOOP" || error.code === "ENOTDIR"
      ? new PermissionDenied(`A folder of ${asked} became a symbolic link after it was checked; refused.`)
      : error;
  });
  try {
    const named = await namedByDescriptor(handle);
    if (named === undefined) return await use(folder);
    if (named !== folder)
      throw new PermissionDenied(`A folder of ${asked} became a symbolic link after it was checked; refused.`);
    return await use(`/proc/self/fd/${handle.fd}`);
  } finally {
    await handle.close();
  }
}

/** The missing folders of `folder` made one by one, each inside its checked parent. */
async function makeFolders(folder: string, asked: string): Promise<void> {
  const found = await lstat(folder).catch(() => undefined);
  if (found !== undefined) return;
  const parent = dirname(folder);
  if (parent === folder) return;
  await makeFolders(parent, asked);
  await inFolder(parent, asked, (path) =>
    mkdir(`${path}/${basename(folder)}`).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    }),
  );
}

function openFailure(error: NodeJS.ErrnoException, asked: string): Error {
  switch (error.code) {
    case "ENOENT":
      return new Error(`There is no file ${asked}.`);
    case "ELOOP":
      return new PermissionDenied(`${asked} became a symbolic link after it was checked; refused.`);
    case "ENXIO":
    case "EISDIR":
      return new Error(`${asked} is not a regular file.`);
    default:
      return new Error(`${asked} cannot be opened (${error.code ?? error.message}).`);
  }
}

/** The path the kernel says the descriptor names (Linux); undefined where /proc/self/fd is missing. */
async function namedByDescriptor(handle: FileHandle): Promise<string | undefined> {
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return undefined;
  }
}
