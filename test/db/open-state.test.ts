import { expect } from 'chai';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { openState } from '../../src/db/open-state.js';
import { seededDataDir, tempDir } from '../support/app.js';

describe('opening the embedded state store', () => {
  it('gives a server the shared buffers of --state-buffers, and a command 16MB whatever it says', async () => {
    const config = { ...loadConfig({}, {}), dataDir: await seededDataDir(join(await tempDir('open-state'), 'data')), stateBuffers: '24MB' };
    const buffersOf = async (role: 'server' | 'cli') => {
      const state = await openState(config, { role });
      try {
        return (await state.store.query<{ shared_buffers: string }>('SHOW shared_buffers'))[0]!.shared_buffers;
      } finally {
        await state.close();
      }
    };
    expect(await buffersOf('server')).to.equal('24MB');
    expect(await buffersOf('cli')).to.equal('16MB');
  });
});
