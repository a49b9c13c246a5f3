import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A private folder (mode 0700) for one execution or one kernel: the generated
 * hermes_tools.py, the script, and the RPC socket. It lives under the system temp folder
 * so the socket path stays short.
 */
export class StagingDir {
  private constructor(readonly path: string) {}

  static async create(): Promise<StagingDir> {
    return new StagingDir(await mkdtemp(join(tmpdir(), 'hermes-exec-')));
  }

  get socketPath(): string {
    return join(this.path, 'rpc.sock');
  }

  file(name: string): string {
    return join(this.path, name);
  }

  async write(name: string, text: string): Promise<string> {
    const path = this.file(name);
    await writeFile(path, text, { mode: 0o600 });
    return path;
  }

  async remove(): Promise<void> {
    await rm(this.path, { recursive: true, force: true });
  }
}
