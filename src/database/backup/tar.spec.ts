import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TarFormatError, tarDirectory, untarInto } from './tar';

async function archive(dir: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of tarDirectory(dir)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function* once(buffer: Buffer): AsyncGenerator<Buffer> {
  // In uneven pieces, as a gunzip stream hands them over.
  for (let at = 0; at < buffer.length; at += 7_001) yield buffer.subarray(at, at + 7_001);
}

describe('tar of a data directory', () => {
  let work: string;
  beforeEach(() => (work = mkdtempSync(join(tmpdir(), 'mess-tar-'))));
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  function sampleDirectory(): string {
    const dir = join(work, 'source');
    const deep = join(dir, 'base', 'a'.repeat(60), 'b'.repeat(60));
    mkdirSync(deep, { recursive: true });
    mkdirSync(join(dir, 'pg_tblspc')); // empty directories are part of a data directory
    writeFileSync(join(dir, 'PG_VERSION'), '17\n');
    writeFileSync(join(dir, 'base', 'empty'), '');
    writeFileSync(join(deep, 'c'.repeat(40)), Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251)));
    writeFileSync(join(dir, 'exactly-a-block'), Buffer.alloc(512, 7), { mode: 0o600 });
    return dir;
  }

  function listing(dir: string, prefix = ''): string[] {
    return readdirSync(join(dir, prefix))
      .sort()
      .flatMap((name) => {
        const path = prefix ? `${prefix}/${name}` : name;
        const info = statSync(join(dir, path));
        return info.isDirectory()
          ? [`${path}/`, ...listing(dir, path)]
          : [`${path} ${info.size} ${readFileSync(join(dir, path)).toString('base64').slice(0, 40)}`];
      });
  }

  it('restores every file, its bytes and every empty directory, names longer than 100 bytes too', async () => {
    const source = sampleDirectory();
    const target = join(work, 'target');
    await expect(untarInto(once(await archive(source)), target)).resolves.toEqual({ files: 4 });
    expect(listing(target)).toEqual(listing(source));
    expect(statSync(join(target, 'exactly-a-block')).mode & 0o777).toBe(0o600);
  });

  it('is read by tar(1) as a plain archive', async () => {
    const source = sampleDirectory();
    const file = join(work, 'archive.tar');
    writeFileSync(file, await archive(source));
    const names = execFileSync('tar', ['tf', file], { encoding: 'utf8' }).trim().split('\n');
    expect(names).toContain(`base/${'a'.repeat(60)}/${'b'.repeat(60)}/${'c'.repeat(40)}`);
    expect(names).toContain('pg_tblspc/');
  });

  it('refuses a damaged header, a cut-short archive and a name that leaves the directory', async () => {
    const good = await archive(sampleDirectory());
    const damaged = Buffer.from(good);
    damaged[3] ^= 0xff;
    await expect(untarInto(once(damaged), join(work, 'a'))).rejects.toThrow(TarFormatError);
    await expect(untarInto(once(good.subarray(0, 2048)), join(work, 'b'))).rejects.toThrow(
      /cut short|ends before/,
    );
    const escape = Buffer.from(good.subarray(0, 512));
    escape.fill(0, 0, 100);
    escape.write('../outside', 0, 'utf8');
    escape.write('        ', 148, 'ascii');
    const sum = escape.reduce((total, byte) => total + byte, 0);
    escape.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
    await expect(
      untarInto(once(Buffer.concat([escape, Buffer.alloc(1024)])), join(work, 'c')),
    ).rejects.toThrow(/outside the directory/);
  });
});
