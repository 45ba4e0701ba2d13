import { expect } from 'chai';
import { jsonItem, jsonLines, jsonList, withoutUnstatedArrangement } from '../../src/jobs/json-bytes.js';

const job = (fields: Record<string, unknown>) => Buffer.from(JSON.stringify({ job_id: 'j1', ...fields }));

describe('answers spliced as bytes', () => {
  it('leaves out an unstated work_arrangement, and leaves a stated one and the same words inside a text as they are', () => {
    const unstated = job({ work_arrangement: null, title: 'Café manager — "work_arrangement":null, said no one' });
    expect(JSON.parse(withoutUnstatedArrangement(unstated).toString())).to.deep.equal({
      job_id: 'j1',
      title: 'Café manager — "work_arrangement":null, said no one',
    });
    const stated = job({ work_arrangement: 'remote', title: 'Nurse' });
    expect(withoutUnstatedArrangement(stated)).to.equal(stated);
  });

  it('splices a page, one item and JSON Lines that read back as the values they were made of', () => {
    const items = [job({ title: 'Zoë' }), job({ title: '東京 engineer' }), job({ title: 'Plain' })];
    const tail = JSON.stringify({ next_cursor: null, snapshot_watermark: 'w' });
    expect(JSON.parse(jsonList(items, tail).toString())).to.deep.equal({
      data: items.map((item) => JSON.parse(item.toString()) as unknown),
      next_cursor: null,
      snapshot_watermark: 'w',
    });
    expect(JSON.parse(jsonList([], tail).toString())).to.deep.equal({ data: [], next_cursor: null, snapshot_watermark: 'w' });
    expect(JSON.parse(jsonItem(items[1]!, JSON.stringify({ snapshot_watermark: 'w' })).toString())).to.deep.equal({
      data: { job_id: 'j1', title: '東京 engineer' },
      snapshot_watermark: 'w',
    });
    expect(jsonLines(items).toString().split('\n')).to.deep.equal([...items.map((item) => item.toString()), '']);
  });
});
