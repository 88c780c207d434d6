// Making a write durable: fsync a file, or a folder (so a rename or a new entry in it survives a power cut).
import fs from 'node:fs/promises';

/** fsync of `target`: a folder (opened read-only) or a file (opened for writing, as some systems require). */
export async function fsyncPath(target: string, kind: 'dir' | 'file' = 'dir'): Promise<void> {
  const handle = await fs.open(target, kind === 'dir' ? 'r' : 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
