/**
 * Opening a file a tool reads or writes, so that what is opened is what was judged. The guard judges
 * the path and hands back its real location (every existing link resolved, a dangling link's target
 * included); that location is opened with O_NOFOLLOW (a link swapped in since is refused, not
 * followed) and O_NONBLOCK (a FIFO cannot block the open), the descriptor is `fstat`ed (regular files
 * only: no FIFO, socket or device), and the path the descriptor really names (`/proc/self/fd/N`) is
 * judged again, so a folder swapped for a link between the check and the open is caught too. A file
 * this open created and then refused is removed again.
 */
import { constants } from "node:fs";
import { mkdir, open, readlink, unlink, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import type { ToolPermissions } from "../types.js";
import { PermissionDenied } from "./tool.js";

const { O_RDONLY, O_RDWR, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = constants;
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
  if (purpose === "write") await mkdir(dirname(real), { recursive: true });
  const judge = (named: string): string =>
    purpose === "read" ? permissions.readablePath(named) : permissions.writablePath(named);
  const { handle, created } = await openReal(real, purpose, path);
  try {
    const found = await handle.stat();
    if (!found.isFile()) throw new Error(`${path} is not a regular file.`);
    const named = await namedByDescriptor(handle);
    if (named !== undefined && named !== real) judge(named);
    return handle;
  } catch (error) {
    await handle.close();
    if (created) await unlink(real).catch(() => undefined);
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
    try {
      return { handle: await open(real, O_WRONLY | O_CREAT | O_EXCL | SAFE, 0o666), created: true };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      return { handle: await open(real, O_WRONLY | SAFE), created: false };
    }
  } catch (error) {
    throw openFailure(error as NodeJS.ErrnoException, asked);
  }
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
