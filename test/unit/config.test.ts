import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { envName, flagName, loadConfig, SETTINGS } from '../../src/config.js';

describe('configuration', () => {
  it('derives flags and environment names from the settings table', () => {
    expect(flagName('snapshotsDir')).to.equal('snapshots-dir');
    expect(envName('snapshotsDir')).to.equal('JPS_SNAPSHOTS_DIR');
  });

  it('takes a flag over the environment and the environment over the default', () => {
    expect(loadConfig({}, {}).port).to.equal(8080);
    expect(loadConfig({}, { JPS_PORT: '9000' }).port).to.equal(9000);
    expect(loadConfig({ port: '9100' }, { JPS_PORT: '9000' }).port).to.equal(9100);
    expect(loadConfig({}, { JPS_DATA_DIR: '/srv/jobs' }).dataDir).to.equal('/srv/jobs');
  });

  it('refuses a setting that is not a whole number, naming it', () => {
    expect(() => loadConfig({ port: 'eighty' }, {})).to.throw('--port must be a whole number');
    expect(() => loadConfig({}, { JPS_QUERY_TIMEOUT_MS: '1.5' })).to.throw('JPS_QUERY_TIMEOUT_MS');
  });

  it('documents every setting in docs/operations.md', () => {
    const docs = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    for (const setting of SETTINGS) {
      expect(docs, setting.key).to.include(`\`--${flagName(setting.key)}\``);
      expect(docs, setting.key).to.include(`\`${envName(setting.key)}\``);
    }
  });
});
