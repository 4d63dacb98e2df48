import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

// What a Worker build uploads, measured one way for the bench's bundle rows (databases.ts) and for
// `npm run check:bundle`'s bound (scripts/bundle-contents.ts), so the two read the same figure.

export interface BundleFile {
  name: string;
  bytes: number;
  gzipBytes: number;
}

/** The modules of a build in `dir`, gzipped (level 9); source maps and the config are not uploaded. */
export async function builtModules(dir: string): Promise<BundleFile[]> {
  const files: BundleFile[] = [];
  for (const name of (await readdir(dir)).sort()) {
    if (name.endsWith(".map") || name.endsWith(".toml") || name === "README.md") continue;
    const bytes = await readFile(join(dir, name));
    files.push({ name, bytes: bytes.byteLength, gzipBytes: gzipSync(bytes, { level: 9 }).byteLength });
  }
  return files;
}
