/**
 * Reading an `.a1run` zip from a stranger: the central directory first (names and declared sizes,
 * nothing inflated), then one entry at a time through a streaming inflater that stops at a bound.
 * A zip's declared sizes can lie; the inflater never writes past min(declared size, bound), so a
 * small file cannot make it allocate more than the caller allowed.
 *
 * Zip layout (APPNOTE 6.3): [local header + data]... central directory, end-of-central-directory
 * record (EOCD, 22 bytes + comment). Zip64 and encryption are refused: bundles never use them.
 */
import { Inflate, strFromU8 } from "fflate";

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflate. */
  method: number;
  compressedSize: number;
  /** As the central directory declares it: checked while inflating. */
  size: number;
  /** Offset of the entry's local header. */
  headerOffset: number;
}

/** The archive is not a zip this app wrote or can read; the message says why. */
export class ZipFormatError extends Error {
  override name = "ZipFormatError";
}

const SIG = { eocd: 0x06054b50, central: 0x02014b50, local: 0x04034b50 } as const;
/** Where each field sits in its record (APPNOTE 4.3.7, 4.3.12, 4.3.16). */
const EOCD = { entries: 10, cdSize: 12, cdOffset: 16, commentLength: 20, length: 22 } as const;
const CENTRAL = { flags: 8, method: 10, compressedSize: 20, size: 24, nameLength: 28, extraLength: 30, commentLength: 32, headerOffset: 42, length: 46 } as const;
const LOCAL = { nameLength: 26, extraLength: 28, length: 30 } as const;
/** Input fed to the inflater per push: deflate expands at most ~1032x, so one push yields at most ~16 MiB before the bound is checked. */
const CHUNK = 16 << 10;

/** The central directory: every entry's name and declared sizes, without inflating anything. */
export function readCentralDirectory(zip: Uint8Array): ZipEntry[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let eocd = -1;
  for (let i = zip.length - EOCD.length; i >= Math.max(0, zip.length - EOCD.length - 0xffff); i--) {
    if (view.getUint32(i, true) === SIG.eocd) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new ZipFormatError("it is not a zip archive (no end-of-archive record)");
  const count = view.getUint16(eocd + EOCD.entries, true);
  const cdOffset = view.getUint32(eocd + EOCD.cdOffset, true);
  const cdSize = view.getUint32(eocd + EOCD.cdSize, true);
  if (count === 0xffff || cdOffset === 0xffffffff) throw new ZipFormatError("it is a zip64 archive, which .a1run files never are");
  if (cdOffset + cdSize > eocd) throw new ZipFormatError("its central directory lies outside the file (truncated?)");
  const entries: ZipEntry[] = [];
  let p = cdOffset;
  for (let i = 0; i < count; i++) {
    if (p + CENTRAL.length > eocd || view.getUint32(p, true) !== SIG.central) throw new ZipFormatError(`its central directory is damaged at entry ${i}`);
    const flags = view.getUint16(p + CENTRAL.flags, true);
    const nameLength = view.getUint16(p + CENTRAL.nameLength, true);
    const name = strFromU8(zip.subarray(p + CENTRAL.length, p + CENTRAL.length + nameLength));
    if (flags & 1) throw new ZipFormatError(`${JSON.stringify(name.slice(0, 80))} is encrypted`);
    const entry: ZipEntry = {
      name,
      method: view.getUint16(p + CENTRAL.method, true),
      compressedSize: view.getUint32(p + CENTRAL.compressedSize, true),
      size: view.getUint32(p + CENTRAL.size, true),
      headerOffset: view.getUint32(p + CENTRAL.headerOffset, true),
    };
    if (entry.method !== 0 && entry.method !== 8) throw new ZipFormatError(`${JSON.stringify(name.slice(0, 80))} uses compression method ${entry.method} (only stored and deflate are read)`);
    entries.push(entry);
    p += CENTRAL.length + nameLength + view.getUint16(p + CENTRAL.extraLength, true) + view.getUint16(p + CENTRAL.commentLength, true);
  }
  return entries;
}

/** An entry's compressed bytes, located through its local header. */
function entryData(zip: Uint8Array, e: ZipEntry): Uint8Array {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const h = e.headerOffset;
  if (h + LOCAL.length > zip.length || view.getUint32(h, true) !== SIG.local) throw new ZipFormatError(`${e.name}: its local header is missing (truncated or damaged)`);
  const start = h + LOCAL.length + view.getUint16(h + LOCAL.nameLength, true) + view.getUint16(h + LOCAL.extraLength, true);
  if (start + e.compressedSize > zip.length) throw new ZipFormatError(`${e.name}: its data runs past the end of the file (truncated)`);
  return zip.subarray(start, start + e.compressedSize);
}

/**
 * Inflate one entry, never writing more than its declared size (which the caller checked against
 * its bound): an entry that inflates to more or fewer bytes than it declares is refused.
 * `onBytes(n)` reports the bytes inflated so far.
 */
export function inflateEntry(zip: Uint8Array, e: ZipEntry, onBytes?: (n: number) => void): Uint8Array {
  const data = entryData(zip, e);
  if (e.method === 0) {
    if (e.compressedSize !== e.size) throw new ZipFormatError(`${e.name}: stored with ${e.compressedSize} bytes but declares ${e.size}`);
    return data.slice();
  }
  const out = new Uint8Array(e.size);
  let written = 0;
  let ended = false;
  const inflater = new Inflate((chunk, final) => {
    if (written + chunk.length > e.size) throw new ZipFormatError(`${e.name} inflates to more than the ${e.size} bytes it declares (a lying size: refused before inflating further)`);
    out.set(chunk, written);
    written += chunk.length;
    if (final) ended = true;
  });
  try {
    for (let i = 0; i < data.length && !ended; i += CHUNK) {
      inflater.push(data.subarray(i, i + CHUNK), i + CHUNK >= data.length);
      onBytes?.(written);
    }
    if (data.length === 0) inflater.push(data, true);
  } catch (err) {
    if (err instanceof ZipFormatError) throw err;
    throw new ZipFormatError(`${e.name} is not valid deflate data (${(err as Error).message})`);
  }
  if (written !== e.size) throw new ZipFormatError(`${e.name} inflates to ${written} bytes but declares ${e.size} (truncated or damaged)`);
  return out;
}
