import { createReadStream } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readdir } from 'node:fs/promises';
import { join, normalize, sep } from 'node:path';

/**
 * A directory as a POSIX tar (ustar) stream and back, one file at a time: memory stays a block and a chunk, whatever
 * the directory's size (PGlite's own `dumpDataDir` builds the whole archive in memory: 7 GB of peak RSS for a 1.1 GB
 * data directory). Regular files and directories only, as a PostgreSQL data directory holds; `tar xf` reads it.
 */
const BLOCK = 512;

/** The archive of `dir`, entries in a fixed order (directories before what they hold), ending with two zero blocks. */
export async function* tarDirectory(dir: string): AsyncGenerator<Buffer> {
  for await (const entry of walk(dir, '')) {
    if (entry.directory) {
      yield header(`${entry.name}/`, entry.mode, 0, entry.mtime, '5');
      continue;
    }
    yield header(entry.name, entry.mode, entry.size, entry.mtime, '0');
    let written = 0;
    for await (const chunk of createReadStream(join(dir, entry.name), { highWaterMark: 1 << 20 })) {
      const piece = chunk as Buffer;
      // A file that grew after it was listed is cut to the listed size: the header has said how much follows.
      const take = piece.subarray(0, Math.max(0, entry.size - written));
      written += take.length;
      if (take.length) yield take;
    }
    if (written < entry.size) throw new Error(`${entry.name} shrank while it was archived`);
    const pad = (BLOCK - (entry.size % BLOCK)) % BLOCK;
    if (pad) yield Buffer.alloc(pad);
  }
  yield Buffer.alloc(2 * BLOCK);
}

interface Entry {
  name: string;
  directory: boolean;
  mode: number;
  size: number;
  mtime: number;
}

async function* walk(root: string, prefix: string): AsyncGenerator<Entry> {
  const names = (await readdir(join(root, prefix))).sort();
  for (const name of names) {
    const relative = prefix ? `${prefix}/${name}` : name;
    const info = await lstat(join(root, relative));
    const entry = { name: relative, mode: info.mode & 0o7777, size: info.size, mtime: info.mtimeMs / 1000 };
    if (info.isDirectory()) {
      yield { ...entry, directory: true, size: 0 };
      yield* walk(root, relative);
    } else if (info.isFile()) {
      yield { ...entry, directory: false };
    } else {
      throw new Error(`${relative} is neither a file nor a directory; a data directory holds only those`);
    }
  }
}

function header(path: string, mode: number, size: number, mtime: number, type: '0' | '5'): Buffer {
  const block = Buffer.alloc(BLOCK);
  const { name, prefix } = splitName(path);
  block.write(name, 0, 100, 'utf8');
  octal(block, 100, 8, mode);
  octal(block, 108, 8, 0);
  octal(block, 116, 8, 0);
  octal(block, 124, 12, size);
  octal(block, 136, 12, Math.floor(mtime));
  block.write(type, 156, 1, 'ascii');
  block.write('ustar\0', 257, 6, 'ascii');
  block.write('00', 263, 2, 'ascii');
  block.write(prefix, 345, 155, 'utf8');
  block.write('        ', 148, 8, 'ascii');
  const sum = block.reduce((total, byte) => total + byte, 0);
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return block;
}

/** ustar's 100-byte name and 155-byte prefix, split at a slash. */
function splitName(path: string): { name: string; prefix: string } {
  if (Buffer.byteLength(path) <= 100) return { name: path, prefix: '' };
  for (let at = path.indexOf('/'); at > 0; at = path.indexOf('/', at + 1)) {
    const prefix = path.slice(0, at);
    const name = path.slice(at + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100) return { name, prefix };
  }
  throw new Error(`${path} is too long for a tar header`);
}

function octal(block: Buffer, at: number, width: number, value: number): void {
  block.write(`${value.toString(8).padStart(width - 1, '0')}\0`, at, width, 'ascii');
}

/** A damaged or foreign archive. */
export class TarFormatError extends Error {
  constructor(message: string) {
    super(`not a readable backup archive: ${message}`);
    this.name = 'TarFormatError';
  }
}

/** Reads exact byte counts off a stream of chunks. */
class ExactReader {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly source: AsyncIterator<Buffer>) {}

  /** Up to `n` bytes (fewer only at the end of the stream). */
  async read(n: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    let have = 0;
    while (have < n) {
      if (!this.pending.length) {
        const next = await this.source.next();
        if (next.done) break;
        this.pending = next.value;
      }
      const take = this.pending.subarray(0, n - have);
      parts.push(take);
      have += take.length;
      this.pending = this.pending.subarray(take.length);
    }
    return parts.length === 1 ? parts[0] : Buffer.concat(parts, have);
  }
}

/** Writes the archive `chunks` into `dir` (which may exist, empty); refuses names that would leave it. */
export async function untarInto(chunks: AsyncIterable<Buffer>, dir: string): Promise<{ files: number }> {
  const reader = new ExactReader(chunks[Symbol.asyncIterator]());
  let files = 0;
  await mkdir(dir, { recursive: true });
  for (;;) {
    const block = await reader.read(BLOCK);
    if (block.length < BLOCK) throw new TarFormatError('it ends before its end blocks');
    if (block.every((byte) => byte === 0)) return { files };
    const stored = parseInt(block.toString('ascii', 148, 156).replace(/\0.*$/s, '').trim(), 8);
    const sum = block.reduce((total, byte, i) => total + (i >= 148 && i < 156 ? 32 : byte), 0);
    if (stored !== sum) throw new TarFormatError('a header fails its checksum');
    const text = (at: number, width: number) => block.toString('utf8', at, at + width).replace(/\0.*$/s, '');
    const prefix = text(345, 155);
    const path = (prefix ? `${prefix}/` : '') + text(0, 100);
    const mode = parseInt(text(100, 8), 8) & 0o7777;
    const size = parseInt(text(124, 12), 8);
    const type = text(156, 1) || '0';
    const target = inside(dir, path);
    if (type === '5') {
      await mkdir(target, { recursive: true, mode });
      continue;
    }
    if (type !== '0') throw new TarFormatError(`${path} is neither a file nor a directory`);
    const file: FileHandle = await open(target, 'w', mode);
    try {
      for (let left = size; left > 0;) {
        const piece = await reader.read(Math.min(left, 1 << 20));
        if (!piece.length) throw new TarFormatError(`${path} is cut short`);
        await file.write(piece);
        left -= piece.length;
      }
    } finally {
      await file.close();
    }
    const pad = (BLOCK - (size % BLOCK)) % BLOCK;
    if (pad && (await reader.read(pad)).length < pad) throw new TarFormatError(`${path} is cut short`);
    files += 1;
  }
}

function inside(dir: string, path: string): string {
  const clean = normalize(path.replace(/\/+$/, ''));
  if (
    !clean ||
    clean === '.' ||
    clean.startsWith('..') ||
    clean.startsWith(sep) ||
    clean.includes(`${sep}..${sep}`)
  )
    throw new TarFormatError(`${path} would be written outside the directory`);
  return join(dir, clean);
}
